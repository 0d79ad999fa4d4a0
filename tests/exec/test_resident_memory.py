"""--max-memory is enforced on resident memory during a run, not only by the estimate before it."""
from types import SimpleNamespace

import pytest

from volta.errors import UsageError
from volta.exec import limits


def test_resident_memory_is_read():
    rss = limits.resident_memory()
    assert rss is None or rss > 1 << 20


def test_a_run_over_the_limit_stops_with_a_usage_error():
    if limits.resident_memory() is None:
        pytest.skip("no /proc/self/statm here")
    machine = SimpleNamespace(prog=SimpleNamespace(name="k"), steps=8192, thread_instructions=0,
                              clock=limits.StepClock())
    with limits.using(max_memory=1 << 20):
        with pytest.raises(UsageError, match="resident memory after 8,192 steps.*--max-memory"):
            limits.step_check(machine)
    with limits.using(max_memory=1 << 40):
        limits.step_check(machine)   # under the limit: nothing happens
