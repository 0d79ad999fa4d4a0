"""The `isolated` marker (tests/conftest.py): the body runs in a forked child, and its outcome comes back."""
import os
from fractions import Fraction
from pathlib import Path

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
    assert os.getpid() == worker_pid and (E.CONST, (), (MARK.numerator, MARK.denominator)) not in E._TABLE


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


pytest_plugins = ["pytester"]


def test_a_test_that_raises_the_peak_past_the_threshold_gets_a_warning(pytester):
    """tests/conftest.py's peak-memory warning, wired as the suite runs it, with the peak readings given (a real
    allocation's effect on a process's peak depends on where that process already was: the test that allocated
    512 MB passed alone and not in the whole suite): 40 MB before the test, 1,800 MB after, past 1,536 MB."""
    conftest = (Path(__file__).parent / "conftest.py").read_text()
    pytester.makeconftest(conftest + "\n_peak_rss_mb = iter([40.0, 1800.0, 40.0, 40.0]).__next__\n")
    pytester.makepyfile(test_peak="def test_grows():\n    pass\n\ndef test_stays():\n    pass\n")
    result = pytester.runpytest_subprocess("-p", "no:xdist", "-p", "no:cacheprovider", "-W", "default")
    result.assert_outcomes(passed=2, warnings=1)
    result.stdout.fnmatch_lines(["*test_grows*", "*peak resident memory reached 1800 MB during this test (from 40 MB)"
                                 ", past 1536 MB*"])
