"""Float-to-float `cvt` with `.relu` or `.satfinite` in volta check over the reals.

A conversion between float types is the identity over the reals (rounding is not followed), and the scalar cvt
path ignored its clamping modifiers: `cvt.rn.relu.f16.f32` then back to f32 was proved EQUIVALENT to a copy,
and NOT EQUIVALENT to fmaxf(x, 0) with a "confirmed" counterexample x = -1 whose value (-1) no GPU produces;
`cvt.rn.satfinite.f16.f32` was the identity for values beyond 65504. Now `.relu` is max(v, 0) and `.satfinite`
clamps to the destination's largest finite value (realops.clamped_conversion), in the per-lane and the
lane-structured paths alike.
PTX: tests/exec/data/cvt_clamp/cvt_clamp.sm90.ptx (nvcc 13 from cvt_clamp.cu, command in its header).
"""
from __future__ import annotations

from pathlib import Path

from volta.equiv.check import check
from volta.launch.spec import pair_from_options

PTX = Path(__file__).parent / "data" / "cvt_clamp" / "cvt_clamp.sm90.ptx"


def _check(ref, opt):
    spec = pair_from_options(str(PTX), str(PTX), ["x=f32[4]:in", "out=f32[4]:out"], grid="1", block="4",
                             args="x,out,4", ref={"kernel": ref}, opt={"kernel": opt})
    return check(spec)


def test_relu_conversion_is_not_the_identity():
    for ref in ("relu_f16", "relu_bf16"):
        report = _check(ref, "copy")   # was EQUIVALENT
        assert report.verdict == "not-equivalent", (ref, report.verdict)
        cex = report.counterexample
        x = cex.inputs["x"][cex.index]
        assert x < 0 and cex.ref_value == 0 and cex.opt_value == x, cex


def test_relu_conversion_is_relu():
    for ref in ("relu_f16", "relu_bf16"):
        report = _check(ref, "relu")   # was NOT EQUIVALENT, with ref = x at a negative x
        assert report.verdict == "equivalent", (ref, report.verdict, report.counterexample)


def test_satfinite_conversion_clamps_to_the_largest_half():
    report = _check("satfinite_f16", "clamp_f16")
    assert report.verdict == "equivalent", (report.verdict, report.counterexample)
    for opt in ("copy", "round_trip_f16"):   # was EQUIVALENT: 70000 converts to 65504, not to 70000 or inf
        report = _check("satfinite_f16", opt)
        assert report.verdict == "not-equivalent", (opt, report.verdict)
        cex = report.counterexample
        assert abs(cex.inputs["x"][cex.index]) > 65504 and abs(cex.ref_value) == 65504, cex
