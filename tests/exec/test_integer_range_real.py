"""Integer data over the reals (volta/exec/handlers/integer_real.py): a polynomial over the integers stands for its
residue modulo 2^w, so an instruction that reads an integer's number (comparison, min/max, extension, saturation) is
decided only where interval bounds put the operand in its type's range. Each pair below had a wrong verdict:
EQUIVALENT for max(a+1, b+1) vs max(a,b)+1, signed vs unsigned atomicMax, (unsigned)a < 10u vs a < 10, a sign-extended vs zero-extended byte,
(long)(a+b) vs (long)a + b, cvt.s8.s32 into a 32-bit register vs a, saturating vs wrapping float-to-int; NOT EQUIVALENT with impossible witnesses for
max(a, 0) of a byte (a = -1), add.sat.s32 (clamped to [0, 1]) and for a·k·k + a vs a (ref = 4294967297 in an s32 buffer).
PTX: tests/exec/data/integer_range/integer_range.sm80.ptx (nvcc 13 from integer_range.cu, command in its header).
"""
from __future__ import annotations

from pathlib import Path

import pytest

from real_asserts import not_equivalent_replayed  # tests/exec/real_asserts.py
from volta.equiv.check import check
from volta.launch.spec import pair_from_options

PTX = Path(__file__).parent / "data" / "integer_range" / "integer_range.sm80.ptx"


def _spec(ref, opt, a="s32", b=None, out="s32", k=None):
    buffers = [f"a={a}[40]:in", f"out={out}[40]:out"] + ([f"b={b}[40]:in"] if b else [])
    args = "a," + ("b," if b else "") + "out,40" + (f",{k}" if k is not None else "")
    return pair_from_options(str(PTX), str(PTX), buffers, grid="2", block="32", args=args,
                             ref={"kernel": ref}, opt={"kernel": opt})


@pytest.mark.parametrize("ref, opt, a, b, out, where, opcode", [
    ("max_plus_one", "max_then_plus", "s32", "s32", "s32", "ref", "max.s32"),
    ("below_ten_unsigned", "below_ten", "s32", None, "s32", "ref", "setp.lt.u32"),
    ("sext_u8", "zext_u8", "u8", None, "s32", "ref", "ld.global.s8"),
    ("widen_sum", "widen_each", "s32", "s32", "s64", "ref", "cvt.s64.s32"),
    ("cvt_s8_wide", "keep", "s32", None, "s32", "ref", "cvt.s8.s32"),
    ("f2s8_wide", "f2s8_clamped", "f32", None, "s32", "ref", "cvt.rzi.s8.f32"),
    ("f2i_plus_one_max", "f2i_max_plus_one", "f32", None, "s32", "ref", "max.s32"),
])
def test_a_number_read_where_the_data_may_wrap_is_unsupported(ref, opt, a, b, out, where, opcode):
    report = check(_spec(ref, opt, a, b, out))
    assert report.verdict == "unsupported", report.verdict
    role, err = report.unsupported
    assert role == where and opcode in str(err) and ("range" in str(err) or "wider register" in str(err)), str(err)


def test_atomic_max_compares_in_its_own_signedness():
    spec = pair_from_options(str(PTX), str(PTX), ["a=s32[40]:in", "out=s32[1]:inout"], grid="2", block="32",
                             args="a,out,40", ref={"kernel": "atomic_max"}, opt={"kernel": "atomic_max_unsigned"})
    report = check(spec)
    assert report.verdict == "unsupported", report.verdict
    assert report.unsupported[0] == "opt" and "atom.global.max.u32" in str(report.unsupported[1])


def test_numbers_that_fit_their_type_are_decided():
    assert check(_spec("max_plus_one_u8", "max_then_plus_u8", "u8", "u8")).verdict == "equivalent"


def test_witnesses_stay_in_the_dtype():
    """max.s32(a, 0) of a u8 element was NOT EQUIVALENT to a with the witness a[0] = -1."""
    assert check(_spec("u8_plain", "u8_max_zero", a="u8")).verdict == "equivalent"


def test_float_to_int_saturates(tmp_path):
    report = not_equivalent_replayed(_spec("f2i_rz", "f2i_via_s64", a="f32"), tmp_path)
    cex = report.counterexample
    assert cex.ref_value in (2 ** 31 - 1, -2 ** 31) and -2 ** 31 <= cex.opt_value < 2 ** 31


def test_add_sat_clamps_to_the_type(tmp_path):
    report = not_equivalent_replayed(_spec("sum_sat", "sum_plain", b="s32"), tmp_path)
    cex = report.counterexample
    assert cex.ref_value in (2 ** 31 - 1, -2 ** 31) and -2 ** 31 <= cex.opt_value < 2 ** 31
    assert check(_spec("sum_sat_s16", "sum_plain_s16", a="s16", b="s16")).verdict == "equivalent"


def test_witness_values_are_the_stored_integers():
    """a·65536·65536 + a is a modulo 2^32: no witness over the unbounded integers is a witness."""
    report = check(_spec("times_k_squared_plus", "same", k=65536))
    assert report.verdict != "not-equivalent", report.counterexample


@pytest.mark.parametrize("ref, opt, opcode", [("max_packed", "max_whole", "max.s16x2"),
                                              ("add_packed", "add_whole", "add.u16x2")])
def test_packed_16_bit_integers_are_unsupported(ref, opt, opcode):
    """max.s16x2 and add.u16x2 on data were one integer max/sum over the reals: EQUIVALENT to the 32-bit ones."""
    ptx = str(PTX.parent / "packed_int.sm90.ptx")
    spec = pair_from_options(ptx, ptx, ["a=s32[40]:in", "b=s32[40]:in", "out=s32[40]:out"], grid="2", block="32",
                             args="a,b,out,40", ref={"kernel": ref}, opt={"kernel": opt})
    report = check(spec)
    assert report.verdict == "unsupported", report.verdict
    assert report.unsupported[0] == "ref" and opcode in str(report.unsupported[1])


def test_shift_left_by_a_constant_is_a_product(tmp_path):
    """shl.b32 of integer data by a constant (nvcc's a * 4) was UNSUPPORTED; it is a * 2^k modulo 2^32."""
    assert check(_spec("times_four", "four_sums")).verdict == "equivalent"
    report = not_equivalent_replayed(_spec("times_four", "three_sums"), tmp_path)
    assert report.counterexample.ref_value != report.counterexample.opt_value


def test_int_min_seeded_max_is_the_max():
    """max seeded with INT_MIN vs with the first element was NOT EQUIVALENT, witness a[0] = -2147483649."""
    spec = pair_from_options(str(PTX), str(PTX), ["a=s32[16]:in", "out=s32[4]:out"], grid="1", block="4",
                             args="a,out,4", ref={"kernel": "max_from_int_min"}, opt={"kernel": "max_from_first"})
    assert check(spec).verdict == "equivalent"
