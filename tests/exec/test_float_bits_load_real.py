"""A float's bits read by an integer load and compared as an integer, in volta check over the reals.

`signbit(x)` compiles to `ld.global.u32 %r, [x]; setp.gt.s32 %p, %r, -1`, and `((const int*)x)[i] > 0x3F800000`
to an integer comparison of the loaded bits. Over the reals the loaded register carries the float's value,
and floatbits.compare read it as bits only when a `mov.b32` from a float register had put it there: a loaded
register was compared as the number itself. So signbit(x) was `x > -1` (NOT EQUIVALENT to `x < 0 ? -1 : 1`,
with a counterexample x = -1/2 that is no difference at all), bits(x) > bits(1.0f) was `x > 1065353216`
(proved EQUIVALENT to comparing with 1065353216.0f). Now a register an integer load filled with float data
(scalar or vector loads, and moves of them) is the float's bits (realops.bits_compare); a strict comparison of
the bits stays strict against the constant's value over the reals.
PTX: tests/exec/data/float_bits_load/float_bits_load.sm80.ptx (nvcc 13 from float_bits_load.cu, command in its
header) and to_int.triton.ptx (Triton 3.9 from to_int_triton.py; its .loc lines name the file it was compiled
from, tk2.py).
"""
from __future__ import annotations

from pathlib import Path

from volta.equiv.check import check
from volta.launch.spec import pair_from_options

PTX = Path(__file__).parent / "data" / "float_bits_load" / "float_bits_load.sm80.ptx"


def _check(ref, opt, n=4):
    spec = pair_from_options(str(PTX), str(PTX), [f"x=f32[{n}]:in", f"out=f32[{n}]:out"], grid="1",
                             block=str(n), args=f"x,out,{n}" if ref != "same_bits" else f"x,x,out,{n}", ref={"kernel": ref}, opt={"kernel": opt})
    return check(spec)


def test_signbit_through_an_integer_load_is_the_sign_of_the_value():
    # was NOT EQUIVALENT, "confirmed" at x = -1/2 with signbit read as x > -1
    report = _check("signbit_load", "negative_select")
    assert report.verdict == "equivalent", (report.verdict, report.counterexample, report.unsupported)


def test_a_bit_pattern_range_test_is_the_float_comparison():
    for ref in ("above_one_bits", "above_one_pair"):       # scalar load; vector load and a selp of its halves
        report = _check(ref, "above_one")
        assert report.verdict == "equivalent", (ref, report.verdict, report.counterexample, report.unsupported)
    report = _check("finite_nonnegative_bits", "nonnegative")  # unsigned: 0 <= x < inf
    assert report.verdict == "equivalent", (report.verdict, report.counterexample, report.unsupported)


def test_the_bits_are_not_the_number_they_spell():
    # was EQUIVALENT: bits(x) > 0x3F800000 read as x > 1065353216
    for ref in ("above_one_bits", "above_one_pair"):
        report = _check(ref, "above_one_number")
        assert report.verdict in ("not-equivalent", "unknown"), (ref, report.verdict)


def test_two_floats_bits_compared_with_each_other_are_unsupported():
    report = _check("same_bits", "same_bits")
    assert report.verdict == "unsupported", report.verdict
    where, err = report.unsupported
    assert "setp.eq.s32" in str(err) and "bits of a float" in str(err), str(err)


def test_a_float_conversion_of_a_loaded_register_is_not_bit_arithmetic():
    # Triton loads floats into .b32 registers (`ld.global.b32 { %r1 }`) and converts them there
    # (`cvt.rzi.s32.f32 %r2, %r1`): a float read as a float, not integer arithmetic on its bits
    triton_ptx = PTX.parent / "to_int.triton.ptx"
    spec = pair_from_options(str(triton_ptx), str(PTX), ["x=f32[8]:in", "out=s32[8]:out"], grid="1",
                             ref={"kernel": "to_int", "block": "32", "args": "x,out,8,0,0"},
                             opt={"kernel": "to_int", "block": "8", "args": "x,out,8"})
    report = check(spec)
    assert report.verdict == "equivalent", (report.verdict, report.unsupported)


def test_a_double_bit_pattern_test_is_unsupported():
    # was EQUIVALENT: bits(x) > bits(1.0) on a loaded s64 read as x > 4607182418800017408
    spec = pair_from_options(str(PTX), str(PTX), ["x=f64[4]:in", "out=f64[4]:out"], grid="1", block="4",
                             args="x,out,4", ref={"kernel": "above_one_bits_f64"},
                             opt={"kernel": "above_one_number_f64"})
    report = check(spec)
    assert report.verdict == "unsupported", report.verdict
    where, err = report.unsupported
    assert where == "ref" and "setp.gt.s64" in str(err) and "load filled from float data" in str(err), str(err)


def test_a_loaded_constant_folded_from_data_is_read_as_bits_or_refused():
    # was EQUIVALENT to writing zeros: x * 0 + 2.5f folds to the constant 2.5, compared as the number
    report = _check("folded_fraction_bits", "two")
    assert report.verdict == "equivalent", (report.verdict, report.counterexample, report.unsupported)
    report = _check("folded_integral_bits", "two")   # 2.0f's bits or the int 2: not known from the constant
    assert report.verdict == "unsupported", report.verdict
    assert "setp.gt.s32" in str(report.unsupported[1]) and "constant" in str(report.unsupported[1])


def test_integer_arithmetic_on_a_loaded_fraction_is_unsupported():
    # was NOT EQUIVALENT, with the s32 element "confirmed" as 7/2; on a GPU both write bits(2.5f) + 1
    spec = pair_from_options(str(PTX), str(PTX), ["x=f32[4]:in", "out=s32[4]:out"], grid="1", block="4",
                             args="x,out,4", ref={"kernel": "folded_fraction_plus_one"},
                             opt={"kernel": "bits_of_two_and_a_half_plus_one"})
    report = check(spec)
    assert report.verdict == "unsupported", (report.verdict, report.counterexample)
    assert "add.s32" in str(report.unsupported[1]), report.unsupported


def test_the_bits_of_a_half_pair_compared_as_one_integer_are_unsupported():
    # was compared as the real `f16x2(x[0], x[1]) < 0`, a pair read as one number (UNKNOWN against x[1] >= 0)
    spec = pair_from_options(str(PTX), str(PTX), ["h=f16[8]:in", "out=f32[4]:out"], grid="1", block="4",
                             args="h,out,4", ref={"kernel": "pair_sign_bits"}, opt={"kernel": "pair_sign_bits"})
    report = check(spec)
    assert report.verdict == "unsupported", report.verdict
    assert "two 16-bit floats" in str(report.unsupported[1]), report.unsupported
