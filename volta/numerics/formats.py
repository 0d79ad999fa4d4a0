"""Binary floating-point formats and exact decode/encode: the reference every faster path is tested against.

Covers IEEE binary64/32/16, bfloat16, TensorFloat-32 (a 19-bit value in the top of a 32-bit word), the OCP FP8
formats (e4m3 "fn": no inf, NaN = S.1111.111; e5m2: IEEE-like) and the OCP MX formats e3m2, e2m3, e2m1 (no inf,
no NaN). Values are exact: `fractions.Fraction` for finite numbers, `float` for ±inf, NaN and -0.0 (PTX ISA,
"Floating-point data types" and `cvt`).
"""
from __future__ import annotations

import enum
import math
from dataclasses import dataclass
from fractions import Fraction

from volta.errors import UsageError


class NanStyle(enum.Enum):
    """How a format spells NaN, which decides its largest finite number."""

    IEEE = "ieee"  # all-ones exponent, nonzero fraction (inf has zero fraction)
    FN = "fn"  # only all-ones exponent and fraction (e4m3): no inf
    NONE = "none"  # every encoding is a finite number (MX fp6/fp4)


@dataclass(frozen=True)
class Format:
    """Field layout of one floating-point format; `pad` low bits of the word are unused (tf32)."""

    name: str
    exp_bits: int
    man_bits: int
    bias: int
    nan_style: NanStyle
    width: int
    canonical_nan: int | None
    pad: int = 0

    @property
    def has_inf(self) -> bool:
        return self.nan_style is NanStyle.IEEE

    @property
    def has_nan(self) -> bool:
        return self.nan_style is not NanStyle.NONE

    @property
    def emin(self) -> int:
        """Exponent of the smallest normal; subnormals share it."""
        return 1 - self.bias

    @property
    def emax(self) -> int:
        top = (1 << self.exp_bits) - 1
        return (top - 1 if self.nan_style is NanStyle.IEEE else top) - self.bias

    @property
    def max_significand(self) -> int:
        """Largest significand (hidden bit included) at emax: FN loses the all-ones pattern to NaN."""
        full = (1 << (self.man_bits + 1)) - 1
        return full - 1 if self.nan_style is NanStyle.FN else full

    @property
    def max_finite(self) -> Fraction:
        return Fraction(self.max_significand) * Fraction(2) ** (self.emax - self.man_bits)

    @property
    def sign_bit(self) -> int:
        return 1 << (self.width - 1)

    @property
    def word_mask(self) -> int:
        return (1 << self.width) - 1

    @property
    def inf_word(self) -> int:
        return ((1 << self.exp_bits) - 1) << (self.man_bits + self.pad)

    @property
    def max_word(self) -> int:
        bits = ((self.emax + self.bias) << self.man_bits) | (self.max_significand - (1 << self.man_bits))
        return bits << self.pad


FORMATS: dict[str, Format] = {
    f.name: f
    for f in (
        Format("f64", 11, 52, 1023, NanStyle.IEEE, 64, 0x7FFFFFFFFFFFFFFF),
        Format("f32", 8, 23, 127, NanStyle.IEEE, 32, 0x7FFFFFFF),
        Format("f16", 5, 10, 15, NanStyle.IEEE, 16, 0x7FFF),
        Format("bf16", 8, 7, 127, NanStyle.IEEE, 16, 0x7FFF),
        Format("tf32", 8, 10, 127, NanStyle.IEEE, 32, 0x7FFFFFFF, pad=13),
        Format("e4m3", 4, 3, 7, NanStyle.FN, 8, 0x7F),
        Format("e5m2", 5, 2, 15, NanStyle.IEEE, 8, 0x7F),
        Format("e3m2", 3, 2, 3, NanStyle.NONE, 6, None),
        Format("e2m3", 2, 3, 1, NanStyle.NONE, 6, None),
        Format("e2m1", 2, 1, 1, NanStyle.NONE, 4, None),
    )
}
F64, F32, F16, BF16, TF32 = (FORMATS[n] for n in ("f64", "f32", "f16", "bf16", "tf32"))
E4M3, E5M2 = FORMATS["e4m3"], FORMATS["e5m2"]


def get_format(fmt: Format | str) -> Format:
    """Accept a Format or its name; an unknown name is the user's mistake."""
    if isinstance(fmt, Format):
        return fmt
    try:
        return FORMATS[fmt]
    except KeyError:
        raise UsageError(f"unknown float format {fmt!r} (known: {', '.join(FORMATS)})") from None


class Rnd(enum.Enum):
    """PTX rounding modifiers for floating-point results."""

    RN = "rn"  # nearest, ties to even
    RZ = "rz"  # toward zero
    RM = "rm"  # toward -inf
    RP = "rp"  # toward +inf
    RNA = "rna"  # nearest, ties away from zero


def as_rnd(mode: Rnd | str) -> Rnd:
    if isinstance(mode, Rnd):
        return mode
    try:
        return Rnd(mode.lstrip(".").lower())
    except ValueError:
        raise UsageError(f"unknown rounding mode {mode!r}") from None


# ---------------------------------------------------------------------------------------------- decoding

@dataclass(frozen=True)
class Unpacked:
    """A decoded word: kind, sign, and for finite numbers value = sig * 2**(exp - man_bits)."""

    kind: str  # "num", "inf", "nan"
    neg: bool
    sig: int = 0
    exp: int = 0

    @property
    def is_zero(self) -> bool:
        return self.kind == "num" and self.sig == 0


def check_word(word: int, fmt: Format) -> int:
    if not isinstance(word, int) or word < 0 or word > fmt.word_mask:
        raise UsageError(f"{word!r} is not a {fmt.width}-bit {fmt.name} word")
    return word


def unpack(word: int, fmt: Format) -> Unpacked:
    """Split a word into fields; subnormals keep exponent emin and no hidden bit (never renormalized)."""
    word = check_word(word, fmt)
    neg = bool(word & fmt.sign_bit)
    bits = (word & (fmt.sign_bit - 1)) >> fmt.pad
    frac = bits & ((1 << fmt.man_bits) - 1)
    biased = bits >> fmt.man_bits
    top = (1 << fmt.exp_bits) - 1
    if biased == top and fmt.nan_style is NanStyle.IEEE:
        return Unpacked("nan" if frac else "inf", neg)
    if biased == top and fmt.nan_style is NanStyle.FN and frac == (1 << fmt.man_bits) - 1:
        return Unpacked("nan", neg)
    if biased == 0:
        return Unpacked("num", neg, frac, fmt.emin)
    return Unpacked("num", neg, frac | (1 << fmt.man_bits), biased - fmt.bias)


def exact_value(u: Unpacked, fmt: Format) -> Fraction:
    """Magnitude of a finite unpacked number."""
    return Fraction(u.sig) * Fraction(2) ** (u.exp - fmt.man_bits)


def decode(word: int, fmt: Format | str) -> Fraction | float:
    """Exact value of a word: Fraction when finite (+0 is Fraction(0)), float for ±inf, NaN and -0.0."""
    fmt = get_format(fmt)
    u = unpack(word, fmt)
    if u.kind == "nan":
        return math.nan
    if u.kind == "inf":
        return -math.inf if u.neg else math.inf
    if u.sig == 0:
        return -0.0 if u.neg else Fraction(0)
    v = exact_value(u, fmt)
    return -v if u.neg else v


def is_nan(word: int, fmt: Format) -> bool:
    return unpack(word, fmt).kind == "nan"


def is_subnormal(word: int, fmt: Format) -> bool:
    u = unpack(word, fmt)
    return u.kind == "num" and 0 < u.sig < (1 << fmt.man_bits)


# ---------------------------------------------------------------------------------------------- encoding

def _floor_log2(n: int, d: int) -> int:
    """floor(log2(n/d)) for positive integers."""
    e = n.bit_length() - d.bit_length()
    if (n << max(0, -e)) < (d << max(0, e)):
        e -= 1
    return e


def nan_word(fmt: Format) -> int:
    if fmt.canonical_nan is None:
        raise ValueError(f"{fmt.name} has no NaN")
    return fmt.canonical_nan


def zero_word(fmt: Format, neg: bool) -> int:
    return fmt.sign_bit if neg else 0


def _overflow_word(fmt: Format, neg: bool, mode: Rnd, satfinite: bool, to_inf: bool | None = None) -> int:
    """Result of a value beyond max_finite: inf or max finite by rounding direction (IEEE 754 §7.4)."""
    if to_inf is None:
        to_inf = mode in (Rnd.RN, Rnd.RNA) or (mode is Rnd.RP and not neg) or (mode is Rnd.RM and neg)
    sign = fmt.sign_bit if neg else 0
    if not to_inf or satfinite:
        return sign | fmt.max_word
    if fmt.has_inf:
        return sign | fmt.inf_word
    if fmt.has_nan:
        return nan_word(fmt)
    return sign | fmt.max_word  # MX formats saturate (OCP MX spec)


def round_ratio(neg: bool, num: int, den: int, fmt: Format, mode: Rnd = Rnd.RN, *, ftz: bool = False,
                satfinite: bool = False, overflow_to_inf: bool | None = None) -> int:
    """Round the exact value ±num/den (num ≥ 0, den > 0) to a word of `fmt` with one rounding.

    `overflow_to_inf` overrides the IEEE choice between inf and max finite (tensor-core RZ overflows to inf).
    """
    if num == 0:
        return zero_word(fmt, neg)
    m = fmt.man_bits
    e = max(_floor_log2(num, den), fmt.emin)
    qe = e - m  # exponent of one unit in the last place
    if qe >= 0:
        i, r = divmod(num, den << qe)
        half = den << qe
    else:
        i, r = divmod(num << -qe, den)
        half = den
    twice = 2 * r
    if mode is Rnd.RN:
        up = twice > half or (twice == half and i & 1)
    elif mode is Rnd.RNA:
        up = twice >= half
    elif mode is Rnd.RZ:
        up = False
    elif mode is Rnd.RP:
        up = r > 0 and not neg
    else:
        up = r > 0 and neg
    i += int(up)
    if i >> (m + 1):
        i >>= 1
        qe += 1
    exp = qe + m
    sign = fmt.sign_bit if neg else 0
    if exp > fmt.emax or (exp == fmt.emax and i > fmt.max_significand):
        return _overflow_word(fmt, neg, mode, satfinite, overflow_to_inf)
    if i < (1 << m):  # subnormal (or rounded to zero)
        if ftz or i == 0:
            return sign
        return sign | (i << fmt.pad)
    return sign | ((((exp + fmt.bias) << m) | (i - (1 << m))) << fmt.pad)


def encode(value: Fraction | int | float, fmt: Format | str, mode: Rnd | str = Rnd.RN, *, ftz: bool = False,
           sat: bool = False, satfinite: bool = False) -> int:
    """Round an exact value (Fraction/int, or float for ±inf/NaN/-0.0) to a word with PTX modifiers.

    `.ftz` flushes a subnormal result to a zero of the same sign (tested after rounding); `.sat` clamps to
    [+0.0, 1.0] with NaN → +0.0; `.satfinite` turns ±inf and overflow into ±max finite, NaN stays NaN.
    """
    fmt, mode = get_format(fmt), as_rnd(mode)
    if isinstance(value, float):
        if math.isnan(value):
            return 0 if sat else nan_word_or_zero(fmt)
        if math.isinf(value):
            if sat:
                return 0 if value < 0 else encode(1, fmt)
            neg = value < 0
            if satfinite or not fmt.has_inf:
                return _overflow_word(fmt, neg, mode, satfinite, to_inf=not satfinite)
            return (fmt.sign_bit if neg else 0) | fmt.inf_word
        if value == 0:
            return 0 if sat else zero_word(fmt, math.copysign(1.0, value) < 0)
        value = Fraction(value)
    value = Fraction(value)
    if sat:
        value = min(max(value, Fraction(0)), Fraction(1))
    neg = value < 0
    mag = -value if neg else value
    word = round_ratio(neg, mag.numerator, mag.denominator, fmt, mode, ftz=ftz, satfinite=satfinite)
    return word


def nan_word_or_zero(fmt: Format) -> int:
    """NaN for formats that have one; MX formats have none, and conversion then gives +0 (documented choice)."""
    return fmt.canonical_nan if fmt.canonical_nan is not None else 0


def flush_input(word: int, fmt: Format) -> int:
    """`.ftz` on an operand: a subnormal becomes a zero of the same sign."""
    return (word & fmt.sign_bit) if is_subnormal(word, fmt) else word
