"""Every lock order (volta/exec/state/schedules.py): contended atomics tried under other winners in concrete mode."""
from __future__ import annotations

from pathlib import Path

from volta.exec.state.schedules import Schedule, _next_prefix, explore
from volta.launch.spec import load_manifest
from volta.session.races import CLEAN_FOR_INPUTS, FINDINGS, RacesOptions, analyze

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _spec(case):
    return load_manifest(EXAMPLES / case / "manifest.toml")


def test_depth_first_prefixes():
    assert _next_prefix([(3, 0)]) == (1,)
    assert _next_prefix([(3, 0), (2, 1)]) == (1,)
    assert _next_prefix([(3, 2), (2, 1)]) is None
    assert _next_prefix([(2, 0), (3, 0), (1, 0)]) == (0, 1)


def _fake(decisions):
    """run_once for explore: `decisions` options at each step, recorded as the machine would."""
    seen = []

    def run_once(s):
        for k, n in enumerate(decisions):
            pick = s.prefix[k] if k < len(s.prefix) else 0
            s.choices.append((n, pick))
        seen.append(tuple(c for _, c in s.choices))
    return run_once, seen


def test_every_order_when_it_fits_the_budget():
    run_once, seen = _fake([3, 2])
    info = explore(run_once, budget=8)
    assert info.strategy == "all" and info.tried == 6 and len(set(seen)) == 6
    run_once, seen = _fake([])
    assert explore(run_once, budget=8).text().startswith("1 (no contended atomic")


def test_random_priorities_beyond_the_budget():
    run_once, seen = _fake([5, 4, 3])
    info = explore(run_once, budget=4, seed=3)
    assert info.strategy == "pct" and info.tried == 4 and "seed 3" in info.text()


def test_a_race_in_one_lock_order_only():
    report = analyze(_spec("bug_lock_cas_order"))
    assert report.verdict == FINDINGS
    (f,) = [f for f in report.findings if f.kind == "race"]
    assert f.buffer == "note" and "block (1, 0, 0) thread (0, 0, 0) first at kernel.cu:9" in f.details["schedule"]
    assert report.schedules[0] == "2 (every order of the contended atomics)"
    # lane order alone
    assert analyze(_spec("bug_lock_cas_order"), options=RacesOptions(schedules=1)).verdict == CLEAN_FOR_INPUTS


def test_a_race_in_one_ticket_order_only():
    report = analyze(_spec("bug_lock_ticket_order"), options=RacesOptions(inputs="zeros"))
    assert report.verdict == FINDINGS and "first at kernel.cu:8" in report.findings[0].details["schedule"]
    one = RacesOptions(inputs="zeros", schedules=1)
    assert analyze(_spec("bug_lock_ticket_order"), options=one).verdict == CLEAN_FOR_INPUTS


def test_large_launches_take_seeded_random_schedules():
    a = analyze(_spec("lock_all_threads"), options=RacesOptions(inputs="zeros", schedules=3, schedule_seed=5))
    assert a.verdict == CLEAN_FOR_INPUTS and a.schedules == ["3 (PCT random priorities, seed 5)"]


def test_the_budget_is_the_kernels():
    # 4 input sets: the first may take 2
    report = analyze(_spec("bug_lock_cas_order"), options=RacesOptions(schedules=5))
    tried = [int(s.split()[0]) for s in report.schedules]
    assert sum(tried) <= 5 and all(t >= 1 for t in tried) and tried[0] == 2


def test_schedule_records_choices():
    s = Schedule(prefix=(1,))
    assert s.prefix == (1,) and s.choices == []
