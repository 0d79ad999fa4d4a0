"""Every row of the named-constant table (volta/symbolic/constants.py) is what it says: its definition is the
named constant, and its words are that constant's correctly rounded f32 and f64 values and hi/lo splits.

For each row, the constant c is enclosed in an interval [a, b] at 400 bits by mpmath's interval arithmetic
(outward rounding: the true value lies inside) from a definition written here independently of the table, from
mpmath's own functions (`log`, `exp`, `pi`, `sqrt`). Then:
  1. the table's expression over the base symbols, enclosed the same way (volta/symbolic/enclose.py, which takes
     log2 e, log2 10 and π from `constants.BASE_INTERVALS`), overlaps [a, b] and is as narrow: it is c;
  2. a and b round to the same f32 (and f64) under round-to-nearest-even: every real in [a, b], c among them,
     rounds to that word, so the word is RN(c). c is irrational, so no tie can make that claim wrong;
  3. a − hi and b − hi round to the same word, so it is RN(c − hi): the lo word of the split.
Rounding is `volta.numerics.formats.encode`, exact on rationals. `python proofs/named_constants.py` prints one
line per row and exits 1 on any failure (tests/symbolic/test_constants.py runs it).
"""
from __future__ import annotations

import sys
from fractions import Fraction
from pathlib import Path

from mpmath import iv
from mpmath.libmp import to_rational

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from volta.numerics.formats import decode, encode  # noqa: E402
from volta.symbolic import constants as C  # noqa: E402
from volta.symbolic.enclose import enclose  # noqa: E402

PRECISION = 400

# The constants by name, from mpmath's functions (not from the table's expressions).
TRUTH = {
    "log2 e": lambda: 1 / iv.log(2),
    "ln 2": lambda: iv.log(2),
    "log2 10": lambda: iv.log(10) / iv.log(2),
    "log10 2": lambda: iv.log(2) / iv.log(10),
    "ln 10": lambda: iv.log(10),
    "log10 e": lambda: 1 / iv.log(10),
    "e": lambda: iv.exp(1),
    "1/e": lambda: iv.exp(-1),
    "pi": lambda: iv.pi,
    "pi/2": lambda: iv.pi / 2,
    "1/pi": lambda: 1 / iv.pi,
    "2/pi": lambda: 2 / iv.pi,
    "sqrt 2": lambda: iv.sqrt(2),
    "1/sqrt 2": lambda: 1 / iv.sqrt(2),
    "sqrt pi": lambda: iv.sqrt(iv.pi),
    "1/sqrt pi": lambda: 1 / iv.sqrt(iv.pi),
    "2/sqrt pi": lambda: 2 / iv.sqrt(iv.pi),
    "sqrt(2/pi)": lambda: iv.sqrt(2 / iv.pi),
    "1/sqrt(2 pi)": lambda: 1 / iv.sqrt(2 * iv.pi),
    "sqrt(2 pi)": lambda: iv.sqrt(2 * iv.pi),
}


def _ends(x) -> tuple[Fraction, Fraction]:
    lo, hi = x._mpi_
    return Fraction(*to_rational(lo)), Fraction(*to_rational(hi))


def check_row(row: C.Constant) -> list[str]:
    """What is wrong with one row (empty: proved)."""
    errors = []
    saved = iv.prec
    try:
        iv.prec = PRECISION
        a, b = _ends(TRUTH[row.name]())
    finally:
        iv.prec = saved
    width = b - a
    mine = enclose(row.value, {})
    if mine.hi < a or b < mine.lo or mine.hi - mine.lo > Fraction(1, 1 << 100):
        errors.append(f"its expression encloses [{float(mine.lo)}, {float(mine.hi)}], not the constant")
    if width > Fraction(1, 1 << 300):
        errors.append("the enclosure is too wide to decide anything")
    for fmt in ("f32", "f64"):
        hi, lo = getattr(row, fmt), getattr(row, fmt + "_lo")
        if not encode(a, fmt) == encode(b, fmt) == hi:
            errors.append(f"{fmt} word {hi:#x} is not RN({row.name}) (the ends round to "
                          f"{encode(a, fmt):#x}, {encode(b, fmt):#x})")
            continue
        h = decode(hi, fmt)
        if not encode(a - h, fmt) == encode(b - h, fmt) == lo:
            errors.append(f"{fmt} lo word {lo:#x} is not RN({row.name} - hi)")
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
    print(f"{len(C.TABLE)} constants, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
