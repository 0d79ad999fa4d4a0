"""Certified enclosures: they contain the real value, `!=` only when disjoint, overlaps never decide."""
from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from volta.symbolic import expr as E
from volta.symbolic.enclose import Enclosure, enclose
from volta.symbolic.evaluate import Inexact, Undefined, evaluate
from volta.symbolic.search import random_search, values_at

X, Y = E.var("x", 0), E.var("x", 1)
rationals = st.fractions(min_value=-50, max_value=50, max_denominator=64)
positive = st.fractions(min_value=Fraction(1, 64), max_value=100, max_denominator=64)


def _rational_expr(draw, depth):
    if depth == 0 or draw(st.booleans()):
        return draw(st.sampled_from([X, Y, E.const(draw(rationals))]))
    op = draw(st.sampled_from([E.add, E.mul, E.sub, E.maximum, E.minimum]))
    return op(_rational_expr(draw, depth - 1), _rational_expr(draw, depth - 1))


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(st.data(), rationals, rationals)
def test_rational_values_are_enclosed(data, x, y):
    root = _rational_expr(data.draw, 4)
    env = {X: x, Y: y}
    exact = evaluate(root, env)
    box = enclose(root, env)
    assert box.lo <= exact <= box.hi
    assert box == exact and not box != exact


@settings(max_examples=200, deadline=None)
@given(positive)
def test_sqrt_enclosure_brackets_the_root(x):
    box = enclose(E.sqrt(X), {X: x})
    assert box.lo ** 2 <= x <= box.hi ** 2
    assert box.hi - box.lo < Fraction(1, 10 ** 30)


@settings(max_examples=100, deadline=None)
@given(st.integers(-20, 20), st.integers(1, 7))
def test_exp2_enclosure_brackets_the_power(p, q):
    box = enclose(E.exp2(E.const(Fraction(p, q))), {})
    assert box.lo > 0 and box.lo ** q <= Fraction(2) ** p <= box.hi ** q


def test_disjoint_means_certainly_different():
    near = Enclosure(Fraction(1), Fraction(2))
    assert near != Enclosure(Fraction(3), Fraction(4)) and near != Fraction(5, 2)
    assert near == Enclosure(Fraction(2), Fraction(3))      # they meet at 2: may be equal
    assert near == Fraction(3, 2) and not near != Fraction(3, 2)
    assert near != "untouched"


def test_an_overlapping_comparison_is_undecided_never_guessed():
    two = E.const(Fraction(2))
    # 3*sqrt(2) and sqrt(2) + sqrt(8) are the same real number: no precision separates them
    three_root2 = E.mul(E.const(Fraction(3)), E.sqrt(two))
    other = E.add(E.sqrt(two), E.sqrt(E.const(Fraction(8))))
    with pytest.raises(Inexact):
        enclose(E.select(E.lt(three_root2, other), X, Y), {X: Fraction(1), Y: Fraction(0)})
    a, b = values_at(three_root2, other, {})
    assert not a != b   # equal reals are never reported as different


def test_undefined_is_not_enclosed():
    with pytest.raises(Undefined):
        enclose(E.sqrt(X), {X: Fraction(-1)})
    with pytest.raises(Undefined):
        enclose(E.div(Y, X), {X: Fraction(0), Y: Fraction(1)})


def test_random_search_confirms_through_irrational_values():
    # RMSNorm-shaped: x / sqrt(x^2 + eps) vs x / (sqrt(x^2) + eps); exact evaluation fails at sqrt
    eps = E.const(Fraction(1, 1000))
    ref = E.div(X, E.sqrt(E.add(E.mul(X, X), eps)))
    opt = E.div(X, E.add(E.sqrt(E.mul(X, X)), eps))
    found = random_search(ref, opt, [X], tries=20)
    assert found is not None and found.confirmed
    va, vb = found.values
    assert va != vb
    assert random_search(ref, ref, [X], tries=20) is None
