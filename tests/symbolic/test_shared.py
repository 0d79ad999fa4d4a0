"""Shared sums kept as atoms (volta/symbolic/shared.py): a variance two ways is proved equal without
expanding the square of the mean, a wrong divisor is not, and on random expressions over shared sums the
comparison with atoms agrees with the expanded one (never equal where expanding says unequal)."""
from fractions import Fraction as F

import pytest
from hypothesis import given, settings, strategies as st

from volta.symbolic import expr as E
from volta.symbolic.normal import ExpansionLimit, Normalizer, equal
from volta.symbolic.shared import SharedTerms


def _kept(wide: int = 16) -> Normalizer:
    return Normalizer(shared=SharedTerms(wide=wide))


def _layer_norm(n: int, k: int, two_pass: bool, divisor: int | None = None, order=None):
    """(x_k − mean)·rsqrt(var + eps): var as the mean of squared deviations, or E[x²] − E[x]² (divided by
    `divisor` instead of n for the mutant); `order` permutes the summation of the mean."""
    x = [E.var("x", i) for i in range(n)]
    mean = E.mul(E.add_all(x[i] for i in (order or range(n))), E.const(F(1, n)))
    if two_pass:
        var = E.mul(E.add_all(E.mul(E.sub(xi, mean), E.sub(xi, mean)) for xi in x), E.const(F(1, n)))
    else:
        var = E.sub(E.mul(E.add_all(E.mul(xi, xi) for xi in x), E.const(F(1, divisor or n))), E.mul(mean, mean))
    return E.mul(E.sub(x[k], mean), E.rsqrt(E.add(var, E.const(F(1, 100000)))))


def test_variance_two_ways_is_equal_without_expanding():
    n = 256
    kept = _kept()
    a, b = _layer_norm(n, 3, True), _layer_norm(n, 3, False, order=list(reversed(range(n))))
    na, nb = kept(a), kept(b)
    assert kept.shared.equal(na, nb)
    assert len(kept.shared.definitions) == 1           # the mean's sum, once for both orders
    # the forms hold the sum once, not its n^2/2 square: a handful of monomials per side
    assert len(na.num) + len(na.den) + len(nb.num) + len(nb.den) < 16


def test_wrong_divisor_is_not_equal():
    n = 64
    kept = _kept()
    a, b = _layer_norm(n, 0, True), _layer_norm(n, 0, False, divisor=n - 1)
    assert not kept.shared.equal(kept(a), kept(b))
    plain = Normalizer()
    assert not equal(plain(a), plain(b))


def test_difference_reduced_modulo_the_definition():
    """Σ(x_i − t/n)²·n − (Σx_i² − t²/n) with t = Σx_i is zero only modulo t's definition."""
    n = 20
    x = [E.var("x", i) for i in range(n)]
    s = E.add_all(x)
    mean = E.mul(s, E.const(F(1, n)))
    two = E.add_all(E.mul(E.sub(xi, mean), E.sub(xi, mean)) for xi in x)
    one = E.sub(E.add_all(E.mul(xi, xi) for xi in x), E.mul(E.mul(s, s), E.const(F(1, n))))
    kept = _kept()
    na, nb = kept(E.mul(two, E.const(1))), kept(one)
    assert not equal(na, nb)                           # as polynomials in x and t they differ
    assert kept.shared.equal(na, nb)                   # modulo t = Σx_i they do not


def test_budget_spent_is_not_decided():
    n = 40
    kept = _kept()
    kept(_layer_norm(n, 1, False))
    pivot = kept.shared.pivots[0][0]
    square = {(((pivot, 2),), 0): 1}                  # a pivot squared: its value (40 terms) squared
    assert kept.shared.reduce(square, budget=100) is None
    assert len(kept.shared.reduce(square)) > 40


# ---- random expressions over shared sums: with atoms = expanded ------------------------------------------

LEAVES = [E.var("r", i) for i in range(6)]


def _sums():
    """Linear sums of the leaves (and a constant) long enough to be kept: the shared sub-terms."""
    coeff = st.sampled_from([-2, -1, 1, F(1, 2), 3])
    return st.lists(st.tuples(st.sampled_from(range(6)), coeff), min_size=3, max_size=6).map(
        lambda pairs: E.add_all(E.mul(E.const(c), LEAVES[i]) for i, c in pairs))


def _trees(shared_sums):
    base = st.one_of(st.sampled_from(LEAVES), st.sampled_from([E.const(c) for c in (-1, 2, F(1, 3))]),
                     st.sampled_from(shared_sums))
    return st.recursive(base, lambda t: st.one_of(
        st.tuples(t, t).map(lambda p: E.add(*p)),
        st.tuples(t, t).map(lambda p: E.mul(*p)),
        st.tuples(t, t).map(lambda p: E.sub(*p))), max_leaves=8)


@st.composite
def _pairs(draw):
    sums = draw(st.lists(_sums(), min_size=1, max_size=2))
    a = draw(_trees(sums))
    if draw(st.booleans()):
        b = draw(_trees(sums))
    else:   # an equal expression written another way: the sums expanded in place, or the terms reordered
        b = E.add(E.mul(a, E.const(2)), E.neg(a))
    return a, b, sums


@pytest.mark.slow   # 300 examples: 3.2 CPU s
@settings(max_examples=300, deadline=None)
@given(_pairs())
def test_equal_with_atoms_iff_equal_expanded(pair):
    a, b, sums = pair
    # a root that uses each sum twice, so the sums are shared and become atoms
    used = E.add_all(E.mul(s, s) for s in sums)
    kept, plain = _kept(wide=3), Normalizer()
    ka, kb = kept(E.add(a, used)), kept(E.add(b, used))
    expanded = equal(plain(E.add(a, used)), plain(E.add(b, used)))
    assert kept.shared.equal(ka, kb) == expanded


@settings(max_examples=200, deadline=None)
@given(_pairs(), st.lists(st.integers(-4, 4), min_size=6, max_size=6))
def test_fingerprint_of_equal_values_agree(pair, point):
    a, b, sums = pair
    used = E.add_all(E.mul(s, s) for s in sums)
    kept = _kept(wide=3)
    ka, kb = kept(E.add(a, used)), kept(E.add(b, used))
    if kept.shared.equal(ka, kb):
        assert kept.shared.fingerprint(ka) == kept.shared.fingerprint(kb)


def test_only_total_arguments_unify_atoms():
    """sqrt(t²) and sqrt(t²·y/y) agree wherever both are defined, but the second is undefined at y = 0:
    an atom is only replaced by one whose argument is defined everywhere its own is (polynomials)."""
    x = [E.var("u", i) for i in range(20)]
    y = E.var("w", 0)
    s = E.add_all(x)
    square = E.mul(s, s)
    kept = _kept()
    plain_root, ratio_root = E.sqrt(E.add(square, E.ONE)), E.sqrt(E.div(E.mul(E.add(square, E.ONE), y), y))
    first, second = kept(plain_root), kept(ratio_root)
    assert kept.shared.equal(kept(E.sqrt(E.add(E.mul(s, s), E.ONE))), first)
    assert not kept.shared.equal(first, second)


def test_a_bounded_normalizer_gives_way_instead_of_expanding():
    """Two different sums multiplied (nothing shared) would expand to 40 x 40 terms: with limit 1,000 the
    attempt stops with ExpansionLimit (the check then goes on to its random search)."""
    p = E.add_all(E.var("p", i) for i in range(40))
    q = E.add_all(E.var("q", i) for i in range(40))
    with pytest.raises(ExpansionLimit):
        Normalizer(shared=SharedTerms(), limit=1_000)(E.mul(p, q))
    assert len(Normalizer(shared=SharedTerms(), limit=2_000)(E.mul(p, q)).num) == 1_600
