"""Argmax by a warp's shuffle tree against a sequential scan (tests/equiv/data/argmax/argmax.cu).

The tree's merge predicate `ov > bv || (ov == bv && oi < bi)` is if-converted into a select between truth
values, which then chooses both the float and the index: `volta check` raised TypeError there (a traceback).
With ties broken toward the larger index in its first step, the tree differs from the scan exactly on ties:
NOT EQUIVALENT with a replayed tie. (The correct tree against the scan is a 64-way nested select per output
that z3 does not decide in its default time: UNKNOWN, nothing claimed; not run here.)"""
from __future__ import annotations

from pathlib import Path

from volta.equiv.check import check
from volta.launch.spec import pair_from_options

PTX = str(Path(__file__).parent / "data" / "argmax" / "argmax.sm80.ptx")


def test_ties_broken_the_other_way_are_found():
    spec = pair_from_options(PTX, PTX, ["x=f32[256]:in", "out=s32[4]:out"], grid="2", block="64", args="x,out,4",
                             ref={"kernel": "argmax_seq", "grid": "2", "block": "2"},
                             opt={"kernel": "argmax_warp_ties"})
    report = check(spec)
    assert report.verdict == "not-equivalent", (report.verdict, report.unsupported)
    cex = report.counterexample
    assert cex.ref_value != cex.opt_value
    row = cex.index * 64
    values = [cex.inputs["x"].get(row + k, 1) for k in range(64)]
    assert values.count(max(values)) > 1   # the witness is a tie
