"""NormalForm.scale (lazy rescaling of long numerators): the same canonical polynomial as expanding at
every step, online-softmax chains stay linear, and a wrong rescale is still told apart."""
from fractions import Fraction as F

from hypothesis import given, settings, strategies as st

from volta.symbolic import expr as E
from volta.symbolic import normal as N
from volta.symbolic.normal import Normalizer, equal


def _flash(keys, scores, values, maxima, wrong_at=None):
    """acc and l of an online softmax over `keys` keys: acc·2^(m_old - m_new) + 2^(s - m_new)·v."""
    acc, l, m_old = E.ZERO, E.ZERO, None
    for j in range(keys):
        m_new = maxima[j]
        p = E.exp2(scores[j] - m_new)
        if m_old is None:
            acc, l = p * values[j], p
        else:
            alpha = E.exp2((m_new if j == wrong_at else m_old) - m_new)
            acc, l = acc * alpha + p * values[j], l * alpha + p
        m_old = m_new
    return acc / l


def _direct(keys, scores, values, m):
    num = den = E.ZERO
    for j in range(keys):
        p = E.exp2(scores[j] - m)
        num, den = num + p * values[j], den + p
    return num / den


def _inputs(keys):
    s = [E.var("s", j) for j in range(keys)]
    v = [E.var("v", j) for j in range(keys)]
    maxima = [E.sym(f"m{j}") for j in range(keys)]
    return s, v, maxima


def test_flash_chain_equals_direct_sum():
    keys = 64
    s, v, maxima = _inputs(keys)
    n = Normalizer()
    assert equal(n(_flash(keys, s, v, maxima)), n(_direct(keys, s, v, maxima[-1])))


def test_wrong_rescale_is_not_equal():
    keys = 40
    s, v, maxima = _inputs(keys)
    n = Normalizer()
    assert not equal(n(_flash(keys, s, v, maxima, wrong_at=25)), n(_direct(keys, s, v, maxima[-1])))


def test_chain_is_linear_in_keys(monkeypatch):
    """Counted, not timed: monomial products of the chain over 128 keys stay O(keys) with scales, and are
    O(keys^2) when every rescale is expanded."""
    calls = {"n": 0}
    real = N.mono_mul

    def counting(m1, m2):
        calls["n"] += 1
        return real(m1, m2)

    monkeypatch.setattr(N, "mono_mul", counting)
    # a sqrt normalized earlier in the process (SQRT_ARGS non-empty) must not expand the scales (it did)
    monkeypatch.setitem(N.SQRT_ARGS, -1, N.NormalForm({N.UNIT: 1}))
    keys = 128
    s, v, maxima = _inputs(keys)
    Normalizer()(_flash(keys, s, v, maxima)).num
    lazy = calls["n"]
    calls["n"] = 0
    monkeypatch.setattr(N, "LAZY_TERMS", 10 ** 9)
    s, v, maxima = _inputs(keys)
    Normalizer()(_flash(keys, s, v, [E.sym(f"w{j}") for j in range(keys)])).num
    eager = calls["n"]
    assert lazy < 20 * keys < keys * keys // 2 < eager


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(-3, 3), st.integers(0, 5), st.integers(-2, 2), st.sampled_from("xyz")),
                min_size=1, max_size=30),
       st.integers(1, 12))
def test_same_polynomial_as_expanded(steps, lazy_terms):
    """Random chains acc = acc·c·2^(a·x_i + k) + t_i: the lazy normal form's numerator and denominator are
    the very dicts the expanded one gives (scales may sit anywhere, under a division too)."""
    def build():
        acc = E.var("t", 0)
        for i, (coef, shift, exp_coef, sym) in enumerate(steps):
            scale = E.const(coef or 1) * E.exp2(E.const(exp_coef) * E.sym(sym) + E.const(F(shift, 2)))
            acc = acc * scale + E.var("t", i + 1) * E.exp2(E.sym(sym) - E.var("s", i))
        return acc / (acc + E.var("u", 0)), acc

    saved = N.LAZY_TERMS
    try:
        N.LAZY_TERMS = lazy_terms
        ratio, plain = (Normalizer()(x) for x in build())
        N.LAZY_TERMS = 10 ** 9
        ratio_x, plain_x = (Normalizer()(x) for x in build())
    finally:
        N.LAZY_TERMS = saved
    assert plain.num == plain_x.num and plain.den == plain_x.den
    assert ratio.num == ratio_x.num and ratio.den == ratio_x.den
    assert equal(ratio, ratio_x)
