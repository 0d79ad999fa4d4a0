"""The pytest plugin as a kernel author meets it: installed by `pip install volta` (the pytest11 entry point), a
ten-line test file using the bundled examples, readable failures (the counterexample with its values, the race
with its threads and lines)."""
from __future__ import annotations

from importlib.metadata import entry_points
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

EX = Path(__file__).resolve().parents[2] / "examples"

TEN_LINES = f'''
import volta
EX = "{EX}"
def test_tiled_gemm_is_equivalent(assert_equivalent):
    assert_equivalent(EX + "/eq_gemm_naive_tiled/manifest.toml")
def test_saxpy_variant(assert_equivalent):
    assert_equivalent(EX + "/neq_saxpy_last_sign/manifest.toml")
def test_vector_add_race_free(assert_race_free):
    bufs = [volta.Buffer(n, "f32", 500) for n in ("x", "y", "out")]
    assert_race_free(EX + "/vector_add/kernel.sm80.ptx", volta.Launch(grid=4, block=128, args=[*bufs, 500]))
def test_tree_reduce_race_free(assert_race_free):
    assert_race_free(EX + "/bug_reduce_tree_nosync/manifest.toml")
'''


def test_entry_point_is_registered():
    eps = [e for e in entry_points(group="pytest11") if e.name == "volta"]
    assert eps and eps[0].value == "volta.pytest_plugin"


@pytest.mark.slow
def test_ten_line_file_through_the_installed_plugin(pytester):
    pytester.makepyfile(test_kernels=TEN_LINES)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")  # a fresh pytest: entry points, no -p volta
    result.assert_outcomes(passed=2, failed=2)
    out = result.stdout.str()
    # NOT EQUIVALENT: the element, both values and the input values that produce them
    assert "not proved equivalent (verdict not-equivalent, exit 1)" in out
    assert "NOT EQUIVALENT: out[511] differs: ref = 2, opt = 0" in out and "x[511] = 1" in out
    # RACE: both threads, the PTX and CUDA lines
    assert "is not race-free (verdict findings, exit 1)" in out
    assert "RACE: write-read race" in out and "block (0, 0, 0) thread (" in out and "kernel.cu:12" in out
    assert "volta/api.py" not in out  # the helpers hide their own frames


def test_helpers_importable_and_return_the_result():
    from volta.pytest_plugin import KernelCheckFailed, assert_equivalent, assert_race_free

    r = assert_equivalent(str(EX / "eq_gemm_naive_tiled" / "manifest.toml"))
    assert r.verdict == "equivalent"
    try:
        assert_race_free(str(EX / "bug_reduce_tree_nosync" / "manifest.toml"))
    except KernelCheckFailed as err:
        assert err.result.verdict == "findings" and isinstance(err, AssertionError)
    else:  # pragma: no cover
        raise AssertionError("a racy kernel passed assert_race_free")
