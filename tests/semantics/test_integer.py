"""Integer instruction families against hand-computed values, each cited to its PTX ISA clause (§9.7.1 integer
arithmetic, §9.7.8 logic and shift, §9.7.9.21 cvt), plus property tests against Python ints on random words."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.semantics.helpers import D, one, op, words
from volta.semantics import compute as C

M32, M64 = (1 << 32) - 1, (1 << 64) - 1


def s(v, w):
    """Two's complement value of the low w bits."""
    v &= (1 << w) - 1
    return v - (1 << w) if v >> (w - 1) else v


# ---- add/sub/mul (§9.7.1.1-3): wraparound at the type's width ---------------------------------------------

def test_add_wraps_at_width():
    assert one("add.u32", M32, 1) == 0
    assert one("add.s16", 0x7FFF, 1) == 0x8000
    assert one("sub.u64", 0, 1) == M64


def test_add_sat_s32_clamps():  # add.sat.s32: "clamps the result to MININT..MAXINT"
    assert one("add.sat.s32", 0x7FFFFFFF, 1) == 0x7FFFFFFF
    assert one("sub.sat.s32", 0x80000000, 1) == 0x80000000


def test_mul_lo_hi_wide_32():  # mul{.hi,.lo,.wide}: .wide gives the whole 2n-bit product
    assert one("mul.lo.u32", 0x10000, 0x10000) == 0
    assert one("mul.hi.u32", 0x10000, 0x10000) == 1
    assert one("mul.wide.u32", M32, M32) == (M32 * M32)
    assert one("mul.wide.s32", -3, 5) == (-15) & M64
    assert one("mul.hi.s32", -1, 1) == M32  # -1 * 1 = -1: high word all ones
    assert one("mul.wide.s16", -2, 3) == (-6) & M32


def test_mul_64_hi_and_lo():
    assert one("mul.lo.u64", M64, M64) == 1
    assert one("mul.hi.u64", M64, M64) == M64 - 1  # (2^64-1)^2 = 2^128 - 2^65 + 1
    assert one("mul.hi.s64", -1, -1) == 0  # (-1)(-1) = 1
    assert one("mul.hi.s64", 1 << 63, 2) == M64  # -2^63 * 2 = -2^64 → high word -1
    assert one("mul.lo.s64", -3, 7) == (-21) & M64


def test_mad_forms():
    assert one("mad.lo.s32", 3, 4, 5) == 17
    assert one("mad.wide.u32", M32, 2, 1) == 2 * M32 + 1
    assert one("mad.hi.u32", 0x80000000, 4, 1) == 3


# ---- div/rem (§9.7.1.7-8): truncation toward zero, remainder has the dividend's sign -------------------

def test_div_rem_signed_truncate():
    assert s(one("div.s32", -7, 2), 32) == -3
    assert s(one("rem.s32", -7, 2), 32) == -1
    assert s(one("rem.s32", 7, -2), 32) == 1
    assert s(one("div.s64", -(1 << 63), -1), 64) == -(1 << 63)  # overflow wraps


def test_div_by_zero_is_reported_and_gives_hardware_value():
    assert one("div.u32", 5, 0) == M32
    assert one("rem.u32", 5, 0) == 5
    # the lanes the executor reports: a zero divisor in the instruction's width (a u32's upper bits do not count)
    assert C.zero_divisors(D("div.u32"), words(0, 3, 1 << 32)).tolist() == [True, False, True]
    assert C.zero_divisors(D("rem.s64"), words(0, 1 << 32)).tolist() == [True, False]
    assert C.zero_divisors(D("div.rn.f32"), words(0)) is None


# ---- shifts (§9.7.8.7-8): amounts clamp to the width; shr.s fills with the sign ---------------------------

def test_shift_clamping():
    assert one("shl.b32", 1, 40) == 0  # ptx.md: `shl.b32 x, 40` = 0
    assert one("shl.b32", 1, 31) == 0x80000000
    assert one("shr.u32", 0x80000000, 40) == 0
    assert one("shr.s32", 0x80000000, 40) == M32  # sign fill
    assert one("shr.s32", 0x80000000, 4) == 0xF8000000
    assert one("shr.s16", 0x8000, 100) == 0xFFFF
    assert one("shl.b64", 1, 64) == 0
    assert one("shl.b32", 1, 0xFFFFFFFF) == 0  # amount is unsigned


def test_shf_funnel():  # shf.{l,r}.{clamp,wrap}: shift of the 64-bit b:a
    assert one("shf.l.wrap.b32", 0x80000000, 0x1, 1) == 0x3
    assert one("shf.l.wrap.b32", 0x80000000, 0x1, 33) == 0x3  # wrap: n mod 32
    assert one("shf.l.clamp.b32", 0xAAAA, 0x5555, 40) == 0xAAAA  # clamp to 32: d = a
    assert one("shf.r.clamp.b32", 0xAAAA, 0x5555, 40) == 0x5555  # clamp: d = b
    assert one("shf.r.wrap.b32", 0x1, 0x1, 1) == 0x80000000


# ---- bit field ops (§9.7.1.17-21) ----------------------------------------------------------------------

def test_bfe():
    assert one("bfe.u32", 0xABCD1234, 8, 8) == 0x12
    assert one("bfe.s32", 0x0000F000, 12, 4) == M32  # the field's msb 1 fills upward
    assert one("bfe.s32", 0x00007000, 12, 4) == 0x7
    assert one("bfe.u32", 0xFFFFFFFF, 28, 8) == 0xF  # bits past the msb are 0 for .u
    assert one("bfe.s32", 0x80000000, 28, 8) == 0xFFFFFFF8  # …and sbit = a[msb] fills them for .s
    assert one("bfe.u32", 0xFFFFFFFF, 40, 8) == 0
    assert one("bfe.s32", 0xFFFFFFFF, 4, 0) == 0  # len 0 → 0
    assert one("bfe.u64", 1 << 63, 63, 1) == 1


def test_bfi():
    assert one("bfi.b32", 0xF, 0xFFFF0000, 4, 4) == 0xFFFF00F0
    assert one("bfi.b32", 0xFF, 0, 28, 8) == 0xF0000000  # bits past the msb are dropped
    assert one("bfi.b32", 0xFF, 0x1234, 32, 8) == 0x1234  # pos ≥ 32: b unchanged
    assert one("bfi.b64", 1, 0, 63, 1) == 1 << 63


def test_popc_clz_brev_bfind():
    assert one("popc.b32", 0xF0F0F0F0) == 16
    assert one("popc.b64", M64) == 64
    assert one("clz.b32", 0) == 32
    assert one("clz.b32", 1) == 31
    assert one("clz.b64", 1 << 40) == 23
    assert one("brev.b32", 1) == 0x80000000
    assert one("brev.b64", 0x3) == 0xC000000000000000
    assert one("bfind.u32", 0) == 0xFFFFFFFF
    assert one("bfind.u32", 0x00010000) == 16
    assert one("bfind.shiftamt.u32", 0x00010000) == 15
    assert one("bfind.s32", 0xFFFFFFFF) == 0xFFFFFFFF  # -1: no non-sign bit
    assert one("bfind.s32", 0xFFFF0000) == 15  # most significant 0 below the sign run


# ---- prmt (§9.7.8.x): byte permute with sign replication ---------------------------------------------

def test_prmt_default_and_modes():
    a, b = 0x33221100, 0x77665544
    assert one("prmt.b32", a, b, 0x3210) == a
    assert one("prmt.b32", a, b, 0x7654) == b
    assert one("prmt.b32", a, b, 0x0123) == 0x00112233
    assert one("prmt.b32", 0x80, 0, 0x8880) == 0xFFFFFF80  # bit 3 of a selector replicates the byte's sign
    assert one("prmt.b32.f4e", a, b, 1) == 0x44332211
    assert one("prmt.b32.b4e", a, b, 0) == 0x55667700  # b4e, c=0: bytes 5 6 7 0
    assert one("prmt.b32.rc8", a, b, 2) == 0x22222222
    assert one("prmt.b32.ecl", a, b, 1) == 0x33221111
    assert one("prmt.b32.ecr", a, b, 2) == 0x22221100
    assert one("prmt.b32.rc16", a, b, 1) == 0x33223322


def test_lop3_truth_tables():  # immLut: a = 0xF0, b = 0xCC, c = 0xAA
    a, b, c = 0xF0F0F0F0, 0xCCCCCCCC, 0xAAAAAAAA
    assert one("lop3.b32", a, b, c, 0xF0 & 0xCC) == a & b
    assert one("lop3.b32", a, b, c, 0xF0 ^ 0xCC ^ 0xAA) == a ^ b ^ c
    assert one("lop3.b32", 0x12345678, 0x0F0F0F0F, 0xFFFF0000, (0xF0 & 0xCC) | 0xAA) == (0x12345678 & 0x0F0F0F0F) | 0xFFFF0000
    assert op("lop3.b32", [1, 1], [1, 1], [0, 0], [0x80, 0xFE]) == [0, 1]  # per-lane LUTs


# ---- cvt between integers (§9.7.9.21): sign-extend, truncate, .sat clamps ---------------------------------

def test_cvt_int():
    assert one("cvt.s32.s8", 0x80) == 0xFFFFFF80
    assert one("cvt.u32.u8", 0x180) == 0x80
    assert one("cvt.u16.u32", 0x12345678) == 0x5678
    assert one("cvt.s64.s32", 0xFFFFFFFF) == M64
    assert one("cvt.u64.u32", 0xFFFFFFFF) == M32
    assert one("cvt.sat.u8.s32", (-5) & M32) == 0
    assert one("cvt.sat.s8.s32", 300) == 127
    assert one("cvt.sat.u32.s64", (-1) & M64) == 0
    assert one("cvt.sat.s32.u32", M32) == 0x7FFFFFFF
    assert one("cvt.sat.u64.s64", (-1) & M64) == 0


def test_min_max_signedness():
    assert one("min.s32", M32, 1) == M32  # -1 < 1
    assert one("min.u32", M32, 1) == 1
    assert one("max.s64", 1 << 63, 0) == 0


def test_sad_and_mul24():
    assert one("sad.u32", 3, 10, 100) == 107
    assert one("sad.s32", (-3) & M32, 4, 0) == 7
    assert one("mul24.lo.u32", 0x01000003, 2) == 6  # only the low 24 bits take part
    assert one("mul24.hi.u32", 0xFFFFFF, 0xFFFFFF) == ((0xFFFFFF * 0xFFFFFF) >> 16) & M32


# ---- property tests: every width against Python ints ----------------------------------------------------

WIDTHS = (16, 32, 64)
word64 = st.integers(0, M64)


@settings(max_examples=300, deadline=None)
@given(w=st.sampled_from(WIDTHS), a=word64, b=word64)
def test_arith_matches_python(w, a, b):
    m = (1 << w) - 1
    a, b = a & m, b & m
    assert one(f"add.u{w}", a, b) == (a + b) & m
    assert one(f"sub.s{w}", a, b) == (a - b) & m
    assert one(f"mul.lo.u{w}", a, b) == (a * b) & m
    assert one(f"mul.hi.u{w}", a, b) == (a * b) >> w
    assert one(f"mul.hi.s{w}", a, b) == ((s(a, w) * s(b, w)) >> w) & m
    if w < 64:
        assert one(f"mul.wide.s{w}", a, b) == (s(a, w) * s(b, w)) & ((1 << 2 * w) - 1)
    if b:
        assert one(f"div.u{w}", a, b) == a // b
        assert one(f"rem.u{w}", a, b) == a % b
        q = abs(s(a, w)) // abs(s(b, w)) * (1 if (s(a, w) < 0) == (s(b, w) < 0) else -1)
        assert one(f"div.s{w}", a, b) == q & m
        assert one(f"rem.s{w}", a, b) == (s(a, w) - q * s(b, w)) & m


@settings(max_examples=300, deadline=None)
@given(w=st.sampled_from((32, 64)), a=word64, n=st.integers(0, 200))
def test_shifts_and_bits_match_python(w, a, n):
    m = (1 << w) - 1
    a &= m
    assert one(f"shl.b{w}", a, n) == (a << min(n, w)) & m
    assert one(f"shr.u{w}", a, n) == a >> min(n, w)
    assert one(f"shr.s{w}", a, n) == (s(a, w) >> min(n, w)) & m
    assert one(f"popc.b{w}", a) == bin(a).count("1")
    assert one(f"clz.b{w}", a) == w - a.bit_length()
    assert one(f"brev.b{w}", a) == int(format(a, f"0{w}b")[::-1], 2)


@settings(max_examples=300, deadline=None)
@given(a=st.integers(0, M32), b=st.integers(0, M32), pos=st.integers(0, 255), ln=st.integers(0, 255))
def test_bfe_bfi_match_reference(a, b, pos, ln):
    bits = [(a >> i) & 1 for i in range(32)]
    sbit = 0 if ln == 0 else bits[min(pos + ln - 1, 31)]
    want_s = sum((bits[pos + i] if (i < ln and pos + i <= 31) else sbit) << i for i in range(32))
    want_u = sum((bits[pos + i] if (i < ln and pos + i <= 31) else 0) << i for i in range(32))
    assert one("bfe.s32", a, pos, ln) == want_s
    assert one("bfe.u32", a, pos, ln) == want_u
    f = b
    for i in range(ln):
        if pos + i > 31:
            break
        f = (f & ~(1 << (pos + i))) | (((a >> i) & 1) << (pos + i))
    assert one("bfi.b32", a, b, pos, ln) == f & M32


def test_decoded_helper_reads_modifiers():
    d = D("mul.wide.s32")
    assert d.op == "mul" and d.has(".wide") and d.types == (".s32",)
