"""The `isolated` marker (tests/conftest.py): the body runs in a forked child, and its outcome comes back."""
import os
from fractions import Fraction

import pytest

from volta.symbolic import expr as E

MARK = Fraction(1, 999_983)   # a constant no other test interns


@pytest.fixture(scope="module")
def worker_pid():
    return os.getpid()


@pytest.mark.isolated
def test_the_body_runs_in_a_child_with_the_fixtures_of_the_parent(worker_pid, capsys, tmp_path):
    assert os.getpid() != worker_pid
    print("from the child")
    assert capsys.readouterr().out == "from the child\n"
    (tmp_path / "written").write_text("by the child")
    E.const(MARK)


def test_what_the_child_interned_left_with_it(worker_pid):
    assert os.getpid() == worker_pid and (E.CONST, (), MARK) not in E._TABLE


@pytest.mark.isolated
def test_a_skip_in_the_child_is_a_skip():
    pytest.skip("skipped in the child")


@pytest.mark.isolated
@pytest.mark.xfail(reason="a failed assertion comes back as a failure", strict=True)
def test_a_failure_in_the_child_is_a_failure():
    assert 1 + 1 == 3


@pytest.mark.isolated
@pytest.mark.xfail(reason="a child that dies is a failure, not a pass", strict=True)
def test_a_child_that_dies_is_a_failure():
    os._exit(0)
