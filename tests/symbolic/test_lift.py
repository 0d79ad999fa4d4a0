"""Selects on one condition fused (lift.py, rule select-lift), the merge of two (max, sum) pairs rescaled as one
(rule select-rescale-exp), and min(−a, −b) kept as −max(a, b) (rules min-neg, max-neg).

The online softmax whose merge picks the bigger pair and the smaller one whole on one comparison — cub and
cooperative-groups reductions with a struct operator — meets the three-pass sum; a merge that rescales the wrong
sum does not, and a division over selects keeps its own domain."""
from fractions import Fraction as F

from hypothesis import given, settings, strategies as st

from volta.symbolic import expr as E
from volta.symbolic.evaluate import EvalError, evaluate
from volta.symbolic.lift import lift_selects, lifted_equal
from volta.symbolic.normal import Normalizer, equal_exprs

L = E.sym("log2(e)")
X = [E.var("x", i) for i in range(8)]


def _merge(a, b, rescale_bigger=False):
    """(m, s) of two pairs merged as a record: one comparison picks the bigger and the smaller pair whole (one
    select per field, as `selp` leaves them), the smaller's sum rescaled to the bigger max."""
    (am, as_), (bm, bs) = a, b
    a_bigger = E.lt(bm, am)
    big_m, big_s = E.select(a_bigger, am, bm), E.select(a_bigger, as_, bs)
    small_m, small_s = E.select(a_bigger, bm, am), E.select(a_bigger, bs, as_)
    rescale = E.exp2(E.mul(L, E.sub(small_m, big_m)))
    s = E.add(small_s, E.mul(big_s, rescale)) if rescale_bigger else E.add(big_s, E.mul(small_s, rescale))
    return big_m, s


def _tree(xs, rescale_bigger=False):
    pairs = [(x, E.ONE) for x in xs]
    while len(pairs) > 1:
        pairs = [_merge(pairs[i], pairs[i + 1], rescale_bigger) for i in range(0, len(pairs), 2)]
    return pairs[0]


def _three_pass(xs):
    top = xs[0]
    for x in xs[1:]:
        top = E.maximum(top, x)
    return top, E.add_all(E.exp2(E.mul(L, E.sub(x, top))) for x in xs)


def test_a_record_merged_tree_is_the_three_pass_softmax():
    (m, s), (top, total) = _tree(X), _three_pass(X)
    y = X[3]
    online = E.div(E.exp2(E.mul(L, E.sub(y, m))), s)
    reference = E.div(E.exp2(E.mul(L, E.sub(y, top))), total)
    assert not equal_exprs(online, reference)          # each select alone is no function at max or min
    assert lifted_equal(online, reference, Normalizer())
    assert lifted_equal(s, total) and lifted_equal(m, top) is False   # m has nothing to fuse: equal already
    assert equal_exprs(m, top)


def test_a_merge_that_rescales_the_bigger_sum_is_not_proved():
    (_, s), (_, total) = _tree(X[:4], rescale_bigger=True), _three_pass(X[:4])
    assert not lifted_equal(s, total)


def test_subtracting_a_max_and_adding_the_min_of_negations_are_one_normal_form():
    a, b, c = X[:3]
    assert equal_exprs(E.sub(c, E.maximum(a, b)), E.add(c, E.minimum(E.neg(a), E.neg(b))))
    assert equal_exprs(E.maximum(E.neg(a), E.const(3)), E.neg(E.minimum(a, E.const(-3))))
    assert not equal_exprs(E.sub(c, E.maximum(a, b)), E.add(c, E.maximum(E.neg(a), E.neg(b))))


def test_a_division_over_selects_is_not_lifted():
    p = E.lt(X[0], X[1])
    q = E.div(E.select(p, X[2], X[3]), E.select(p, X[4], X[5]))
    assert lift_selects(q) is q
    total = E.add(E.select(p, X[2], X[3]), E.select(p, X[4], E.const(2)))
    lifted = lift_selects(total)
    assert lifted.op is E.SELECT and lifted.args[0] is p


# ---- the lift keeps every value: random expressions over selects on two conditions, at random rationals

_LEAVES = X[:4] + [E.const(2), E.const(F(-1, 3)), L]
_CONDS = [E.lt(X[0], X[1]), E.le(X[2], E.const(1))]


def _expressions():
    def extend(children):
        return st.one_of(
            st.tuples(st.sampled_from([E.add, E.mul, E.maximum, E.minimum]), children, children).map(
                lambda t: t[0](t[1], t[2])),
            st.tuples(st.sampled_from(_CONDS), children, children).map(lambda t: E.select(*t)),
            children.map(E.neg),
        )
    return st.recursive(st.sampled_from(_LEAVES), extend, max_leaves=12)


_RATIONALS = st.fractions(min_value=-4, max_value=4, max_denominator=7)


@settings(max_examples=150, deadline=None)
@given(_expressions(), st.lists(_RATIONALS, min_size=4, max_size=4), _RATIONALS.filter(lambda v: v > 0))
def test_lifting_keeps_the_value(root, values, log2e):
    env = {**{x: v for x, v in zip(X, values)}, L: log2e}
    try:
        expected = evaluate(root, env)
    except EvalError:
        return
    assert evaluate(lift_selects(root), env) == expected
