"""Named real constants: a float literal that is the correctly rounded value of log2 e, ln 2, π, √2, … is read as
that constant over the reals.

`volta check` reads every rounded operation as the exact real one (`--fp real`). A literal that is RN(c) for a
named irrational c is the same kind of rounding: `__expf(x)` is `ex2.approx(x·0f3FB8AA3B)` with 0f3FB8AA3B =
RN32(log2 e), libdevice `expf` multiplies by the split hi = RN32(log2 e), lo = RN32(log2 e − hi), and
`exp2f(x·1.4426950408889634f)` is the same product again. Read exactly, the three are one function, exp; read as
rationals they are three, and a pair mixing them would be NOT EQUIVALENT by 1e-9 relative. A literal that is *not*
RN(c) (0.7071f for 1/√2, a truncated 0.797f for √(2/π)) stays the rational it is: that is a real bug.

The constants are expressions over three positive symbols, L = log2 e (the symbol `--define-fn NAME=exp` uses),
T = log2 10 and P = π, and over square roots of rationals and of P: ln 2 is 1/L, ln 10 is T/L, e is 2^L, √(2/π)
is sqrt(2/P). So base-2 normal forms stay exact (2^(x·L) is exp x), the defining relations hold by construction
(ln 2 · log2 e = 1), and no irrational constant is ever identified with a rational. An identity proved for every
positive L, T, P holds for the true ones (EQUIVALENT stays sound); a difference is confirmed at the true values by
certified interval arithmetic (`BASE_INTERVALS`, used by `enclose.py`), never at the symbols' free values.

`TABLE` has one row per constant: name, exact definition, RN32 and RN64 bits, and the lo word of each hi/lo split
(lo = RN(c − hi)). `proofs/named_constants.py` proves every word in exact rational arithmetic (series enclosures
of the constant, no mpmath; tests/symbolic/test_constants.py runs it). `Reading` turns a literal's bits into its constant: the rows' words,
their negations and their products by 2^k (|k| <= 8, RN(2^k·c) = 2^k·RN(c) for normal results: 2·log2 e in
tanh, π/2), and a lo word as 0 (it corrects a rounding that the exact reading does not make) but only where the
program also holds the matching hi literal.
"""
from __future__ import annotations

import functools
import struct

from dataclasses import dataclass, field
from fractions import Fraction

from mpmath import iv
from mpmath.libmp import to_rational

from volta.symbolic import expr as E

LOG2E = E.sym("log2(e)")      # L: also what `--define-fn NAME=exp` multiplies by (exec/handlers/dispatch.py)
LOG2_10 = E.sym("log2(10)")   # T
PI = E.sym("π")               # P: a name no kernel parameter or --symbol can have (PTX names are ASCII)

# Certified enclosures of the base symbols at mpmath's current interval precision (enclose.py, the proofs).
BASE_INTERVALS = {
    LOG2E.data: lambda: 1 / iv.log(2),
    LOG2_10.data: lambda: iv.log(10) / iv.log(2),
    PI.data: lambda: iv.pi,
}
BASE = frozenset(BASE_INTERVALS)

MAX_SHIFT = 8   # literals 2^k·RN(c) with |k| <= MAX_SHIFT are read as 2^k·c


def is_named(node: E.Expr) -> bool:
    """Is `node` one of the base symbols (a constant, not an input)?"""
    return node.op is E.SYM and node.data in BASE


def rational_bounds(name: str, bits: int = 64) -> tuple[Fraction, Fraction]:
    """lo < value < hi for a base symbol, rationals from a certified enclosure (the solver's side facts)."""
    saved = iv.prec
    try:
        iv.prec = bits
        lo, hi = BASE_INTERVALS[name]()._mpi_
    finally:
        iv.prec = saved
    return Fraction(*to_rational(lo)) - Fraction(1, 1 << bits), Fraction(*to_rational(hi)) + Fraction(1, 1 << bits)


class BaseValue:
    """The value of a base symbol where evaluation meets one (evaluate.py, enclose.py): irrational, so exact
    evaluation raises Inexact on it; a float (`float()`) and a certified interval (`interval()`) exist."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def interval(self):
        return BASE_INTERVALS[self.name]()

    def __float__(self) -> float:
        saved = iv.prec
        try:
            iv.prec = 80
            return float(self.interval().mid)
        finally:
            iv.prec = saved


def _half(x: E.Expr) -> E.Expr:
    return E.mul(Fraction(1, 2), x)


@dataclass(frozen=True)
class Constant:
    """One named constant: its exact value over the base symbols, and the words the proofs check."""

    name: str
    value: E.Expr
    f32: int          # RN32(value)
    f32_lo: int       # RN32(value − f32)
    f64: int          # RN64(value)
    f64_lo: int       # RN64(value − f64)


_SQRT2, _SQRT_PI, _SQRT_2_OVER_PI = E.sqrt(2), E.sqrt(PI), E.sqrt(E.div(2, PI))

TABLE: tuple[Constant, ...] = (
    Constant("log2 e", LOG2E, 0x3FB8AA3B, 0x32A57060, 0x3FF71547652B82FE, 0x3C7777D0FFDA0D24),
    Constant("ln 2", E.div(1, LOG2E), 0x3F317218, 0xB102E308, 0x3FE62E42FEFA39EF, 0x3C7ABC9E3B39803F),
    Constant("log2 10", LOG2_10, 0x40549A78, 0x33979A37, 0x400A934F0979A371, 0x3CA7F2495FB7FA6D),
    Constant("log10 2", E.div(1, LOG2_10), 0x3E9A209B, 0xB2760860, 0x3FD34413509F79FF, 0xBC49DC1DA994FD21),
    Constant("ln 10", E.div(LOG2_10, LOG2E), 0x40135D8E, 0xB309555D, 0x40026BB1BBB55516, 0xBCAF48AD494EA3E9),
    Constant("log10 e", E.div(LOG2E, LOG2_10), 0x3EDE5BD9, 0xB22D91AF, 0x3FDBCB7B1526E50E, 0x3C695355BAAAFAD3),
    Constant("e", E.exp2(LOG2E), 0x402DF854, 0x33B14577, 0x4005BF0A8B145769, 0x3CA4D57EE2B1013A),
    Constant("1/e", E.exp2(E.neg(LOG2E)), 0x3EBC5AB2, 0xB21D310D, 0x3FD78B56362CEF38, 0xBC6CA8A4270FADF5),
    Constant("pi", PI, 0x40490FDB, 0xB3BBBD2E, 0x400921FB54442D18, 0x3CA1A62633145C07),
    Constant("pi/2", _half(PI), 0x3FC90FDB, 0xB33BBD2E, 0x3FF921FB54442D18, 0x3C91A62633145C07),
    Constant("1/pi", E.div(1, PI), 0x3EA2F983, 0x325C9C88, 0x3FD45F306DC9C883, 0xBC76B01EC5417056),
    Constant("2/pi", E.mul(2, E.div(1, PI)), 0x3F22F983, 0x32DC9C88, 0x3FE45F306DC9C883, 0xBC86B01EC5417056),
    Constant("sqrt 2", _SQRT2, 0x3FB504F3, 0x32CFE77A, 0x3FF6A09E667F3BCD, 0xBC9BDD3413B26456),
    Constant("1/sqrt 2", _half(_SQRT2), 0x3F3504F3, 0x324FE77A, 0x3FE6A09E667F3BCD, 0xBC8BDD3413B26456),
    Constant("sqrt pi", _SQRT_PI, 0x3FE2DFC5, 0xB364B109, 0x3FFC5BF891B4EF6B, 0xBC9618F13EB7CA89),
    Constant("1/sqrt pi", E.div(1, _SQRT_PI), 0x3F106EBB, 0xB2FBD649, 0x3FE20DD750429B6D, 0x3C61AE3A914FED80),
    Constant("2/sqrt pi", E.mul(2, E.div(1, _SQRT_PI)), 0x3F906EBB, 0xB37BD649, 0x3FF20DD750429B6D, 0x3C71AE3A914FED80),
    Constant("sqrt(2/pi)", _SQRT_2_OVER_PI, 0x3F4C422A, 0xB2C2BC9B, 0x3FE9884533D43651, 0xBC8CBC0D30EBFD15),
    Constant("1/sqrt(2 pi)", _half(_SQRT_2_OVER_PI), 0x3ECC422A, 0xB242BC9B, 0x3FD9884533D43651, 0xBC7CBC0D30EBFD15),
    Constant("sqrt(2 pi)", E.sqrt(E.mul(2, PI)), 0x40206C99, 0xAF9D8FA7, 0x40040D931FF62706, 0xBCAA6A0D6F814637),
)

FORMATS = {".f32": (32, 23, "f32"), ".f64": (64, 52, "f64")}   # type -> (width, mantissa bits, row field)


def _scaled(bits: int, width: int, man: int, k: int) -> int | None:
    """The word of 2^k times the normal float `bits` (same sign), or None when it would not be normal."""
    ebits = width - 1 - man
    exp = (bits >> man) & ((1 << ebits) - 1)
    new = exp + k
    if exp == 0 or not 0 < new < (1 << ebits) - 1:
        return None
    return (bits & ~(((1 << ebits) - 1) << man)) | (new << man)


@dataclass(frozen=True)
class Entry:
    """What one word reads as: `value`, the row it comes from, and whether it is a lo word (read as 0)."""

    value: E.Expr
    row: Constant
    lo: bool = False


@functools.cache   # built on the first float literal read, not at import (start-up: an integer kernel never reads one)
def _words() -> dict:
    """(type, word) -> Entry for every row's hi and lo word, negated, and times 2^k. Rows first, then
    their multiples by increasing |k|, so a word that two rows reach (RN(√2)/2 is RN(1/√2)) reads as its own row."""
    out: dict = {}
    for t, (width, man, name) in FORMATS.items():
        sign = 1 << (width - 1)
        for k in sorted(range(-MAX_SHIFT, MAX_SHIFT + 1), key=abs):
            for row in TABLE:
                for lo in (False, True):
                    word = _scaled(getattr(row, name + "_lo" if lo else name), width, man, k)
                    if word is None:
                        continue
                    value = E.ZERO if lo else E.mul(Fraction(2) ** k, row.value)
                    for w, v in ((word, value), (word ^ sign, E.neg(value))):
                        out.setdefault((t, w), Entry(v, row, lo))
    return out


def standalone(t: str, value: float) -> E.Expr | None:
    """The constant a Python float stands for once rounded to type t, on its own (a hi word: a lo word means 0
    only beside its hi word), or None: how a scalar literal outside PTX — a float in a torch model — is read."""
    packing, word = ("<f", "<I") if t == ".f32" else ("<d", "<Q")
    try:
        entry = _words().get((t, struct.unpack(word, struct.pack(packing, value))[0]))
    except OverflowError:      # past float32's range: no constant
        return None
    return None if entry is None or entry.lo else entry.value


def literal_text(t: str, word: int) -> str:
    """`0f3FB8AA3B` / `0d3FF71547652B82FE`: how PTX spells the word."""
    return f"0f{word:08X}" if t == ".f32" else f"0d{word:016X}"


@dataclass
class Reading:
    """The named-constant reading of one program: `value(t, word)` is the constant a word stands for, or None.

    `his`: the rows whose hi word (any sign or 2^k multiple) is one of the program's float literals, for which
    lo words read as 0. `read`: what was read, (name, literal, lo) -> None, for the report."""

    his: frozenset
    read: dict = field(default_factory=dict)

    def is_lo(self, t: str, word: int) -> bool:
        """Is `word` a lo word this program reads as 0?"""
        entry = _words().get((t, _masked(t, word)))
        return entry is not None and entry.lo and entry.row.name in self.his

    def value(self, t: str, word: int) -> E.Expr | None:
        word = _masked(t, word)
        entry = _words().get((t, word))
        if entry is None or entry.lo and entry.row.name not in self.his:
            return None
        self.read.setdefault((entry.row.name, literal_text(t, word), entry.lo), None)
        return entry.value


def _masked(t: str, word: int) -> int:
    return word & 0xFFFFFFFF if t == ".f32" else word


def reading(literals) -> Reading:
    """The reading for a program whose float literals are `literals`, (type, word) pairs."""
    his = {e.row.name for key in literals if (e := _words().get(key)) is not None and not e.lo}
    return Reading(frozenset(his))


def constants_read(readings: dict) -> list:
    """What each side's reading read (role -> Reading, or None), one entry per constant, for the report:
    `{"name": "log2 e", "literals": ["0f3FB8AA3B", "lo 0f32A57060"], "roles": ["ref", "opt"]}`."""
    out: dict = {}
    for role, named in readings.items():
        for name, text, lo in (named.read if named is not None else ()):
            entry = out.setdefault(name, {"name": name, "literals": [], "roles": []})
            literal = f"lo {text}" if lo else text
            if literal not in entry["literals"]:
                entry["literals"].append(literal)
            if role not in entry["roles"]:
                entry["roles"].append(role)
    return list(out.values())
