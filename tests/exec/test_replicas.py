"""Stores of one value from several threads (issue 37 §1): compared over the reals, then in bits.

examples/eq_rowsum_every_thread_stores: every thread of a 4-warp block stores the block's row sum (one word of
shared memory): a benign race over the reals, equal bits. examples/eq_rowsum_bits_per_warp: two warps reduce
the row in opposite orders and both store it: equal over the reals, different words on random inputs. Warps
storing values that differ over the reals stay a RACE (tests/exec/test_same_warp_store.py).
"""
from __future__ import annotations

from pathlib import Path

import pytest

from volta.equiv.check import check
from volta.exec import findings as F
from volta.launch.spec import load_manifest
from volta.session.races import CLEAN, FINDINGS, RacesOptions, analyze

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _spec(case):
    return load_manifest(str(EXAMPLES / case / "manifest.toml"))


def test_every_thread_storing_the_row_sum_is_a_benign_race_over_the_reals():
    report = analyze(_spec("eq_rowsum_every_thread_stores"), "opt")
    assert [f.kind for f in report.findings] == [F.BENIGN_RACE]
    assert report.findings[0].details == {"reals": True} and "over the reals" in report.findings[0].message
    assert report.verdict == FINDINGS
    allowed = RacesOptions(allow_benign_races=True)
    assert analyze(_spec("eq_rowsum_every_thread_stores"), "opt", options=allowed).verdict == CLEAN


def test_check_lists_the_benign_race_and_decides():
    report = check(_spec("eq_rowsum_every_thread_stores"))
    assert report.verdict == "equivalent"
    assert [f.kind for f in report.findings["opt"]] == [F.BENIGN_RACE]


@pytest.mark.parametrize("run", ["races", "check"])
def test_bits_that_differ_name_the_slot_both_words_and_the_input(run):
    spec = _spec("eq_rowsum_bits_per_warp")
    if run == "races":
        found = analyze(spec, "opt").findings
    else:
        report = check(spec)
        assert report.verdict == "equivalent"
        found = report.findings["opt"]
    assert [f.kind for f in found] == [F.NONDET_BITS]   # it replaces the benign race at the same store
    f = found[0]
    a, b = f.details["values"]
    assert a != b and a.startswith("0x") and f.details["inputs"] == "random:0"
    assert f.buffer == "out" and f.offset is not None
    assert {t.thread[0] // 32 for t in f.threads} == {0, 1}   # the two warps

