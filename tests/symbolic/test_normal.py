"""Normal forms: known equalities, known inequalities, and value preservation (property test)."""
from fractions import Fraction as F

import pytest
from hypothesis import given, settings, strategies as st

from volta.symbolic import expr as E
from volta.symbolic.evaluate import EvalError, evaluate, evaluate_float
from volta.symbolic.normal import Normalizer, equal_exprs, normalize, to_expr

a, b, c, d = (E.var("v", i) for i in range(4))
m1, m2 = E.sym("m1"), E.sym("m2")
LOG2E = E.const(F(0x3FB8AA3B & 0x7FFFFF | 0x800000, 1 << 23))   # 0f3FB8AA3B, exactly


def test_known_equalities():
    assert equal_exprs((a + b) + c, a + (b + c))
    assert equal_exprs((a + b) * (a - b), a * a - b * b)
    assert equal_exprs(E.exp2(a) * E.exp2(b), E.exp2(a + b))
    assert equal_exprs(a / b * (b / a), E.ONE)
    assert equal_exprs(E.exp2(a - m1) * E.exp2(m1 - m2), E.exp2(a - m2))
    assert equal_exprs(E.exp2((a - m1) * LOG2E) * E.exp2((m1 - m2) * LOG2E), E.exp2((a - m2) * LOG2E))
    assert equal_exprs(a / E.exp2(b), a * E.exp2(-b))
    assert equal_exprs(E.exp2(F(1, 2)) * E.exp2(F(1, 2)), E.const(2))
    assert equal_exprs(E.exp2(a + 3), 8 * E.exp2(a))
    assert equal_exprs(a / b + c / d, (a * d + b * c) / (b * d))
    assert equal_exprs(1 / (1 / a), a)
    assert equal_exprs(E.maximum(a + b, c), E.maximum(c, b + a))
    assert equal_exprs(E.fma(a, b, c), c + b * a)


def test_known_inequalities():
    assert not equal_exprs(a + b, a + c)
    assert not equal_exprs(E.exp2(a) + E.exp2(b), E.exp2(a + b))
    assert not equal_exprs(E.exp2(F(1, 2)), E.const(F(3, 2)))
    assert not equal_exprs(a / b, b / a)
    assert not equal_exprs(E.maximum(a, b), a)


def test_softmax_rescale_chain():
    """Online softmax: running sum rescaled by 2^(m_old - m_new) equals the direct sum."""
    xs = [E.var("x", i) for i in range(8)]
    ms = [E.sym(f"m{i}") for i in range(8)]
    acc = E.ZERO
    for i, x in enumerate(xs):
        old = ms[i - 1] if i else ms[0]
        acc = acc * E.exp2(old - ms[i]) + E.exp2(x - ms[i])
    direct = E.add_all(E.exp2(x - ms[-1]) for x in xs)
    assert equal_exprs(acc, direct)


def test_large_sum_shares_work():
    n = Normalizer()
    terms = [E.var("r", i) * E.var("s", i) for i in range(1024)]
    fwd, bwd = E.add_all(terms), E.add_all(reversed(terms))
    assert len(n(fwd).num) == 1024
    assert equal_exprs(fwd, bwd, n)


# ---------------------------------------------------------------- property: value preserved

LEAVES = [a, b, c, E.sym("s")]


def trees():
    leaf = st.one_of(st.sampled_from(LEAVES),
                     st.fractions(min_value=-4, max_value=4, max_denominator=4).map(E.const))

    def extend(sub):
        binary = st.sampled_from([E.add, E.sub, E.mul, E.div, E.maximum, E.minimum])
        return st.one_of(
            st.tuples(binary, sub, sub).map(lambda t: t[0](t[1], t[2])),
            sub.map(lambda s: E.exp2(E.mul(s, 0))),   # an exp2 that evaluates exactly
            st.tuples(sub, sub, sub).map(lambda t: E.select(E.lt(t[0], t[1]), t[2], t[0])),
            sub.map(E.absolute),
        )
    return st.recursive(leaf, extend, max_leaves=12)


values = st.fractions(min_value=-5, max_value=5, max_denominator=7)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(trees(), st.lists(values, min_size=4, max_size=4))
def test_normalization_preserves_value(tree, vals):
    env = dict(zip(LEAVES, vals))
    try:
        before = evaluate(tree, env)
    except EvalError:
        return
    after = evaluate(to_expr(normalize(tree)), env)   # defined wherever the original is
    assert before == after


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(LEAVES), st.integers(-3, 3)), min_size=1, max_size=6),
       st.lists(values, min_size=4, max_size=4))
def test_exp2_of_integer_polynomials_preserved(pairs, vals):
    env = dict(zip(LEAVES, [F(round(v)) for v in vals]))
    tree = E.ONE
    for leaf, k in pairs:
        tree = tree * E.exp2(leaf * k) + leaf
    assert evaluate(tree, env) == evaluate(to_expr(normalize(tree)), env)


def test_select_common_terms_leave_the_select():
    """Rule select-common: `if (c) s += p` (c ? s + p : s) and `s += c ? p : 0` have one normal form, in any
    order of conditional additions; arms without common terms, and other conditions, stay apart."""
    c1, c2 = E.lt(E.ZERO, a), E.lt(E.ZERO, b)
    s = c * d
    branchy = E.select(c2, E.select(c1, s + a, s) + b, E.select(c1, s + a, s))
    summed = s + E.select(c2, b, E.ZERO) + E.select(c1, a, E.ZERO)
    assert equal_exprs(branchy, summed)
    assert equal_exprs(E.select(E.logical_not(c1), s, s + a), s + E.select(c1, a, E.ZERO))   # select-not
    assert not equal_exprs(E.select(c1, s + a, s), s + E.select(c2, a, E.ZERO))
    assert not equal_exprs(E.select(c1, s + a, s), s + E.select(c1, b, E.ZERO))
    assert equal_exprs(E.select(E.lt(b, a), a + s, b + s), E.maximum(a, b) + s)
    assert equal_exprs(E.maximum(s + a, s), s + E.maximum(a, E.ZERO))
    assert equal_exprs(E.select(c1, s + a, s), E.maximum(s + a, s))   # `if (a > 0) s += a` is fmaxf(s + a, s)


@given(st.sampled_from([-2, -1, 0, 1, 3]), st.sampled_from([-1, 0, 2]), st.sampled_from([-3, 1, 5]))
def test_select_common_preserves_value(x, y, z):
    env = {a: F(x), b: F(y), c: F(z)}
    e = E.select(E.lt(b, a), a * c + b, c * a + E.const(2))
    assert evaluate(to_expr(normalize(e)), env) == evaluate(e, env)


def test_negated_comparisons_are_one_condition():
    """Rules not-compare and select-polarity: !(a <= 0) is 0 < a, d <= 0 ? x : y is -d < 0 ? y : x; a
    comparison that folds to a constant is negated as a constant (not(0 < 0) is true)."""
    p = a * b
    assert equal_exprs(E.select(E.le(a, E.ZERO), E.ZERO, p), E.select(E.lt(E.ZERO, a), p, E.ZERO))
    assert equal_exprs(E.select(E.logical_not(E.le(a, E.ZERO)), p, E.ZERO), E.select(E.lt(E.ZERO, a), p, E.ZERO))
    assert equal_exprs(E.select(E.eq(a, b), c, d), E.select(E.ne(b, a), d, c))
    assert not equal_exprs(E.select(E.le(a, E.ZERO), E.ZERO, c), E.select(E.le(E.ZERO, a), c, E.ZERO))  # a = 0
    zero_lt_zero = E.lt(a - a, E.ZERO)
    n = Normalizer()
    assert n.normalize_bool(E.logical_not(zero_lt_zero)) is E.TRUE


@given(st.sampled_from([-2, -1, 0, 1, 3]), st.sampled_from([-1, 0, 2]))
def test_polarity_preserves_value(x, y):
    env = {a: F(x), b: F(y), c: F(5), d: F(7)}
    for e in (E.select(E.le(a, b), c, d), E.select(E.logical_not(E.lt(a, b)), c, d),
              E.select(E.eq(a, b), c, d), E.select(E.logical_not(E.ne(a, b)), c * a, d)):
        assert evaluate(to_expr(normalize(e)), env) == evaluate(e, env)


# ---------------------------------------------------------------- p_mul over integers (_p_mul_scaled)

_COEFFS = st.one_of(st.integers(-9, 9).filter(bool), st.fractions(max_denominator=70).filter(bool))


@st.composite
def _polys(draw):
    """Polynomials over three leaves with exponent parts 2^(x/2), 2^(-3/4): products carry powers of two out."""
    from volta.symbolic import normal as N
    exps = [0, N._intern_exponent({((( "e", 1),), 0): F(1, 2)})[0], N._intern_exponent({N.UNIT: F(-3, 4)})[0]]
    p = {}
    for _ in range(draw(st.integers(1, 12))):
        factors = tuple(sorted(draw(st.dictionaries(st.sampled_from(["a", "b", "c"]), st.integers(1, 2), max_size=2)).items()))
        m = (factors, draw(st.sampled_from(exps)))
        p[m] = p.get(m, 0) + draw(_COEFFS)
    return {m: c for m, c in p.items() if c}


@pytest.mark.slow   # 200 examples of products of up to 12 terms: 5.8 CPU s
@settings(max_examples=200, deadline=None)
@given(_polys(), _polys())
def test_p_mul_over_integers_is_the_term_by_term_product(p, q):
    from volta.symbolic import normal as N
    expected = {}
    for m1, c1 in p.items():
        for m2, c2 in q.items():
            m, k = N.mono_mul(m1, m2)
            expected[m] = expected.get(m, 0) + N._pow2(c1 * c2, k)
    expected = {m: c for m, c in expected.items() if c}
    assert N._p_mul_scaled(p, q) == expected
    assert all(type(c) is int or c.denominator != 1 for c in N._p_mul_scaled(p, q).values())


# ---------------------------------------------------------------- ratios scaled by their lead (_lead_free)

def _attention_row(shift, n=6, extra=E.ZERO):
    """sum_k 2^(s_k - shift)·v_k / sum_k 2^(s_k - shift) (+ extra in the numerator)."""
    s = [E.var("s", k) * LOG2E + E.var("t", k) for k in range(n)]
    num = E.add_all(E.exp2(x - shift) * E.var("w", k) for k, x in enumerate(s)) + extra
    return num / E.add_all(E.exp2(x - shift) for x in s)


def test_ratios_shifted_by_an_exponential_compare_without_cross_multiplying(monkeypatch):
    """Attention's sum_k 2^(s_k)·v_k / sum_k 2^(s_k) against online softmax's 2^(s_k - m) form: equal once both
    are divided by their denominator's lead; a numerator that differs by one term stays unequal."""
    from volta.symbolic import normal as N
    n = Normalizer()
    plain, shifted = n(_attention_row(E.ZERO)), n(_attention_row(E.maximum(m1, m2) * LOG2E + F(3, 4)))
    assert plain.den != shifted.den
    assert N._lead_free(plain).den == N._lead_free(shifted).den
    monkeypatch.setattr(N, "p_mul", _no_cross_multiplying(N.p_mul))
    assert N.equal(plain, shifted)
    assert not N.equal(plain, n(_attention_row(m1, extra=E.var("w", 0))))


def _no_cross_multiplying(p_mul):
    def guarded(p, q):
        assert min(len(p), len(q)) == 1, "cross-multiplied two sums"
        return p_mul(p, q)
    return guarded


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(-3, 3), min_size=3, max_size=3), st.integers(-4, 4), st.fractions(F(-3), F(3)),
       st.sampled_from([1, -1, F(3, 7), 12]))
def test_lead_free_keeps_the_value(coeffs, shift, const, scale):
    from volta.symbolic import normal as N
    den = E.add_all(E.const(c or 1) * E.exp2(E.var("s", k) * (k + 1) + const) for k, c in enumerate(coeffs))
    nf = normalize((E.var("w", 0) + E.exp2(a * shift)) / (E.const(scale) * E.exp2(a * shift) * den))
    env = {E.var("s", k): (k - 1) / 2 for k in range(3)} | {E.var("w", 0): 5 / 3, a: 1.0}
    before = evaluate_float(to_expr(nf), env)
    assert evaluate_float(to_expr(N._lead_free(nf)), env) == pytest.approx(before, rel=1e-12)


@given(lo=st.integers(-8, 8), width=st.integers(-3, 8), x=st.fractions(-20, 20), y=st.fractions(-20, 20))
@settings(max_examples=60, deadline=None)
def test_a_clamp_has_one_normal_form_in_either_order(lo, width, x, y):
    """max(min(v, hi), lo) and min(max(v, lo), hi) are one function for constants lo <= hi (rule clamp-order:
    hardswish and relu6 kernels write the first, torch's clamp the second), and different where lo > hi; the
    normal form keeps the value either way (v a sum, or itself a min chain; v's constant term is no bound, else
    rule max-common takes it out of one side first)."""
    hi = lo + width
    for v in (a + F(1, 3), E.minimum(a, b)):
        min_inside = E.maximum(E.minimum(v, E.const(hi)), E.const(lo))
        max_inside = E.minimum(E.maximum(v, E.const(lo)), E.const(hi))
        assert equal_exprs(min_inside, max_inside) == (lo <= hi)
        point = {a: x, b: y}
        assert evaluate(to_expr(normalize(min_inside)), point) == evaluate(min_inside, point)
