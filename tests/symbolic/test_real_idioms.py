"""Normal forms for the real-number idioms of ML kernels: max/min written as selects, sqrt/rsqrt,
and the exponent-field construction of full-precision expf. Every rewrite must keep the value
(hypothesis, exact evaluation on random rationals) and must not identify different functions
(mutants that must NOT be proved equal)."""
from fractions import Fraction as F

from hypothesis import given, settings
from hypothesis import strategies as st

from volta.errors import Unsupported
from volta.semantics import realops
from volta.symbolic import expr as E
from volta.symbolic.cases import decide_by_cases
from volta.symbolic.evaluate import EvalError, evaluate
from volta.symbolic.normal import Normalizer, equal_exprs, normalize, to_expr
from volta.symbolic.verdict import Proved
from volta.symbolic.z3bridge import decide_equal

X = [E.var("x", i) for i in range(4)]
a, b, c, d = X

# ---- random expressions: the normalizer's output has the input's value wherever both are defined

_leaf = st.one_of(st.sampled_from(X), st.integers(-3, 3).map(E.const),
                  st.fractions(F(-2), F(2), max_denominator=4).map(E.const))


def _extend(children):
    two = st.tuples(children, children)
    cmp = st.sampled_from([E.lt, E.le, E.gt, E.ge, E.eq, E.ne])
    return st.one_of(
        two.map(lambda t: E.add(*t)), two.map(lambda t: E.mul(*t)), two.map(lambda t: E.sub(*t)),
        two.map(lambda t: E.maximum(*t)), two.map(lambda t: E.minimum(*t)),
        st.tuples(cmp, children, children, st.booleans()).map(
            lambda t: E.select(t[0](t[1], t[2]), *((t[1], t[2]) if t[3] else (t[2], t[1])))),
        st.tuples(cmp, children, children, children, children).map(
            lambda t: E.select(t[0](t[1], t[2]), t[3], t[4])),
        st.tuples(cmp, children, children).map(lambda t: E.select(E.logical_not(t[0](t[1], t[2])), t[1], t[2])),
        children.map(lambda x: E.sqrt(E.mul(x, x))), children.map(lambda x: E.rsqrt(E.add(E.mul(x, x), 1))),
        two.map(lambda t: E.mul(E.sqrt(E.add(E.mul(t[0], t[0]), 4)), E.sqrt(E.add(E.mul(t[0], t[0]), 4)))),
        two.map(lambda t: E.div(*t)),
    )


EXPRS = st.recursive(_leaf, _extend, max_leaves=10)
POINTS = st.lists(st.sampled_from([F(v) for v in (-3, -2, -1, 0, 1, 2, 3)] + [F(1, 2), F(-3, 2), F(4, 3)]),
                  min_size=4, max_size=4)


@settings(max_examples=300, deadline=None)
@given(EXPRS, POINTS)
def test_normal_form_keeps_the_value(e, point):
    env = dict(zip(X, point))
    try:
        want = evaluate(e, env)
    except EvalError:
        return
    try:
        nf = normalize(e, Normalizer())
    except Unsupported:   # a division by a constant zero: refused, never normalized
        return
    got = evaluate(to_expr(nf), env)   # defined wherever e is
    assert got == want


@settings(max_examples=150, deadline=None)
@given(EXPRS, EXPRS, POINTS)
def test_case_split_never_proves_a_difference(e1, e2, point):
    if decide_by_cases(e1, e2) is None:
        return
    env = dict(zip(X, point))
    try:
        v1, v2 = evaluate(e1, env), evaluate(e2, env)
    except EvalError:
        return
    assert v1 == v2


# ---- max/min as selects

def test_select_of_its_own_comparison_is_max_or_min():
    mx, mn = E.maximum(a, b), E.minimum(a, b)
    for e in (E.select(E.gt(a, b), a, b), E.select(E.ge(a, b), a, b), E.select(E.lt(a, b), b, a),
              E.select(E.le(a, b), b, a), E.select(E.logical_not(E.le(a, b)), a, b)):
        assert equal_exprs(e, mx), e
    for e in (E.select(E.lt(a, b), a, b), E.select(E.le(a, b), a, b), E.select(E.gt(a, b), b, a)):
        assert equal_exprs(e, mn), e
    assert equal_exprs(E.select(E.eq(a, b), a, b), b)
    assert equal_exprs(E.select(E.ne(a, b), a, b), a)
    assert equal_exprs(E.select(E.gt(a + 1, b), a + 1, b), E.maximum(b, 1 + a))


def test_max_chains_in_any_order_and_with_duplicates():
    assert equal_exprs(E.maximum(E.maximum(a, b), c), E.maximum(c, E.maximum(b, a)))
    assert equal_exprs(E.maximum(E.maximum(a, b), E.maximum(b, c)), E.maximum(a, E.maximum(b, c)))
    assert equal_exprs(E.minimum(E.minimum(a, 3), E.minimum(b, 2)), E.minimum(E.minimum(a, b), 2))
    assert equal_exprs(E.maximum(E.maximum(a, 3), E.maximum(b, 2)), E.maximum(E.maximum(a, b), 3))


def test_max_min_identities_by_case_split():
    assert decide_by_cases(E.maximum(a, b) + E.minimum(a, b), a + b) == Proved("case-split")
    assert decide_by_cases(E.maximum(a, b) * E.minimum(a, b), a * b) == Proved("case-split")
    assert decide_by_cases(E.maximum(E.minimum(a, b), c),
                           E.minimum(E.maximum(a, c), E.maximum(b, c))) == Proved("case-split")
    assert decide_by_cases(E.maximum(a, a + 1), a + 1) == Proved("case-split")
    # orders of {a, b, a-b, b-a} whose strict form no point satisfies (b < a with a-b < b-a) are pruned
    # (cases.py, rule order-chamber), so the split alone proves this one
    assert decide_by_cases(E.maximum(a, b) - E.minimum(a, b), E.maximum(a - b, b - a)) == Proved("case-split")
    assert isinstance(decide_equal(E.maximum(a, b) - E.minimum(a, b), E.maximum(a - b, b - a)), Proved)


def test_mutants_max_vs_min_are_not_proved():
    for lhs, rhs in [(E.maximum(a, b), E.minimum(a, b)),
                     (E.select(E.gt(a, b), a, b), E.minimum(a, b)),
                     (E.select(E.lt(a, b), a, b), E.maximum(a, b)),
                     (E.maximum(a, b) + E.maximum(a, b), a + b),
                     (E.maximum(E.minimum(a, b), c), E.maximum(E.maximum(a, c), E.maximum(b, c))),
                     (E.maximum(E.maximum(a, b), c), E.maximum(a, b)),
                     (E.maximum(E.maximum(a, b), 0), E.maximum(a, b))]:      # a sentinel bug
        assert not equal_exprs(lhs, rhs)
        assert decide_by_cases(lhs, rhs) is None
        v = decide_equal(lhs, rhs)
        assert not isinstance(v, Proved), (lhs, rhs)


# ---- sqrt / rsqrt

def test_rsqrt_is_one_over_sqrt():
    v = a * a + b * b + E.const(F(1, 10 ** 6))
    assert equal_exprs(a * E.rsqrt(v), a / E.sqrt(v))
    assert equal_exprs(E.rsqrt(v) * E.rsqrt(v), 1 / v)
    assert equal_exprs(E.sqrt(v) * E.sqrt(v), v)
    assert equal_exprs(E.sqrt(v) * E.rsqrt(v), E.ONE)
    assert equal_exprs(c * E.sqrt(v) * c * E.sqrt(v) * E.sqrt(v), c * c * v * E.sqrt(v))


def test_mutants_sqrt_vs_rsqrt_are_not_proved():
    v = a * a + 1
    for lhs, rhs in [(a * E.rsqrt(v), a * E.sqrt(v)), (E.sqrt(v), E.rsqrt(v)), (E.sqrt(v), v),
                     (E.sqrt(v) * E.sqrt(v), v * v), (E.rsqrt(v) * E.rsqrt(v), v)]:
        assert not equal_exprs(lhs, rhs)
        assert not isinstance(decide_equal(lhs, rhs, timeout_ms=2000), Proved), (lhs, rhs)


# ---- full-precision expf

HI = F(0x3FB8AA3B * 0 + 12102203, 1 << 23)          # 0f3FB8AA3B = 1.44269502...
LO = F(float.fromhex("0x1.4ae0c0p-26"))              # 0f32A57060


def _libdevice_expf(x):
    """The real meaning the machine gives nvcc's expf(x) sequence (realops.exponent_field)."""
    t = E.minimum(E.maximum(E.fma(x, E.const(F(float.fromhex("0x1.773a3ap-8"))), E.const(F(1, 2))), E.ZERO), E.ONE)
    v = E.fma(t, E.const(252), E.const(12582913))
    n = E.add(v, E.const(-12583039))
    f = E.fma(x, E.const(LO), E.fma(x, E.const(HI), E.neg(n)))
    scale = realops.exponent_field(v)
    assert scale is not None
    return E.mul(E.exp2(f), scale)


def test_expf_idiom_is_exp2_of_x_times_log2e():
    assert equal_exprs(_libdevice_expf(a), E.exp2(a * (HI + LO)))
    assert equal_exprs(_libdevice_expf(a) * _libdevice_expf(b), E.exp2((a + b) * (HI + LO)))


def test_expf_mutants_are_not_proved():
    assert not equal_exprs(_libdevice_expf(a), E.exp2(a * HI))                          # __expf
    assert not equal_exprs(_libdevice_expf(a), E.exp2(a * (HI + LO + F(1, 1 << 40))))  # perturbed
    assert not equal_exprs(_libdevice_expf(a), E.exp2(-a * (HI + LO)))                  # sign
    v = decide_equal(_libdevice_expf(a), E.exp2(a * HI), timeout_ms=2000)
    assert not isinstance(v, Proved)


def test_exponent_field_needs_bounds():
    assert realops.exponent_field(a) is None                                  # unbounded
    assert realops.exponent_field(a + 12582912) is None
    t = E.minimum(E.maximum(a, E.ZERO), E.ONE)
    assert realops.exponent_field(E.fma(t, E.const(252), E.const(12582913))) is not None
    assert realops.exponent_field(E.fma(t, E.const(254), E.const(12582912))) is None   # 0 = not normal
    assert realops.exponent_field(E.fma(t, E.const(300), E.const(12582913))) is None   # past 254
    assert realops.exponent_field_base(F(12582913), F(12583166)) == 12582912
    assert realops.exponent_field_base(F(12582913), F(12583167)) is None


def test_expf_exact_evaluation_where_the_exponent_is_an_integer():
    x = F(3) / (HI + LO)
    assert evaluate(_libdevice_expf(a), {a: x}) == 8
