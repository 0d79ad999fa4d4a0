"""A sum of exponentials c·2^p with coefficients of one sign is never 0 and has their sign (rules cmp-pos-factor,
ne-pos-factor, pos-sum, exp2-pos): a softmax's `expsum == 0 ? 0 : 1/expsum` guard resolves, which left llm.c's
three-kernel attention against its flash kernel UNKNOWN. A difference of exponentials, or one with a leaf
factor, has no known sign and stays a condition."""
from __future__ import annotations

from hypothesis import given, settings, strategies as st

from volta.symbolic import expr as E
from volta.symbolic.normal import Normalizer, equal_exprs

x, y, v = E.var("x", 0), E.var("y", 0), E.var("v", 0)
ex, ey = E.exp2(x), E.exp2(y)


def _guarded(total):
    """v · (total != 0 ? 1/total : 0), as the softmax writes it."""
    return v * E.select(E.ne(total, E.ZERO), E.div(E.ONE, total), E.ZERO)


def test_a_sum_of_exponentials_is_never_zero():
    total = ex + ey
    assert equal_exprs(_guarded(total), E.div(v, total), Normalizer())
    assert equal_exprs(_guarded(E.const(-3) * total), E.div(v, E.const(-3) * total), Normalizer())


def test_comparisons_of_one_signed_exponentials_fold_to_their_sign():
    norm = Normalizer()
    assert norm.normalize_bool(E.lt(E.ZERO, ex + E.const(2) * ey)) is E.TRUE
    assert norm.normalize_bool(E.lt(E.neg(ex) - ey, E.ZERO)) is E.TRUE
    assert norm.normalize_bool(E.eq(E.div(ex, ey + ex), E.ZERO)) is E.FALSE
    assert norm.normalize_bool(E.le(ex, E.ZERO)) is E.FALSE


def test_a_difference_or_a_leaf_factor_keeps_the_condition():
    norm = Normalizer()
    for total in (ex - ey, v * ex, ex + E.ONE - E.ONE - ey):
        assert norm.normalize_bool(E.ne(total, E.ZERO)) not in (E.TRUE, E.FALSE)
    assert not equal_exprs(_guarded(ex - ey), E.div(v, ex - ey), Normalizer())


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(-4, 4).filter(bool), st.integers(-3, 3)), min_size=1, max_size=4))
def test_the_folded_sign_is_the_value_sign(terms):
    # sum of c·2^(k·x) at x = 1/2: the fold, where it happens, says what exact evaluation says
    total = E.ZERO
    for c, k in terms:
        total = total + E.const(c) * E.exp2(E.const(k) * x)
    folded = Normalizer().normalize_bool(E.lt(total, E.ZERO))
    value = sum(c * 2.0 ** (k * 0.5) for c, k in terms)
    if folded is E.TRUE:
        assert value < 0
    elif folded is E.FALSE:
        assert value >= 0
