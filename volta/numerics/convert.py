"""`cvt` in every direction: float↔float with rounding, float→int with .rni/.rzi/.rmi/.rpi and saturation,
int→float with rounding, and float→float rounding to an integral value (PTX ISA "cvt", "cvt.pack").

float→int: NaN → 0, out-of-range values saturate to the integer type's bounds (PTX: "saturate by default").
A narrowing float→float conversion rounds once; `.satfinite` (required by PTX for fp8/fp6/fp4 destinations) maps
±inf and overflow to ±max finite and keeps NaN (NaN → +0 for formats without NaN, a documented choice).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from volta.errors import UsageError
from volta.numerics.formats import Format, Rnd, as_rnd, get_format, nan_word_or_zero, round_ratio
from volta.numerics.scalar import Num, read, write


@dataclass(frozen=True)
class IntType:
    name: str
    bits: int
    signed: bool

    @property
    def lo(self) -> int:
        return -(1 << (self.bits - 1)) if self.signed else 0

    @property
    def hi(self) -> int:
        return (1 << (self.bits - 1)) - 1 if self.signed else (1 << self.bits) - 1


INT_TYPES = {t.name: t for t in (IntType(f"{s}{n}", n, s == "s") for s in "su" for n in (8, 16, 32, 64))}
INT_ROUNDING = {"rni": Rnd.RN, "rzi": Rnd.RZ, "rmi": Rnd.RM, "rpi": Rnd.RP}


def int_type(name: str) -> IntType:
    try:
        return INT_TYPES[name]
    except KeyError:
        raise UsageError(f"unknown integer type {name!r}") from None


def _int_rnd(mode: Rnd | str) -> Rnd:
    if isinstance(mode, str) and mode.lstrip(".") in INT_ROUNDING:
        return INT_ROUNDING[mode.lstrip(".")]
    return as_rnd(mode)


def round_to_integer(v: Fraction, mode: Rnd) -> int:
    """Round an exact value to an integer in one of the five directions."""
    fl = math.floor(v)
    r = v - fl
    if r == 0:
        return fl
    if mode is Rnd.RM:
        return fl
    if mode is Rnd.RP:
        return fl + 1
    if mode is Rnd.RZ:
        return fl if v > 0 else fl + 1
    half = Fraction(1, 2)
    if r != half:
        return fl + (r > half)
    if mode is Rnd.RNA:
        return fl + 1 if v > 0 else fl
    return fl + (fl & 1)


def f2f(word: int, src, dst, rnd: Rnd | str = Rnd.RN, *, ftz: bool = False, sat: bool = False,
        satfinite: bool = False) -> int:
    """cvt{.rnd}{.ftz}{.sat}{.satfinite}.dst.src for two float formats: one rounding; NaN → canonical NaN."""
    src, dst, rnd = get_format(src), get_format(dst), as_rnd(rnd)
    x = read(word, src, ftz)
    if x.kind == "nan":
        return 0 if sat else nan_word_or_zero(dst)
    if satfinite and x.kind == "inf":
        return (dst.sign_bit if x.neg else 0) | dst.max_word
    if x.kind == "inf" and not dst.has_inf and not sat:
        return nan_word_or_zero(dst) if dst.has_nan else (dst.sign_bit if x.neg else 0) | dst.max_word
    if x.kind == "num" and satfinite and not sat:
        m = x.mag
        return round_ratio(x.neg, m.numerator, m.denominator, dst, rnd, ftz=ftz, satfinite=True)
    return write(x, dst, rnd, ftz, sat)


def f2i(word: int, src, dst: str, rnd: Rnd | str = "rni", *, ftz: bool = False) -> int:
    """cvt.{rni,rzi,rmi,rpi}{.ftz}.intT.floatT: round, saturate to the type's range, NaN → 0.

    Returns the integer value (negative for signed types); mask it to store as a register word.
    """
    src, t = get_format(src), int_type(dst)
    x = read(word, src, ftz)
    if x.kind == "nan":
        return 0
    if x.kind == "inf":
        return t.lo if x.neg else t.hi
    v = round_to_integer(-x.mag if x.neg else x.mag, _int_rnd(rnd))
    return min(max(v, t.lo), t.hi)


def i2f(value: int, src: str, dst, rnd: Rnd | str = Rnd.RN, *, sat: bool = False) -> int:
    """cvt{.rnd}{.sat}.floatT.intT: the integer (a register word is reinterpreted by `src`) rounded once."""
    t, dst, rnd = int_type(src), get_format(dst), as_rnd(rnd)
    value &= (1 << t.bits) - 1
    if t.signed and value >> (t.bits - 1):
        value -= 1 << t.bits
    return write(Num("num", value < 0, Fraction(abs(value))), dst, rnd, sat=sat)


def round_integral(word: int, fmt, rnd: Rnd | str = "rni", *, ftz: bool = False, sat: bool = False) -> int:
    """cvt.{rni,rzi,rmi,rpi}.fT.fT: round to an integral value in the same format; zeros keep their sign."""
    fmt = get_format(fmt)
    x = read(word, fmt, ftz)
    if x.kind != "num":
        return write(x, fmt, Rnd.RN, ftz, sat)
    v = round_to_integer(-x.mag if x.neg else x.mag, _int_rnd(rnd))
    return write(Num("num", x.neg, Fraction(abs(v))), fmt, Rnd.RN, ftz, sat)


def pack_x2(hi_value_word: int, lo_value_word: int, src, dst, rnd: Rnd | str = Rnd.RN, **kw) -> int:
    """cvt.rn.f16x2.f32 d, a, b: `a` goes to the upper half, `b` to the lower (PTX ISA "cvt")."""
    dst_fmt: Format = get_format(dst)
    w = dst_fmt.width
    return (f2f(hi_value_word, src, dst_fmt, rnd, **kw) << w) | f2f(lo_value_word, src, dst_fmt, rnd, **kw)
