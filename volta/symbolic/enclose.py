"""Certified enclosures of expression values, for counterexamples through irrational numbers.

A candidate counterexample of an RMSNorm or softmax pair usually has irrational outputs (sqrt 2, e^(1/2)):
exact evaluation (`evaluate`) cannot confirm it. Interval arithmetic can: every operation is evaluated on an
interval that provably contains the real value (mpmath's `iv`, outward rounding), and two outputs whose
intervals are disjoint certainly differ. A comparison or a division whose operands' intervals overlap the
decision boundary is undecided and raises `Inexact`, so nothing is ever claimed from an overlap.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from mpmath import iv  # mpmath ships with sympy, a dependency already
from mpmath.libmp import finf, fnan, fninf, to_rational

from volta.symbolic import expr as E
from volta.symbolic.constants import BaseValue
from volta.symbolic.evaluate import Inexact, Undefined, _run
from volta.symbolic.expr import Expr

PRECISIONS = (128, 512)  # bits: retried at the higher one when the lower leaves an overlap


@dataclass(frozen=True, eq=False)
class Enclosure:
    """A real value known to lie in [lo, hi] (exact rationals). `==` means *may be equal* (the intervals
    meet, or the other value lies inside), so `!=` is *certainly different*: the only claim a report makes."""

    lo: Fraction
    hi: Fraction

    def __eq__(self, other) -> bool:
        lo, hi = (other.lo, other.hi) if isinstance(other, Enclosure) else (other, other)
        if not isinstance(lo, (int, Fraction)):
            return NotImplemented
        return not (self.hi < lo or hi < self.lo)

    def __ne__(self, other) -> bool:
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    __hash__ = None

    def __str__(self) -> str:
        mid = (self.lo + self.hi) / 2
        width = float(self.hi - self.lo)
        return f"≈ {float(mid):.12g} (certified: within {width:.1e} of it)" if width else str(self.lo)


def _interval(value):
    if isinstance(value, bool):
        return value
    if type(value) is BaseValue:   # log2 e, π: enclosed at the current precision
        return value.interval()
    value = Fraction(value)
    return iv.mpf(value.numerator) / iv.mpf(value.denominator)


MAX_EXPONENT = 1 << 16   # binary exponent beyond which an endpoint is not turned into a rational (2^(2^40) would
                         # be a 2^40-bit integer: exp2 of a witness scaled to 3e38)


def _endpoints(x):
    """The exact rational endpoints of an interval; None when one is infinite or NaN, or too large or too
    small to write as a rational (its binary exponent beyond MAX_EXPONENT)."""
    lo, hi = x._mpi_
    if any(r in (finf, fninf, fnan) for r in (lo, hi)):
        return None
    if any(r[1] and abs(r[2] + r[3]) > MAX_EXPONENT for r in (lo, hi)):   # mpf tuples: (sign, man, exp, bc)
        return None
    return Fraction(*to_rational(lo)), Fraction(*to_rational(hi))


def _undecided(what: str):
    raise Inexact(f"{what} is undecided at this precision")


def _lt(a, b) -> bool:
    if a.b < b.a:
        return True
    if a.a >= b.b:
        return False
    _undecided("a comparison")


def _le(a, b) -> bool:
    if a.b <= b.a:
        return True
    if a.a > b.b:
        return False
    _undecided("a comparison")


def _eq(a, b) -> bool:
    if a.a == a.b == b.a == b.b:
        return True
    if a.b < b.a or b.b < a.a:
        return False
    _undecided("an equality")


def _div(a, b):
    if b.a == b.b == 0:
        raise Undefined("division by zero")
    if b.a <= 0 <= b.b:
        _undecided("a division by a value near 0")
    return a / b


def _sqrt(a):
    if a.b < 0:
        raise Undefined("sqrt of a negative value")
    if a.a < 0:
        _undecided("the sign of a sqrt argument")
    return iv.sqrt(a)


def _log2(a):
    if a.b <= 0:
        raise Undefined("lg2 of a value <= 0")
    if a.a <= 0:
        _undecided("the sign of a lg2 argument")
    return iv.log(a) / iv.log(iv.mpf(2))


def _rationals(a) -> tuple[Fraction, Fraction]:
    ends = _endpoints(a)
    if ends is None:
        _undecided("a step function of an unbounded value")
    return ends


def _floor_log2(a):
    """floor(log2 a) is exact when the whole interval lies between two consecutive powers of two."""
    lo, hi = _rationals(a)
    if hi <= 0:
        raise Undefined("floor_log2 of a value <= 0")
    k = E.exact_floor_log2(lo) if lo > 0 else None
    if k is None or k != E.exact_floor_log2(hi):
        _undecided("floor_log2 near a power of two")
    return iv.mpf(k)


def _rint(a, mode):
    """Rounding to an integer is exact when both ends of the interval round to the same integer."""
    lo, hi = _rationals(a)
    n = E.exact_rint(lo, mode)
    if n != E.exact_rint(hi, mode):
        _undecided("rounding to an integer near a rounding boundary")
    return iv.mpf(n)


def _hull_max(a, b):
    return iv.mpf([max(a.a, b.a), max(a.b, b.b)])


def _hull_min(a, b):
    return iv.mpf([min(a.a, b.a), min(a.b, b.b)])


def _tanh(a):
    return 1 - 2 / (iv.exp(2 * a) + 1)  # each step encloses, so the result encloses tanh


_INTERVAL = {
    E.ADD: lambda a, b: a + b,
    E.MUL: lambda a, b: a * b,
    E.DIV: _div,
    E.EXP2: lambda a: iv.exp(a * iv.log(iv.mpf(2))),
    E.MAX: _hull_max,
    E.MIN: _hull_min,
    E.ABS: abs,
    E.SELECT: lambda c, a, b: a if c else b,
    E.SQRT: _sqrt,
    E.RSQRT: lambda a: _div(iv.mpf(1), _sqrt(a)),
    E.RCP_APPROX: lambda a: _div(iv.mpf(1), a),
    E.TANH: _tanh,
    E.SIN: iv.sin,
    E.COS: iv.cos,
    E.LG2: _log2,
    E.FLOOR_LOG2: _floor_log2,
    E.RINT: _rint,
    E.LT: _lt,
    E.LE: _le,
    E.EQ: _eq,
    E.NE: lambda a, b: not _eq(a, b),
    E.AND: lambda a, b: a and b,
    E.OR: lambda a, b: a or b,
    E.NOT: lambda a: not a,
}


def enclose(root: Expr, env) -> Enclosure:
    """An enclosure of root's real value; raises Inexact (undecided even at the highest precision, or an
    uninterpreted function) or Undefined (outside the real domain for certain)."""
    err, saved = None, iv.prec
    try:
        for bits in PRECISIONS:
            iv.prec = bits
            try:
                x = _run(root, env, _INTERVAL, _interval, {}, None)
            except Inexact as e:
                err = e
                continue
            if isinstance(x, bool):
                raise Inexact("a boolean output")
            ends = _endpoints(x)
            if ends is None:
                err = Inexact("an unbounded enclosure")
                continue
            return Enclosure(*ends)
    finally:
        iv.prec = saved
    raise err
