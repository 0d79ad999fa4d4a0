"""Scalar PTX floating-point instructions on words, bit-exact, by exact arithmetic and one rounding.

PTX ISA "Floating-Point Instructions" and "Half Precision Floating-Point Instructions": add, sub, mul, fma
(one rounding), div.rn, sqrt.rn, rcp.rn, min/max (non-NaN operand wins; `.NaN` propagates; -0 < +0), abs, neg,
copysign, setp. A NaN result is the format's canonical NaN, as NVIDIA hardware writes it. `.ftz` flushes subnormal
operands and results to zeros of the same sign; `.sat` clamps to [+0, 1] with NaN → +0.
Each function takes and returns unsigned words; `fmt` is a Format or its name.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from volta.errors import UsageError
from volta.numerics.formats import (Format, Rnd, as_rnd, exact_value, flush_input, get_format, round_ratio,
                                    unpack)


@dataclass(frozen=True)
class Num:
    """An operand as exact arithmetic sees it: NaN, ±inf or a signed exact value (zero keeps its sign)."""

    kind: str  # "num", "inf", "nan"
    neg: bool
    mag: Fraction = Fraction(0)


def read(word: int, fmt: Format, ftz: bool = False) -> Num:
    if ftz:
        word = flush_input(word, fmt)
    u = unpack(word, fmt)
    if u.kind != "num":
        return Num(u.kind, u.neg)
    return Num("num", u.neg, exact_value(u, fmt))


def write(x: Num, fmt: Format, rnd: Rnd, ftz: bool = False, sat: bool = False) -> int:
    """Round an exact result to a word with the output modifiers."""
    if x.kind == "nan":
        return 0 if sat else fmt.canonical_nan
    if sat:
        if x.neg or (x.kind == "num" and x.mag == 0):
            return 0
        if x.kind == "inf" or x.mag >= 1:
            return round_ratio(False, 1, 1, fmt, rnd)
    if x.kind == "inf":
        return (fmt.sign_bit if x.neg else 0) | fmt.inf_word if fmt.has_inf else fmt.canonical_nan
    m = x.mag
    return round_ratio(x.neg, m.numerator, m.denominator, fmt, rnd, ftz=ftz)


NAN = Num("nan", False)


def _signed(x: Num) -> Fraction:
    return -x.mag if x.neg else x.mag


def _from_signed(v: Fraction, zero_neg: bool) -> Num:
    return Num("num", zero_neg if v == 0 else v < 0, abs(v))


def _zero_sum_sign(a_neg: bool, b_neg: bool, rnd: Rnd) -> bool:
    """IEEE 754 §6.3: an exact zero sum is -0 only for (-0)+(-0), or under round-toward-minus."""
    return (a_neg and b_neg) or (rnd is Rnd.RM)


def add_exact(a: Num, b: Num, rnd: Rnd) -> Num:
    if a.kind == "nan" or b.kind == "nan":
        return NAN
    if a.kind == "inf" or b.kind == "inf":
        if a.kind == "inf" and b.kind == "inf" and a.neg != b.neg:
            return NAN
        return a if a.kind == "inf" else b
    if a.mag == 0 and b.mag == 0:
        return Num("num", (a.neg and b.neg) or (rnd is Rnd.RM and a.neg != b.neg))
    return _from_signed(_signed(a) + _signed(b), rnd is Rnd.RM)


def mul_exact(a: Num, b: Num) -> Num:
    if a.kind == "nan" or b.kind == "nan":
        return NAN
    neg = a.neg != b.neg
    if a.kind == "inf" or b.kind == "inf":
        if (a.kind == "num" and a.mag == 0) or (b.kind == "num" and b.mag == 0):
            return NAN
        return Num("inf", neg)
    return Num("num", neg, a.mag * b.mag)


def _neg(x: Num) -> Num:
    return Num(x.kind, not x.neg, x.mag)


def _binary(fn):
    """Lift an exact two-operand rule to words with rounding and modifiers."""

    def op(a: int, b: int, fmt, rnd: Rnd | str = Rnd.RN, *, ftz: bool = False, sat: bool = False) -> int:
        fmt, rnd = get_format(fmt), as_rnd(rnd)
        return write(fn(read(a, fmt, ftz), read(b, fmt, ftz), rnd), fmt, rnd, ftz, sat)

    op.__name__, op.__doc__ = fn.__name__, fn.__doc__
    return op


@_binary
def add(a: Num, b: Num, rnd: Rnd) -> Num:
    """add{.rnd}{.ftz}{.sat}: a + b, one rounding."""
    return add_exact(a, b, rnd)


@_binary
def sub(a: Num, b: Num, rnd: Rnd) -> Num:
    """sub{.rnd}{.ftz}{.sat}: a - b = a + (-b), one rounding."""
    return add_exact(a, _neg(b), rnd)


@_binary
def mul(a: Num, b: Num, rnd: Rnd) -> Num:
    """mul{.rnd}{.ftz}{.sat}: a · b, one rounding."""
    return mul_exact(a, b)


@_binary
def div(a: Num, b: Num, rnd: Rnd) -> Num:
    """div.{rn,rz,rm,rp}: IEEE division, one rounding (div.approx/.full live in `approx`)."""
    if a.kind == "nan" or b.kind == "nan":
        return NAN
    neg = a.neg != b.neg
    if a.kind == "inf":
        return NAN if b.kind == "inf" else Num("inf", neg)
    if b.kind == "inf":
        return Num("num", neg)
    if b.mag == 0:
        return NAN if a.mag == 0 else Num("inf", neg)
    return Num("num", neg, a.mag / b.mag)


def fma(a: int, b: int, c: int, fmt, rnd: Rnd | str = Rnd.RN, *, ftz: bool = False, sat: bool = False) -> int:
    """fma{.rnd}{.ftz}{.sat} (mad.rnd for f32/f64 is the same): a·b + c with one rounding."""
    fmt, rnd = get_format(fmt), as_rnd(rnd)
    p = mul_exact(read(a, fmt, ftz), read(b, fmt, ftz))
    return write(add_exact(p, read(c, fmt, ftz), rnd), fmt, rnd, ftz, sat)


def _sqrt_exact(v: Fraction, fmt: Format) -> Fraction:
    """A value with the same rounding as sqrt(v) at `fmt`'s precision: exact, or exact to a sticky bit."""
    e = math.floor(math.log2(v.numerator) - math.log2(v.denominator)) if v else 0
    k = fmt.man_bits + 4 - e // 2
    scaled = v * Fraction(4) ** k
    r = math.isqrt(scaled.numerator // scaled.denominator)
    if Fraction(r * r) == scaled:
        return Fraction(r) / Fraction(2) ** k
    return Fraction(2 * r + 1) / Fraction(2) ** (k + 1)


def sqrt(a: int, fmt, rnd: Rnd | str = Rnd.RN, *, ftz: bool = False) -> int:
    """sqrt.{rn,rz,rm,rp}: correctly rounded square root; sqrt(-0) = -0, negative → NaN."""
    fmt, rnd = get_format(fmt), as_rnd(rnd)
    x = read(a, fmt, ftz)
    if x.kind == "nan" or (x.neg and not (x.kind == "num" and x.mag == 0)):
        return fmt.canonical_nan
    if x.kind == "inf" or x.mag == 0:
        return write(x, fmt, rnd, ftz)
    return write(Num("num", False, _sqrt_exact(x.mag, fmt)), fmt, rnd, ftz)


def rcp(a: int, fmt, rnd: Rnd | str = Rnd.RN, *, ftz: bool = False) -> int:
    """rcp.{rn,rz,rm,rp}: correctly rounded 1/a (rcp.approx lives in `approx`)."""
    fmt = get_format(fmt)
    return div(round_ratio(False, 1, 1, fmt), a, fmt, rnd, ftz=ftz)


def _order_key(x: Num) -> tuple:
    """Total order for min/max of non-NaN operands with -0 below +0."""
    if x.kind == "inf":
        return (-1 if x.neg else 1, 0, 0)
    return (0, -x.mag if x.neg else x.mag, 0 if x.neg else 1)


def _minmax(pick_max: bool, a: int, b: int, fmt, *, ftz: bool = False, nan: bool = False) -> int:
    fmt = get_format(fmt)
    x, y = read(a, fmt, ftz), read(b, fmt, ftz)
    if x.kind == "nan" or y.kind == "nan":
        if nan or (x.kind == "nan" and y.kind == "nan"):
            return fmt.canonical_nan
        keep = y if x.kind == "nan" else x
        return write(keep, fmt, Rnd.RN)
    lo, hi = sorted((x, y), key=_order_key)
    return write(hi if pick_max else lo, fmt, Rnd.RN)


def fmin(a: int, b: int, fmt, *, ftz: bool = False, nan: bool = False) -> int:
    """min{.ftz}{.NaN}: the non-NaN operand wins unless `.NaN`; min(-0, +0) = -0."""
    return _minmax(False, a, b, fmt, ftz=ftz, nan=nan)


def fmax(a: int, b: int, fmt, *, ftz: bool = False, nan: bool = False) -> int:
    """max{.ftz}{.NaN}: the non-NaN operand wins unless `.NaN`; max(-0, +0) = +0."""
    return _minmax(True, a, b, fmt, ftz=ftz, nan=nan)


def fabs(a: int, fmt, *, ftz: bool = False) -> int:
    """abs{.ftz}: clears the sign bit (a NaN stays that NaN with sign cleared: a bit operation on hardware)."""
    fmt = get_format(fmt)
    return (flush_input(a, fmt) if ftz else a) & ~fmt.sign_bit & fmt.word_mask


def fneg(a: int, fmt, *, ftz: bool = False) -> int:
    """neg{.ftz}: flips the sign bit, NaN included (documented choice: hardware negation is a bit flip)."""
    fmt = get_format(fmt)
    return (flush_input(a, fmt) if ftz else a) ^ fmt.sign_bit


def copysign(a: int, b: int, fmt) -> int:
    """copysign d, a, b: the sign of a with the magnitude of b (PTX order, the reverse of C's)."""
    fmt = get_format(fmt)
    return (a & fmt.sign_bit) | (b & ~fmt.sign_bit & fmt.word_mask)


# ---------------------------------------------------------------------------------------------- setp

ORDERED = {"eq": lambda c: c == 0, "ne": lambda c: c != 0, "lt": lambda c: c < 0, "le": lambda c: c <= 0,
           "gt": lambda c: c > 0, "ge": lambda c: c >= 0}
UNORDERED = {op + "u": fn for op, fn in ORDERED.items()}
SETP_OPS = frozenset(ORDERED) | frozenset(UNORDERED) | {"num", "nan"}


def _cmp(x: Num, y: Num) -> int:
    kx, ky = _order_key(x)[:2], _order_key(y)[:2]  # zeros of either sign compare equal
    return (kx > ky) - (kx < ky)


def setp(op: str, a: int, b: int, fmt, *, ftz: bool = False) -> bool:
    """setp.CmpOp: ordered compares are false on NaN, the `u` forms true; `num`/`nan` test for NaN."""
    fmt = get_format(fmt)
    if op not in SETP_OPS:
        raise UsageError(f"unknown float comparison {op!r}")
    x, y = read(a, fmt, ftz), read(b, fmt, ftz)
    unordered = x.kind == "nan" or y.kind == "nan"
    if op == "num":
        return not unordered
    if op == "nan":
        return unordered
    if unordered:
        return op in UNORDERED
    return (ORDERED.get(op) or UNORDERED[op])(_cmp(x, y))


# ---------------------------------------------------------------------------------------------- packed x2

def packed_x2(op, *words: int, fmt, **kw) -> int:
    """f16x2/bf16x2: apply a scalar op to the low and high halves of 32-bit words independently."""
    lo = op(*(w & 0xFFFF for w in words), fmt, **kw)
    hi = op(*((w >> 16) & 0xFFFF for w in words), fmt, **kw)
    return (hi << 16) | lo
