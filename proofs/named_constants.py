"""Every row of the named-constant table (volta/symbolic/constants.py) is what it says: its expression is the
named constant, and its words are that constant's correctly rounded f32 and f64 values and hi/lo splits.

Exact rational arithmetic only (`fractions`), no mpmath and nothing of Volta's numerics, so the check does not
lean on the library the runtime uses for its own enclosures:
  - ln 2, ln 10, π and e are enclosed in rational intervals [a, b] of width under 2^-280 by series whose
    truncation error is bounded term by term (atanh for the logarithms, Machin's arctangents for π, Taylor for
    e and for 2^x), square roots by integer square roots; every operation rounds its ends outward to 2^-PREC;
  - TRUTH writes each constant from those, independently of the table's expressions;
  - a word is RN(c) when [a, b] lies strictly between the midpoints to the word's two neighbours (`rounds_to`:
    the words decoded exactly by `struct`); c is irrational, so no tie can make that wrong;
  - the lo word of a split is RN(c − hi): [a − hi, b − hi] lies between its midpoints;
  - the table's expression, evaluated in the same interval arithmetic with log2 e = 1/ln 2, log2 10 =
    ln 10/ln 2 and π, overlaps [a, b] and is as narrow: it is c;
  - the runtime's certified bounds of the three base symbols (`constants.rational_bounds`, from mpmath) contain
    the enclosures made here.
`python proofs/named_constants.py` prints one line per row and exits 1 on any failure
(tests/symbolic/test_constants.py runs it).
"""
from __future__ import annotations

import math
import struct
import sys
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from volta.symbolic import constants as C  # noqa: E402
from volta.symbolic import expr as E  # noqa: E402

PREC = 320                # interval ends are multiples of 2^-PREC, rounded outward
SCALE = 1 << PREC
NARROW = Fraction(1, 1 << 280)   # every enclosure used to decide a rounding is narrower than this


def _down(q: Fraction) -> Fraction:
    return Fraction(math.floor(q * SCALE), SCALE)


def _up(q: Fraction) -> Fraction:
    return Fraction(math.ceil(q * SCALE), SCALE)


@dataclass(frozen=True)
class I:
    """A closed rational interval [lo, hi] holding a real; arithmetic rounds the ends outward."""

    lo: Fraction
    hi: Fraction

    @staticmethod
    def exact(q) -> "I":
        q = Fraction(q)
        return I(q, q)

    def __add__(self, o: "I") -> "I":
        return I(_down(self.lo + o.lo), _up(self.hi + o.hi))

    def __neg__(self) -> "I":
        return I(-self.hi, -self.lo)

    def __sub__(self, o: "I") -> "I":
        return self + (-o)

    def __mul__(self, o: "I") -> "I":
        ps = [self.lo * o.lo, self.lo * o.hi, self.hi * o.lo, self.hi * o.hi]
        return I(_down(min(ps)), _up(max(ps)))

    def __truediv__(self, o: "I") -> "I":
        if o.lo <= 0 <= o.hi:
            raise ZeroDivisionError("an interval divisor holding 0")
        return self * I(_down(1 / o.hi), _up(1 / o.lo))

    def sqrt(self) -> "I":
        if self.lo < 0:
            raise ValueError("sqrt of an interval reaching below 0")
        return I(Fraction(math.isqrt(math.floor(self.lo * SCALE * SCALE)), SCALE),
                 Fraction(math.isqrt(math.ceil(self.hi * SCALE * SCALE)) + 1, SCALE))

    @property
    def width(self) -> Fraction:
        return self.hi - self.lo


def atanh_inv(n: int) -> I:
    """atanh(1/n) = Σ_k n^-(2k+1)/(2k+1) for n >= 2; the tail after the last term is below the next term times
    1/(1 − n^-2)."""
    total, k, term = Fraction(0), 0, Fraction(1, n)
    while term > Fraction(1, SCALE * SCALE):
        total += term / (2 * k + 1)
        k += 1
        term /= n * n
    tail = term / (2 * k + 1) / (1 - Fraction(1, n * n))
    return I(_down(total), _up(total + tail))


def atan_inv(n: int) -> I:
    """atan(1/n) = Σ_k (−1)^k n^-(2k+1)/(2k+1), alternating with decreasing terms: the true value lies between
    two consecutive partial sums."""
    total, k, term = Fraction(0), 0, Fraction(1, n)
    while term > Fraction(1, SCALE * SCALE):
        total += (-1) ** k * term / (2 * k + 1)
        k += 1
        term /= n * n
    after = total + (-1) ** k * term / (2 * k + 1)
    return I(_down(min(total, after)), _up(max(total, after)))


def exp_of(x: Fraction) -> I:
    """e^x for a rational |x| <= 1: Taylor to x^(n-1)/(n-1)!; the remainder from x^n/n! on is at most
    2·|x^n/n!| (each later term is at most half the one before)."""
    assert abs(x) <= 1
    total, n, term = Fraction(0), 0, Fraction(1)
    while abs(term) > Fraction(1, SCALE * SCALE) or n < 4:
        total += term
        n += 1
        term = term * x / n
    tail = 2 * abs(term)
    return I(_down(total - tail), _up(total + tail))


LN2 = atanh_inv(3) * I.exact(2)                        # ln 2 = 2 atanh(1/3)
LN10 = LN2 * I.exact(3) + atanh_inv(9) * I.exact(2)    # ln 10 = 3 ln 2 + ln(5/4), ln(5/4) = 2 atanh(1/9)
PI = atan_inv(5) * I.exact(16) - atan_inv(239) * I.exact(4)   # Machin
EULER = exp_of(Fraction(1))
ONE, TWO = I.exact(1), I.exact(2)


def exp2(x: I) -> I:
    """2^x = e^(x·ln 2), monotone: 2^lo from below, 2^hi from above (each end as 2^m·e^r, |r| <= ln 2 / 2)."""
    def end(v: Fraction, upper: bool) -> Fraction:
        m = round(v)
        r = I.exact(v - m) * LN2
        q = r.hi if upper else r.lo
        e = exp_of(q)
        return (e.hi if upper else e.lo) * Fraction(2) ** m
    return I(_down(end(x.lo, False)), _up(end(x.hi, True)))


# The constants by name, from the series above (not from the table's expressions).
TRUTH = {
    "log2 e": lambda: ONE / LN2,
    "ln 2": lambda: LN2,
    "log2 10": lambda: LN10 / LN2,
    "log10 2": lambda: LN2 / LN10,
    "ln 10": lambda: LN10,
    "log10 e": lambda: ONE / LN10,
    "e": lambda: EULER,
    "1/e": lambda: ONE / EULER,
    "pi": lambda: PI,
    "pi/2": lambda: PI / TWO,
    "1/pi": lambda: ONE / PI,
    "2/pi": lambda: TWO / PI,
    "sqrt 2": lambda: TWO.sqrt(),
    "1/sqrt 2": lambda: ONE / TWO.sqrt(),
    "sqrt pi": lambda: PI.sqrt(),
    "1/sqrt pi": lambda: ONE / PI.sqrt(),
    "2/sqrt pi": lambda: TWO / PI.sqrt(),
    "sqrt(2/pi)": lambda: (TWO / PI).sqrt(),
    "1/sqrt(2 pi)": lambda: ONE / (TWO * PI).sqrt(),
    "sqrt(2 pi)": lambda: (TWO * PI).sqrt(),
}

# The base symbols of the table's expressions, from the same series.
BASE = {C.LOG2E.data: ONE / LN2, C.LOG2_10.data: LN10 / LN2, C.PI.data: PI}


def evaluate(e: E.Expr) -> I:
    """The table's expression in this interval arithmetic (the operations the table uses)."""
    if e.op is E.SYM:
        return BASE[e.data]
    if e.op is E.CONST:
        return I.exact(e.data)
    args = [evaluate(a) for a in e.args]
    if e.op is E.MUL:
        out = args[0]
        for a in args[1:]:
            out = out * a
        return out
    if e.op is E.DIV:
        return args[0] / args[1]
    if e.op is E.SQRT:
        return args[0].sqrt()
    if e.op is E.EXP2:
        return exp2(args[0])
    raise ValueError(f"an operation the table does not use: {e.op}")


# ---- words ------------------------------------------------------------------------------------------------

FORMATS = {"f32": ("<I", "<f", 32), "f64": ("<Q", "<d", 64)}


def word_value(word: int, fmt: str) -> Fraction:
    """The exact value of a finite word (struct decodes it; Fraction of a float is exact)."""
    wcode, fcode, _ = FORMATS[fmt]
    v = struct.unpack(fcode, struct.pack(wcode, word))[0]
    if not math.isfinite(v):
        raise ValueError(f"{word:#x} is not a finite {fmt}")
    return Fraction(v)


def rounds_to(x: I, word: int, fmt: str) -> bool:
    """Does every real in x round to `word` under round-to-nearest? True when x lies strictly between the
    midpoints from the word's value to its two neighbours (the words one up and one down in magnitude)."""
    if word & ((1 << (FORMATS[fmt][2] - 1)) - 1) == 0:
        return False   # a zero: no table constant or split rounds to it
    try:
        near = sorted([word_value(word - 1, fmt), word_value(word + 1, fmt)])
    except ValueError:
        return False   # the largest finite word: no table constant rounds to it
    v = word_value(word, fmt)
    return (v + near[0]) / 2 < x.lo and x.hi < (v + near[1]) / 2


def check_row(row: C.Constant) -> list[str]:
    """What is wrong with one row (empty: proved)."""
    errors = []
    c = TRUTH[row.name]()
    if c.width > NARROW:
        errors.append("the enclosure is too wide to decide anything")
    mine = evaluate(row.value)
    if mine.hi < c.lo or c.hi < mine.lo or mine.width > NARROW:
        errors.append(f"its expression encloses [{float(mine.lo)}, {float(mine.hi)}], not the constant")
    for fmt in ("f32", "f64"):
        hi, lo = getattr(row, fmt), getattr(row, fmt + "_lo")
        if not rounds_to(c, hi, fmt):
            errors.append(f"{fmt} word {hi:#x} is not RN({row.name})")
            continue
        if not rounds_to(c - I.exact(word_value(hi, fmt)), lo, fmt):
            errors.append(f"{fmt} lo word {lo:#x} is not RN({row.name} - hi)")
    return errors


def check_runtime_bounds() -> list[str]:
    """The runtime's rational bounds of each base symbol (z3's side facts) contain this file's enclosure."""
    errors = []
    for name, x in BASE.items():
        lo, hi = C.rational_bounds(name)
        if not (lo < x.lo and x.hi < hi):
            errors.append(f"constants.rational_bounds({name!r}) = [{float(lo)}, {float(hi)}] misses it")
    return errors


def main() -> int:
    failed = 0
    if set(TRUTH) != {row.name for row in C.TABLE}:
        print(f"table and proofs name different constants: {sorted(set(TRUTH) ^ {r.name for r in C.TABLE})}")
        return 1
    for row in C.TABLE:
        errors = check_row(row)
        failed += bool(errors)
        print(f"{row.name:14s} f32 {row.f32:08X}+{row.f32_lo:08X}  f64 {row.f64:016X}+{row.f64_lo:016X}  "
              + ("; ".join(errors) if errors else "proved"))
    runtime = check_runtime_bounds()
    failed += bool(runtime)
    print("runtime bounds of log2 e, log2 10, pi: " + ("; ".join(runtime) if runtime else "contain the constants"))
    print(f"{len(C.TABLE)} constants, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
