"""volta/semantics/intervals.py: every bound holds (the value at any point of the operands' intervals lies in the
result's), and the exp range reduction's clamp of coshf/erfcf is bounded as those kernels need."""
import math
from fractions import Fraction

import pytest
from hypothesis import given, settings, strategies as st

from volta.semantics import intervals, realops
from volta.symbolic import expr as E
from volta.symbolic.evaluate import evaluate

small = st.fractions(min_value=-50, max_value=50, max_denominator=16)


@st.composite
def interval_and_point(draw):
    """(lo, hi) with None for an unbounded side, and a point inside."""
    a, b = sorted((draw(small), draw(small)))
    x = draw(st.fractions(min_value=a, max_value=b, max_denominator=16))
    lo = None if draw(st.booleans()) and draw(st.booleans()) else a
    hi = None if draw(st.booleans()) and draw(st.booleans()) else b
    if lo is None:   # an unbounded side may hold points beyond the drawn end
        x -= draw(st.integers(0, 100))
    if hi is None:
        x += draw(st.integers(0, 100))
    return (lo, hi), x


def inside(v, bounds) -> bool:
    lo, hi = bounds
    return (lo is None or lo <= v) and (hi is None or v <= hi)


@pytest.mark.slow   # 400 examples: 3.5 CPU s
@settings(max_examples=400, deadline=None)
@given(interval_and_point(), interval_and_point())
def test_products_abs_and_rints_hold(p, q):
    (a, x), (b, y) = p, q
    assert inside(x * y, intervals.mul(a, b))
    assert inside(abs(x), intervals.absolute(a))
    for rounded in (math.floor(x), math.ceil(x), math.trunc(x), round(x)):
        assert inside(rounded, intervals.rint(a))


def test_a_square_of_unbounded_values_is_not_negative():
    assert intervals.mul((Fraction(0), None), (Fraction(0), None)) == (0, None)
    assert intervals.mul((None, Fraction(0)), (Fraction(2), None)) == (None, 0)
    assert intervals.mul((None, None), (Fraction(0), Fraction(0))) == (0, 0)


def _clamp(j):
    """`|j| > 126 ? copysign(126, j) : j`, as the machine builds it from setp/copysign/selp."""
    return E.select(E.lt(E.const(126), E.absolute(j)), E.select(E.lt(j, E.ZERO), E.const(-126), E.const(126)), j)


def test_the_clamp_of_an_exp_range_reduction():
    x = E.var("x", 0)
    log2e = E.const(Fraction(12102203, 8388608))
    cosh_j = E.rint(E.mul(E.absolute(x), log2e), ".rzi")                               # coshf: j >= 0
    erfc_j = E.rint(E.mul(log2e, E.neg(E.mul(E.absolute(x), E.absolute(x)))), ".rzi")   # erfcf: j <= 0
    assert realops.bounds(_clamp(cosh_j)) == (0, 126)
    # j <= 0 does not decide `j < 0` (j may be 0): the clamp's constant side is ±126, which still puts 127 + j
    # in the normal exponent range [1, 254]
    assert realops.bounds(_clamp(erfc_j)) == (-126, 126)
    assert realops.bounds(_clamp(E.rint(x, ".rzi"))) == (-126, 126)
    assert realops.bounds(E.rint(x, ".rzi")) == (None, None)


@settings(max_examples=300, deadline=None)
@given(st.fractions(min_value=-400, max_value=400, max_denominator=64), st.integers(-3, 3))
def test_selects_hold_at_every_point(v, k):
    """Evaluated at a point, each select lies within its bounds (the refined sides included)."""
    x = E.var("x", 0)
    j = E.rint(E.mul(E.absolute(x), E.const(3)), ".rzi") if k % 2 else E.rint(x, ".rni")
    exprs = [_clamp(j), _clamp(E.neg(j)), E.select(E.le(x, E.const(k)), x, E.const(k)),
             E.select(E.lt(E.const(k), x), E.neg(x), x)]
    for e in exprs:
        assert inside(evaluate(e, {x: v}), realops.bounds(e)), (E.to_str(e), v)


@settings(max_examples=200)
@given(interval_and_point(), interval_and_point())
def test_divide_bounds_every_quotient(a, b):
    (ia, x), (ib, y) = a, b
    if y != 0:
        assert inside(x / y, intervals.divide(ia, ib))


@settings(max_examples=200)
@given(interval_and_point())
def test_sqrt_bounds_every_root(a):
    ia, x = a
    lo, hi = intervals.sqrt(ia)
    if x >= 0 and lo is not None:
        assert lo * lo <= x and (hi is None or x <= hi * hi)
