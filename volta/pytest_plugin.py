"""pytest plugin (entry point `pytest11: volta`, so `pip install volta` is enough): kernel checks as assertions.

    def test_tiled_gemm(assert_equivalent):
        assert_equivalent("gemm_naive.ptx", "gemm_tiled.cu", volta.Launch(grid=(4, 4), block=(16, 16),
                          args=[A, B, C, 64, 64, 64]))

    def test_reduce(assert_race_free):
        assert_race_free("examples/reduce_tree/manifest.toml")

    def test_llm_relu(assert_kernelbench_equivalent):
        assert_kernelbench_equivalent("19_ReLU.py", "candidates/relu_3.py", sizes={"batch_size": 2})

The fixtures return the helpers below, which are importable too (`from volta.pytest_plugin import
assert_equivalent`). They pass only on a verdict that was made: `assert_equivalent` on EQUIVALENT (or
BIT-IDENTICAL with `fp=`), `assert_race_free` on CLEAN. Anything else fails with the report a user would
read from the CLI: the counterexample with its input values, or the findings with threads and lines,
or why nothing was decided (UNSUPPORTED, UNKNOWN). Importing this module at pytest start-up loads
nothing heavy; `volta.api` is imported on first use.
"""
from __future__ import annotations

from typing import Any

import pytest


class KernelCheckFailed(AssertionError):
    """A kernel check did not reach the verdict the test asserts; the message is Volta's report."""

    def __init__(self, message: str, result: Any):
        super().__init__(message)
        self.result = result


def assert_equivalent(ref, opt=None, launch=None, **options):
    """Fail unless `volta.check(ref, opt, launch, **options)` proves the two kernels equivalent
    (or bit-identical, with `fp="ieee"`/an architecture). Returns the result when it passes."""
    __tracebackhide__ = True
    from volta import api

    if options.get("fp", "real") != "real":
        options.setdefault("prove", True)   # bit identity passes only when proved, not when merely sampled
    result = api.check(ref, opt, launch, **options)
    if result.exit_code != 0:
        what = f"{ref} and {opt}" if opt is not None else f"the [ref] and [opt] kernels of {ref}"
        raise KernelCheckFailed(f"volta check: {what} are not proved equivalent "
                                f"(verdict {result.verdict}, exit {result.exit_code})\n{result.report()}", result)
    return result


def assert_race_free(kernel, launch=None, **options):
    """Fail unless `volta.races(kernel, launch, **options)` finds the launch CLEAN: no race, deadlock,
    out-of-bounds access or uninitialized read. Returns the result when it passes."""
    __tracebackhide__ = True
    from volta import api

    result = api.races(kernel, launch, **options)
    if result.exit_code != 0:
        raise KernelCheckFailed(f"volta races: {kernel} is not race-free (verdict {result.verdict}, "
                                f"exit {result.exit_code})\n{result.report()}", result)
    return result


def assert_kernelbench_equivalent(problem, candidate, sizes=None, **options):
    """Fail unless `volta.kernelbench(problem, candidate, sizes, **options)` proves the candidate's ModelNew
    equivalent to the problem's Model at the checked sizes (and, with `ragged=True`, finds nothing there
    either). Returns the result when it passes."""
    __tracebackhide__ = True
    import volta.kernelbench

    result = volta.kernelbench(problem, candidate, sizes, **options)
    if result.exit_code != 0:
        raise KernelCheckFailed(f"volta kernelbench: {candidate} is not proved equivalent to {problem} "
                                f"(verdict {result.verdict}: {result.raw['verdict_text']}, exit {result.exit_code})"
                                f"\n{result.report()}", result)
    return result


@pytest.fixture(name="assert_equivalent")
def _assert_equivalent_fixture():
    """`assert_equivalent(ref, opt, launch, **options)`: see `volta.pytest_plugin.assert_equivalent`."""
    return assert_equivalent


@pytest.fixture(name="assert_race_free")
def _assert_race_free_fixture():
    """`assert_race_free(kernel, launch, **options)`: see `volta.pytest_plugin.assert_race_free`."""
    return assert_race_free


@pytest.fixture(name="assert_kernelbench_equivalent")
def _assert_kernelbench_equivalent_fixture():
    """`assert_kernelbench_equivalent(problem, candidate, sizes, **options)`: see
    `volta.pytest_plugin.assert_kernelbench_equivalent`."""
    return assert_kernelbench_equivalent
