"""Spot checks of PTX clauses: min/max, copysign order, setp, cvt saturation and packing, .sat, .ftz, .approx."""
from __future__ import annotations

import numpy as np
import pytest

from volta.numerics import approx, convert, lanes, scalar
from volta.numerics.formats import FORMATS, decode, encode

ONE, TWO, NEG0, NAN, INF = 0x3F800000, 0x40000000, 0x80000000, 0x7FC00000, 0x7F800000
SUB = 0x00000001  # smallest f32 subnormal


def test_min_max_rules():
    assert scalar.fmin(NEG0, 0, "f32") == NEG0 and scalar.fmin(0, NEG0, "f32") == NEG0
    assert scalar.fmax(NEG0, 0, "f32") == 0
    assert scalar.fmin(NAN, ONE, "f32") == ONE and scalar.fmax(ONE, NAN, "f32") == ONE
    assert scalar.fmin(NAN, ONE, "f32", nan=True) == 0x7FFFFFFF
    assert scalar.fmax(NAN, NAN, "f32") == 0x7FFFFFFF


def test_copysign_takes_sign_of_first_operand():
    assert scalar.copysign(NEG0, TWO, "f32") == 0xC0000000
    assert int(lanes.copysign(np.array([NEG0]), np.array([TWO]), "f32")[0]) == 0xC0000000


@pytest.mark.parametrize("op,a,b,want", [
    ("eq", NEG0, 0, True), ("ne", NAN, ONE, False), ("neu", NAN, ONE, True), ("lt", NAN, ONE, False),
    ("ltu", NAN, ONE, True), ("ge", TWO, ONE, True), ("num", ONE, NAN, False), ("nan", ONE, NAN, True),
    ("le", ONE, ONE, True), ("gtu", ONE, TWO, False),
])
def test_setp(op, a, b, want):
    assert scalar.setp(op, a, b, "f32") is want
    assert bool(lanes.setp(op, np.array([a]), np.array([b]), "f32")[0]) is want


def test_nan_results_are_canonical():
    assert scalar.add(0xFFC00001, ONE, "f32") == 0x7FFFFFFF
    assert scalar.mul(INF, 0, "f32") == 0x7FFFFFFF
    assert scalar.add(0x7E01, 0x3C00, "f16") == 0x7FFF
    assert scalar.add(0x7FF0000000000001, 0, "f64") == 0x7FFFFFFFFFFFFFFF
    assert int(lanes.add(np.array([INF]), np.array([0xFF800000]), "f32")[0]) == 0x7FFFFFFF


def test_sat_and_ftz():
    assert scalar.add(TWO, ONE, "f32", sat=True) == ONE
    assert scalar.mul(NEG0, ONE, "f32", sat=True) == 0
    assert scalar.add(NAN, ONE, "f32", sat=True) == 0
    assert scalar.add(SUB, 0, "f32") == SUB
    assert scalar.add(SUB, 0, "f32", ftz=True) == 0
    assert scalar.mul(0x80800000, 0x3F000000, "f32", ftz=True) == NEG0  # -2^-127 flushes to -0


def test_overflow_by_mode():
    big = 0x7F7FFFFF
    assert scalar.add(big, big, "f32", "rn") == INF
    assert scalar.add(big, big, "f32", "rz") == big
    assert scalar.add(big | NEG0, big | NEG0, "f32", "rp") == big | NEG0
    assert scalar.add(big | NEG0, big | NEG0, "f32", "rm") == 0xFF800000


def test_div_sqrt_rcp():
    assert scalar.div(ONE, 0x40400000, "f32") == 0x3EAAAAAB
    assert scalar.div(ONE, 0, "f32") == INF and scalar.div(0, 0, "f32") == 0x7FFFFFFF
    assert scalar.sqrt(TWO, "f32") == 0x3FB504F3 and scalar.sqrt(NEG0, "f32") == NEG0
    assert scalar.sqrt(0xBF800000, "f32") == 0x7FFFFFFF
    assert scalar.rcp(NEG0, "f32") == 0xFF800000
    assert scalar.sqrt(0x4000000000000000, "f64") == 0x3FF6A09E667F3BCD


def test_cvt_float_to_int():
    f = lambda x: int(np.float32(x).view(np.uint32))  # noqa: E731
    assert convert.f2i(f(2.5), "f32", "s32", "rni") == 2
    assert convert.f2i(f(3.5), "f32", "s32", "rni") == 4
    assert convert.f2i(f(-2.5), "f32", "s32", "rmi") == -3
    assert convert.f2i(f(-2.5), "f32", "s32", "rpi") == -2
    assert convert.f2i(f(1e10), "f32", "s32", "rzi") == 2**31 - 1
    assert convert.f2i(f(-1.0), "f32", "u32", "rzi") == 0
    assert convert.f2i(NAN, "f32", "s64", "rni") == 0
    assert convert.f2i(0xFF800000, "f32", "s16", "rni") == -(2**15)


def test_cvt_int_to_float_and_integral():
    assert convert.i2f(0xFFFFFFFF, "s32", "f32") == 0xBF800000
    assert convert.i2f(0xFFFFFFFF, "u32", "f32") == 0x4F800000
    assert convert.i2f(0xFFFFFFFF, "u32", "f32", "rz") == 0x4F7FFFFF
    assert convert.round_integral(0xBE99999A, "f32", "rni") == NEG0  # -0.3 -> -0
    assert convert.round_integral(0x3FC00000, "f32", "rpi") == TWO


def test_cvt_float_to_float():
    assert convert.pack_x2(ONE, TWO, "f32", "f16") == 0x3C004000  # a in the upper half
    assert convert.f2f(0x477FF000, "f32", "f16", "rn") == 0x7C00  # 65520 -> inf
    assert convert.f2f(0x477FF000, "f32", "f16", "rz") == 0x7BFF
    assert convert.f2f(0x3F801000, "f32", "tf32", "rna") == 0x3F802000
    assert convert.f2f(INF, "f32", "e4m3", satfinite=True) == 0x7E
    assert convert.f2f(NAN, "f32", "e4m3", satfinite=True) == 0x7F
    assert convert.f2f(0x44800000, "f32", "e5m2", satfinite=True) == 0x64  # 1024
    assert convert.f2f(0x447A0000, "f32", "e4m3", satfinite=True) == 0x7E  # 1000 -> 448


def test_formats_and_encode():
    assert FORMATS["e4m3"].max_finite == 448 and FORMATS["e5m2"].max_finite == 57344
    assert FORMATS["e2m1"].max_finite == 6 and FORMATS["e3m2"].max_finite == 28
    assert decode(0x7F, "e4m3") != decode(0x7F, "e4m3")  # NaN
    assert encode(-0.0, "f32") == NEG0 and encode(float("inf"), "e2m1") == 0x7
    assert encode(1, "tf32") == ONE


def test_packed_x2_lanes():
    a = 0x3C00_4000  # hi 1.0, lo 2.0
    assert scalar.packed_x2(scalar.add, a, a, fmt="f16") == 0x4000_4400


def test_approx_choice_is_documented_and_flagged():
    assert {"ex2", "lg2", "rcp", "rsqrt", "sin", "cos", "tanh", "div"} <= approx.APPROX_OPS
    assert approx.approx("ex2", ONE) == TWO
    assert approx.approx("lg2", 0) == 0xFF800000
    assert approx.approx("rsqrt", 0x40800000) == 0x3F000000
    assert approx.approx("tanh", INF) == ONE
    assert approx.approx("ex2", SUB, ftz=True) == ONE
    assert approx.approx("div", ONE, TWO) == 0x3F000000
    assert approx.approx("ex2", 0x3C00, fmt="f16") == 0x4000


def test_f64_lanes_fast_path():
    a = np.array([0x3FF0000000000000, 0x7FF8000000000001], dtype=np.uint64)
    b = np.array([0x3CA0000000000000, 0], dtype=np.uint64)
    assert [int(x) for x in lanes.add(a, b, "f64")] == [0x3FF0000000000000, 0x7FFFFFFFFFFFFFFF]
    assert int(lanes.fma(a[:1], a[:1], b[:1], "f64")[0]) == scalar.fma(int(a[0]), int(a[0]), int(b[0]), "f64")
