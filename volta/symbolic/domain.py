"""The inputs a kernel can be given: finite values of each float buffer's format (issue 28 §2).

Over the reals an input element is any real, but a counterexample is only worth showing if a GPU run can be
given it: `-1e20f - 1` or `-FLT_MAX - 1` for an f32 buffer is not an f32. So every witness is rounded to its
buffer's format before it is confirmed (`Domain.snap`, to nearest; `Domain.variants` adds the directed
roundings, for a difference that lives just past a rounding of the solver's value, such as a max-pool sentinel
`-1e20f` whose model was `-1e20f - 1`), and the solver is told the range of each format (`Domain.bounds`:
|x| <= its largest finite value). Integer buffers keep their own rules (`volta.config.IntegerInputs`).

The formats are written out here (the symbolic package is a leaf of the import graph); `round_to` is checked
against volta/numerics/formats.py by tests/symbolic/test_domain.py.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Mapping

from volta.symbolic import expr as E


@dataclass(frozen=True)
class FloatFormat:
    """A binary format's finite values: `man` fraction bits, normal exponents from `emin`, up to `largest`."""

    name: str
    man: int
    emin: int
    largest: Fraction

    def holds(self, v: Fraction) -> bool:
        """Is v zero or of a normal magnitude of the format (neither overflowing nor underflowing it)?"""
        return v == 0 or Fraction(2) ** self.emin <= abs(v) <= self.largest

    @property
    def resolution(self) -> Fraction:
        """The spacing of the format's values just above 1 (machine epsilon, 2^-man)."""
        return Fraction(1, 1 << self.man)


def _ieee(name: str, man: int, ebits: int) -> FloatFormat:
    emax = (1 << (ebits - 1)) - 1
    return FloatFormat(name, man, 1 - emax, Fraction(2) ** emax * (2 - Fraction(1, 1 << man)))


FORMATS = {
    "f64": _ieee("f64", 52, 11), "f32": _ieee("f32", 23, 8), "f16": _ieee("f16", 10, 5), "bf16": _ieee("bf16", 7, 8),
    "e4m3": FloatFormat("e4m3", 3, -6, Fraction(448)), "e5m2": _ieee("e5m2", 2, 5),
}

MODES = ("nearest", "down", "up")


def round_to(v: Fraction, fmt: FloatFormat, mode: str = "nearest") -> Fraction:
    """v rounded to a finite value of `fmt` (ties to even; `down`/`up` toward -inf/+inf), clamped to the
    largest finite value (a witness is never infinite)."""
    v = Fraction(v)
    if v == 0:
        return v
    e = max(E.exact_floor_log2(abs(v)), fmt.emin)
    quantum = Fraction(2) ** (e - fmt.man)
    n = v / quantum
    if mode == "down":
        k = n.numerator // n.denominator
    elif mode == "up":
        k = -((-n.numerator) // n.denominator)
    else:
        k = round(n)   # Python rounds a Fraction half to even
    return max(-fmt.largest, min(fmt.largest, k * quantum))


@dataclass(frozen=True)
class Domain:
    """The float format of each input buffer and symbol that has one (name -> format name)."""

    formats: Mapping[str, str] = field(default_factory=dict)

    def format_of(self, leaf: E.Expr) -> FloatFormat | None:
        if leaf.op is E.VAR:
            return FORMATS.get(self.formats.get(leaf.data[0], ""))
        if leaf.op is E.SYM:
            return FORMATS.get(self.formats.get(leaf.data, ""))
        return None

    def snap(self, env: Mapping, mode: str = "nearest") -> dict:
        """env with every float input rounded to its format."""
        out = {}
        for leaf, value in env.items():
            fmt = self.format_of(leaf)
            out[leaf] = value if fmt is None else round_to(value, fmt, mode)
        return out

    def variants(self, env: Mapping) -> list[dict]:
        """env rounded to nearest, down and up (the distinct ones, nearest first)."""
        out = []
        for mode in MODES:
            snapped = self.snap(env, mode)
            if snapped not in out:
                out.append(snapped)
        return out

    def bounds(self, leaf: E.Expr) -> tuple[Fraction, Fraction] | None:
        """The range of a float input: its format's finite values."""
        fmt = self.format_of(leaf)
        return None if fmt is None else (-fmt.largest, fmt.largest)


ANY = Domain()   # no formats: every real (unit tests of the symbolic package, races' value comparisons)
