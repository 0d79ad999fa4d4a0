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
    with limits.using(max_memory=1 << 20) as lim:
        lim.resident_at_start = 0  # as if the whole process had been made by this command
        with pytest.raises(UsageError, match="resident memory by .* after 8,192 steps.*--max-memory"):
            limits.step_check(machine)
    with limits.using(max_memory=1 << 40):
        limits.step_check(machine)   # under the limit: nothing happens


def test_what_the_process_held_before_the_command_does_not_count():
    """A check made from a long-lived process (a test worker, a notebook) is bounded by what it adds."""
    if limits.resident_memory() is None:
        pytest.skip("no /proc/self/statm here")
    machine = SimpleNamespace(prog=SimpleNamespace(name="k"), steps=8192, thread_instructions=0,
                              clock=limits.StepClock())
    with limits.using(max_memory=64 << 20):
        limits.step_check(machine)
