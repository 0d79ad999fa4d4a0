"""Float instruction families against hand-computed words, cited to the PTX ISA (§9.7.3 floating point, §9.7.4
setp, §9.7.9.21 cvt; docs/specs ptx.md "Semantics that are easy to get wrong"), and the handler table against
the exact `volta.numerics.scalar` reference on random words (fast numpy paths must be bit-identical)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.semantics.helpers import D, one, op, setp
from volta.numerics import approx as AP
from volta.numerics import convert as CV
from volta.numerics import scalar as S
from volta.semantics import compute as C

ONE, TWO, THREE, HALF = 0x3F800000, 0x40000000, 0x40400000, 0x3F000000
NEG0, QNAN, NEGNAN, INF, NINF, CANON = 0x80000000, 0x7FC00000, 0xFFC00001, 0x7F800000, 0xFF800000, 0x7FFFFFFF
SUB, MINNORM = 0x00000001, 0x00800000


def f32(x: float) -> int:
    return int(np.array([x], np.float32).view(np.uint32)[0])


# ---- setp (§9.7.4.1): ordered compares false on NaN (ne too), unordered true --------------------------------

@pytest.mark.parametrize("cmp,a,b,want", [
    ("eq", QNAN, QNAN, False), ("ne", QNAN, ONE, False), ("neu", QNAN, ONE, True), ("lt", QNAN, ONE, False),
    ("ltu", QNAN, ONE, True), ("geu", ONE, QNAN, True), ("equ", ONE, ONE, True), ("gtu", ONE, TWO, False),
    ("eq", NEG0, 0, True), ("lt", NEG0, 0, False), ("num", ONE, QNAN, False), ("nan", ONE, QNAN, True),
    ("le", NINF, INF, True), ("ne", ONE, TWO, True),
])
def test_setp_ordered_unordered(cmp, a, b, want):
    assert setp(f"setp.{cmp}.f32", a, b) is want


def test_setp_ftz_flushes_operands():
    assert setp("setp.eq.f32", SUB, 0) is False
    assert setp("setp.eq.ftz.f32", SUB, 0) is True


def test_setp_f64_and_f16():
    assert setp("setp.lt.f64", 0xBFF0000000000000, 0) is True  # -1.0 < 0
    assert setp("setp.gtu.f16", 0x7E00, 0x3C00) is True  # NaN
    assert setp("setp.lt.f16", 0x3C00, 0x4000) is True  # 1 < 2


# ---- add/sub/mul/fma: one rounding with the modifier; .ftz, .sat; canonical NaN ------------------------------

def test_add_rounding_modes():
    one_ulp = 0x33800000  # 2^-24: exactly half an ulp of 1.0
    assert one("add.f32", ONE, one_ulp) == ONE  # tie to even
    assert one("add.rp.f32", ONE, one_ulp) == ONE + 1
    assert one("add.rz.f32", ONE, one_ulp) == ONE
    assert one("sub.rm.f32", ONE, ONE) == NEG0  # x - x = -0 under round-toward-minus
    assert one("sub.f32", ONE, ONE) == 0
    assert one("add.rz.f32", 0x7F7FFFFF, 0x7F7FFFFF) == 0x7F7FFFFF  # overflow: RZ keeps max finite
    assert one("add.f32", 0x7F7FFFFF, 0x7F7FFFFF) == INF


def test_nan_results_canonical_and_sat_ftz():
    assert one("add.f32", NEGNAN, ONE) == CANON
    assert one("mul.f32", INF, 0) == CANON
    assert one("add.sat.f32", TWO, ONE) == ONE
    assert one("add.sat.f32", NEG0, 0) == 0 and one("mul.sat.f32", QNAN, ONE) == 0
    assert one("mul.f32", MINNORM, HALF) == 0x00400000  # a subnormal result
    assert one("mul.ftz.f32", MINNORM, HALF) == 0  # .ftz flushes it
    assert one("mul.ftz.f32", 0x80800000, HALF) == NEG0  # sign-preserving
    assert one("add.ftz.f32", SUB, 0) == 0


def test_fma_rounds_once():
    # (1 + 2^-23)(1 - 2^-23) - 1 = -2^-46 exactly; a double-rounding mul-then-add would give 0
    a, b = ONE + 1, 0x3F7FFFFE
    assert one("fma.rn.f32", a, b, 0xBF800000) == f32(-(2.0 ** -46))
    assert one("mul.f32", a, b) == ONE  # the separately rounded product
    assert one("mad.rn.f32", a, b, 0xBF800000) == f32(-(2.0 ** -46))
    assert one("fma.rz.f32", ONE, ONE, 0x33800000) == ONE
    assert one("fma.rp.f32", ONE, ONE, 0x33800000) == ONE + 1


def test_f16x2_lanes_are_independent():
    one_h, two_h = 0x3C00, 0x4000
    assert one("add.f16x2", (two_h << 16) | one_h, (one_h << 16) | one_h) == (0x4200 << 16) | two_h
    assert one("mul.rn.bf16x2", (0x4000 << 16) | 0x3F80, (0x4000 << 16) | 0x4000) == (0x4080 << 16) | 0x4000
    assert one("fma.rn.f16x2", 0x3C003C00, 0x3C003C00, 0x7E000000) == (0x7FFF << 16) | 0x3C00  # NaN hi, 1 lo


# ---- min/max (§9.7.3.10-11): non-NaN operand wins, .NaN propagates, -0 < +0 -------------------------------

def test_min_max():
    assert one("min.f32", QNAN, ONE) == ONE and one("min.f32", ONE, QNAN) == ONE
    assert one("max.f32", QNAN, QNAN) == CANON
    assert one("max.NaN.f32", QNAN, ONE) == CANON
    assert one("min.f32", NEG0, 0) == NEG0 and one("min.f32", 0, NEG0) == NEG0
    assert one("max.f32", NEG0, 0) == 0 and one("max.f32", 0, NEG0) == 0
    assert one("min.ftz.f32", SUB, 0) == 0
    assert one("max.f64", 0x7FF8000000000000, 0x3FF0000000000000) == 0x3FF0000000000000


def test_copysign_operand_order():  # copysign d, a, b: sign of a, magnitude of b (reverse of C)
    assert one("copysign.f32", NEG0, TWO) == 0xC0000000
    assert one("copysign.f32", TWO, 0xC0400000) == THREE
    assert one("copysign.f64", 1 << 63, 0x3FF0000000000000) == 0xBFF0000000000000


def test_abs_neg_bitwise():
    assert one("neg.f32", QNAN) == 0xFFC00000
    assert one("abs.f32", NEGNAN) == 0x7FC00001
    assert one("abs.ftz.f32", 0x80000001) == 0


# ---- div, sqrt, rcp: .rn exact, .approx/.full the documented choice ---------------------------------------

def test_div_sqrt_rcp():
    assert one("div.rn.f32", ONE, THREE) == 0x3EAAAAAB
    assert one("div.rz.f32", ONE, THREE) == 0x3EAAAAAA
    assert one("div.rn.f32", ONE, 0) == INF and one("div.rn.f32", 0, 0) == CANON
    assert one("sqrt.rn.f32", 0x40800000) == TWO
    assert one("sqrt.rn.f32", NEG0) == NEG0 and one("sqrt.rn.f32", 0xBF800000) == CANON
    assert one("rcp.rn.f32", 0x40000000) == HALF
    assert one("rcp.rn.f64", 0x4000000000000000) == 0x3FE0000000000000
    assert one("div.full.f32", ONE, THREE) == AP.approx("div.full", ONE, THREE, fmt="f32")
    assert one("ex2.approx.f32", 0x3F800000) == TWO
    assert one("ex2.approx.ftz.f32", SUB) == ONE
    assert one("lg2.approx.f32", 0) == NINF
    assert one("rsqrt.approx.f32", NEG0) == NINF


# ---- cvt (§9.7.9.21) ---------------------------------------------------------------------------------

def test_cvt_float_to_int_saturates_and_nan_is_zero():
    assert one("cvt.rzi.s32.f32", f32(3e9)) == 0x7FFFFFFF
    assert one("cvt.rzi.s32.f32", f32(-3e9)) == 0x80000000
    assert one("cvt.rzi.u32.f32", f32(-1.5)) == 0
    assert one("cvt.rzi.s32.f32", QNAN) == 0
    assert one("cvt.rni.s32.f32", INF) == 0x7FFFFFFF
    assert one("cvt.rzi.u8.f32", f32(300.0)) == 255
    assert one("cvt.rni.s32.f32", f32(2.5)) == 2 and one("cvt.rni.s32.f32", f32(3.5)) == 4
    assert one("cvt.rmi.s32.f32", f32(-2.5)) == (-3) & 0xFFFFFFFF
    assert one("cvt.rpi.s32.f32", f32(2.1)) == 3
    assert one("cvt.rzi.s64.f64", 0x43E0000000000000) == 0x7FFFFFFFFFFFFFFF  # 2^63 saturates
    assert one("cvt.rzi.u64.f32", f32(1e20)) == 0xFFFFFFFFFFFFFFFF


def test_cvt_packed_operand_order():  # cvt.rn.f16x2.f32 d, a, b: a → upper half, b → lower
    assert one("cvt.rn.f16x2.f32", ONE, TWO) == (0x3C00 << 16) | 0x4000
    assert one("cvt.rn.bf16x2.f32", ONE, TWO) == (0x3F80 << 16) | 0x4000
    assert one("cvt.rn.relu.f16x2.f32", 0xBF800000, TWO) == 0x4000


def test_cvt_tf32_rna():  # cvt.rna.tf32.f32: nearest, ties away, low 13 bits zero
    assert one("cvt.rna.tf32.f32", 0x3F801000) == 0x3F802000  # exactly half: away from zero
    assert one("cvt.rna.tf32.f32", 0xBF801000) == 0xBF802000
    assert one("cvt.rna.tf32.f32", 0x3F800FFF) == 0x3F800000
    assert one("cvt.rna.tf32.f32", 0x3F803000) & 0x1FFF == 0


def test_cvt_float_float():
    assert one("cvt.rn.f16.f32", f32(65520.0)) == 0x7C00  # rounds to inf
    assert one("cvt.rz.f16.f32", f32(65520.0)) == 0x7BFF
    assert one("cvt.rn.bf16.f32", 0x3F808000) == 0x3F80  # tie to even
    assert one("cvt.rn.bf16.f32", 0x3F818000) == 0x3F82
    assert one("cvt.f32.f16", 0x0001) == f32(2.0 ** -24)  # widening is exact, subnormals kept
    assert one("cvt.ftz.f32.f16", 0x0001) == f32(2.0 ** -24)  # .ftz is for f32 values; this is a normal f32
    assert one("cvt.ftz.f32.f32", 0x00000001) == 0
    assert one("cvt.rn.ftz.f16.f32", 0x00000001) == 0
    assert one("cvt.rn.f32.f64", 0x3FF0000010000000) == ONE  # 1 + 2^-24: tie to even
    assert one("cvt.rni.f32.f32", f32(-0.4)) == NEG0
    assert one("cvt.rzi.f32.f32", f32(2.7)) == TWO
    assert one("cvt.rn.sat.f32.f32", f32(1.5)) == ONE
    assert one("cvt.f64.f32", QNAN) == 0x7FFFFFFFFFFFFFFF
    assert one("cvt.rn.satfinite.e4m3x2.f32", f32(1000.0), ONE) == (0x7E << 8) | 0x38


def test_cvt_int_to_float():
    assert one("cvt.rn.f32.s32", 0xFFFFFFFF) == 0xBF800000
    assert one("cvt.rn.f32.u32", 0xFFFFFFFF) == 0x4F800000
    assert one("cvt.rz.f32.u32", 0xFFFFFFFF) == 0x4F7FFFFF
    assert one("cvt.rn.f32.s64", (1 << 62) + 1) == f32(2.0 ** 62)
    assert one("cvt.rp.f32.s64", (1 << 62) + 1) == f32(2.0 ** 62) + 1  # beyond 2^53: the exact path
    assert one("cvt.rn.f64.u64", (1 << 64) - 1) == 0x43F0000000000000
    assert one("cvt.rn.f16.s32", 70000) == 0x7C00


def test_testp_and_slct():
    assert one("testp.notanumber.f32", QNAN) == 1 and one("testp.finite.f32", INF) == 0
    assert one("testp.subnormal.f32", SUB) == 1 and one("testp.normal.f32", SUB) == 0
    assert one("slct.u32.f32", 1, 2, NEG0) == 1 and one("slct.u32.f32", 1, 2, 0xBF800000) == 2
    assert one("slct.u32.s32", 1, 2, 0xFFFFFFFF) == 2


def test_atomic_add_uses_add_semantics():
    d = D("atom.global.add.f32", 3)
    a, b = np.array([ONE], np.uint64), np.array([ONE], np.uint64)
    assert int(C.TABLE["add"](d, a, b)[0]) == TWO


# ---- differential: the handler table against the exact scalar reference on random words ------------------

SPECIAL32 = [0, NEG0, ONE, 0xBF800000, INF, NINF, QNAN, NEGNAN, SUB, 0x80000001, 0x007FFFFF, MINNORM, 0x7F7FFFFF,
             0x33800000, 0x3F7FFFFF]
word32 = st.one_of(st.sampled_from(SPECIAL32), st.integers(0, 0xFFFFFFFF),
                   st.integers(0x3E000000, 0x41000000))  # dense near 1 where cancellation happens
mods = st.sampled_from(["", ".rz", ".rm", ".rp"])
flags = st.sampled_from(["", ".ftz", ".sat", ".ftz.sat"])


def _rnd(m):
    return m.lstrip(".") or "rn"


@settings(max_examples=400, deadline=None)
@given(a=word32, b=word32, c=word32, r=mods, f=flags)
def test_f32_arith_matches_reference(a, b, c, r, f):
    ftz, sat = "ftz" in f, "sat" in f
    rr = r or ".rn"
    assert one(f"add{r}{f}.f32", a, b) == S.add(a, b, "f32", _rnd(r), ftz=ftz, sat=sat)
    assert one(f"sub{r}{f}.f32", a, b) == S.sub(a, b, "f32", _rnd(r), ftz=ftz, sat=sat)
    assert one(f"mul{r}{f}.f32", a, b) == S.mul(a, b, "f32", _rnd(r), ftz=ftz, sat=sat)
    assert one(f"fma{rr}{f}.f32", a, b, c) == S.fma(a, b, c, "f32", _rnd(r), ftz=ftz, sat=sat)
    assert one(f"div{rr}{f}.f32", a, b) == S.div(a, b, "f32", _rnd(r), ftz=ftz, sat=sat)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(a=word32, b=word32, ftz=st.booleans())
def test_f32_compare_minmax_sqrt_match_reference(a, b, ftz):
    fz = ".ftz" if ftz else ""
    for cmp in ("eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"):
        assert setp(f"setp.{cmp}{fz}.f32", a, b) is S.setp(cmp, a, b, "f32", ftz=ftz)
    assert one(f"min{fz}.f32", a, b) == S.fmin(a, b, "f32", ftz=ftz)
    assert one(f"max{fz}.NaN.f32", a, b) == S.fmax(a, b, "f32", ftz=ftz, nan=True)
    assert one(f"sqrt.rn{fz}.f32", a) == S.sqrt(a, "f32", ftz=ftz)
    assert one(f"rcp.rn{fz}.f32", a) == S.rcp(a, "f32", ftz=ftz)
    for fn in ("ex2", "lg2", "sin", "cos", "tanh", "rsqrt"):
        assert one(f"{fn}.approx{fz}.f32", a) == AP.approx(fn, a, fmt="f32", ftz=ftz)


@settings(max_examples=300, deadline=None)
@given(a=word32, r=st.sampled_from(["rni", "rzi", "rmi", "rpi"]), t=st.sampled_from(["s32", "u32", "s64", "s16"]))
def test_cvt_f2i_matches_reference(a, r, t):
    w = int(t[1:])
    assert one(f"cvt.{r}.{t}.f32", a) == CV.f2i(a, "f32", t, r) & ((1 << w) - 1)


@settings(max_examples=300, deadline=None)
@given(a=word32, r=st.sampled_from(["rn", "rz", "rm", "rp"]), dst=st.sampled_from(["f16", "bf16"]))
def test_cvt_f2f_matches_reference(a, r, dst):
    assert one(f"cvt.{r}.{dst}.f32", a) == CV.f2f(a, "f32", dst, r)


@settings(max_examples=300, deadline=None)
@given(v=st.integers(0, (1 << 64) - 1), r=st.sampled_from(["rn", "rz", "rm", "rp"]),
       src=st.sampled_from(["s64", "u64", "s32"]), dst=st.sampled_from(["f32", "f16", "f64"]))
def test_cvt_i2f_matches_reference(v, r, src, dst):
    w = int(src[1:])
    v &= (1 << w) - 1
    assert one(f"cvt.{r}.{dst}.{src}", v) == CV.i2f(v, src, dst, r)


@settings(max_examples=200, deadline=None)
@given(a=st.integers(0, 0xFFFF), b=st.integers(0, 0xFFFF), c=st.integers(0, 0xFFFF), r=mods,
       fmt=st.sampled_from(["f16", "bf16"]))
def test_half_arith_matches_reference(a, b, c, r, fmt):
    rr = r or ".rn"
    assert one(f"add{r}.{fmt}", a, b) == S.add(a, b, fmt, _rnd(r))
    assert one(f"fma{rr}.{fmt}", a, b, c) == S.fma(a, b, c, fmt, _rnd(r))
    assert one(f"min.{fmt}", a, b) == S.fmin(a, b, fmt)
    x2 = op(f"add{r}.{fmt}x2", (a << 16) | b, (b << 16) | c)[0]
    assert x2 == (S.add(a, b, fmt, _rnd(r)) << 16) | S.add(b, c, fmt, _rnd(r))
