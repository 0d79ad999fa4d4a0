"""Rules select-max-through and select-min-through: `u < w ? F(w) : F(u)` is F(max(u, w)) for a total F.

The online softmax written with a branch (`if (v > m) { d *= exp(m - v); m = v; } d += exp(v - m)`) meets
the three-pass sum; arms that are not F at the two arguments, and partial arms, keep their select."""
from fractions import Fraction as F

from hypothesis import given, settings, strategies as st

from volta.symbolic import expr as E
from volta.symbolic.evaluate import EvalError, evaluate
from volta.symbolic.normal import Normalizer, equal_exprs, normalize, to_expr

C = E.const(F(0x3FB8AA3B & 0x7FFFFF | 0x800000, 1 << 23))   # log2 e as __expf rounds it
a, b, s = E.var("st", 0), E.var("st", 1), E.var("st", 2)


def _branchy_online(xs, forget_rescale=False):
    """The branchy online normalizer over xs, as if-conversion leaves it: selects on `m < v`."""
    m, d = xs[0], E.ONE
    for v in xs[1:]:
        taken = E.lt(m, v)
        rescaled = d if forget_rescale else E.mul(d, E.exp2(E.mul(E.sub(m, v), C)))
        d = E.select(taken, rescaled, d)
        m = E.select(taken, v, m)
        d = E.add(d, E.exp2(E.mul(E.sub(v, m), C)))
    return d, m


def _three_pass(xs):
    m = xs[0]
    for v in xs[1:]:
        m = E.maximum(m, v)
    return E.add_all(E.exp2(E.mul(E.sub(v, m), C)) for v in xs), m


def test_branchy_online_sum_is_the_three_pass_sum():
    xs = [E.var("x", i) for i in range(24)]
    (d, m), (total, top) = _branchy_online(xs), _three_pass(xs)
    assert equal_exprs(m, top)
    assert equal_exprs(d, total)
    y = E.var("x", 5)
    assert equal_exprs(E.div(E.exp2(E.mul(E.sub(y, m), C)), d), E.div(E.exp2(E.mul(E.sub(y, top), C)), total))


def test_forgotten_rescale_is_not_the_sum():
    xs = [E.var("x", i) for i in range(6)]
    assert not equal_exprs(_branchy_online(xs, forget_rescale=True)[0], _three_pass(xs)[0])


def test_the_four_shapes():
    f = lambda t: E.add(E.mul(s, E.exp2(t)), E.mul(t, t))   # noqa: E731  a total F
    assert equal_exprs(E.select(E.lt(a, b), f(b), f(a)), f(E.maximum(a, b)))
    assert equal_exprs(E.select(E.lt(a, b), f(a), f(b)), f(E.minimum(a, b)))
    assert equal_exprs(E.select(E.le(a, b), f(b), f(a)), f(E.maximum(a, b)))
    assert equal_exprs(E.select(E.lt(a, E.const(3)), f(E.const(3)), f(a)), f(E.maximum(a, E.const(3))))
    # not F at the two arguments: the select stays
    assert not equal_exprs(E.select(E.lt(a, b), f(b), E.add(f(a), E.ONE)), f(E.maximum(a, b)))


def test_partial_arms_keep_their_select():
    """1/(w - 1) at w = u may be undefined where the select takes the other arm: not rewritten."""
    g = lambda t: E.div(E.ONE, E.sub(t, E.const(1)))   # noqa: E731
    e = E.select(E.lt(a, b), g(b), g(a))
    assert not equal_exprs(e, g(E.maximum(a, b)))


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(["lt", "le"]), st.booleans(), st.lists(st.integers(-3, 3), min_size=3, max_size=3))
def test_value_preserved(kind, swap, point):
    cond = (E.lt if kind == "lt" else E.le)(a, b)
    f = lambda t: E.add(E.mul(s, t), E.mul(t, t))   # noqa: E731
    e = E.select(cond, f(a), f(b)) if swap else E.select(cond, f(b), f(a))
    env = {a: F(point[0]), b: F(point[1]), s: F(point[2])}
    try:
        want = evaluate(e, env)
    except EvalError:
        return
    assert evaluate(to_expr(normalize(e, Normalizer())), env) == want
