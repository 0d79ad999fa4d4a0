"""Lane polynomials agree with per-lane expressions, and compare like normal forms do."""
from fractions import Fraction as F

import numpy as np
from hypothesis import given, settings, strategies as st

from volta.symbolic.lanepoly import LanePoly
from volta.symbolic.normal import equal_exprs


def gemm(n: int, m: int, k: int, order) -> LanePoly:
    lane = np.arange(n * m)
    i, j = lane // m, lane % m
    acc = LanePoly.constant(0, n * m)
    for kk in order(k):
        acc = acc + LanePoly.leaf("A", i * k + kk) * LanePoly.leaf("B", kk * m + j)
    return acc


def test_gemm_orders_are_equal_and_match_exprs():
    fwd = gemm(4, 3, 5, range)
    bwd = gemm(4, 3, 5, lambda k: reversed(range(k)))
    assert fwd.equals(bwd)
    for e1, e2 in zip(fwd.to_exprs(), bwd.to_exprs()):
        assert equal_exprs(e1, e2)


def test_differing_lanes_are_reported():
    fwd = gemm(4, 4, 6, range)
    short = gemm(4, 4, 5, range)       # drops k = 5 in every lane
    assert list(fwd.differing_lanes(short)) == list(range(16))
    lane = np.arange(16)
    tweak = fwd + LanePoly.leaf("A", np.where(lane == 7, 0, 1)) - LanePoly.leaf("A", np.ones(16, int))
    assert list(fwd.differing_lanes(tweak)) == [7]


def test_commuting_factors_and_cancellation():
    lanes = 8
    x = LanePoly.leaf("X", np.arange(lanes))
    y = LanePoly.leaf("X", np.arange(lanes)[::-1])
    assert (x * y).equals(y * x)
    assert ((x + y) * (x - y)).equals(x * x - y * y)
    assert (x * F(1, 3) + x * F(2, 3)).equals(x)
    assert not (x * 2).equals(x)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 5), st.integers(-3, 3)),
                min_size=1, max_size=6),
       st.permutations(list(range(6))))
def test_float_value_matches_expressions(terms, perm):
    lanes = 6
    lane = np.arange(lanes)
    poly = LanePoly.constant(F(1, 2), lanes)
    for a, b, c in terms:
        poly = poly + LanePoly.leaf("P", (lane + a) % 6) * LanePoly.leaf("Q", (lane * b) % 6) * c
    shuffled = LanePoly.constant(0, lanes)
    for t in reversed(terms):
        a, b, c = t
        shuffled = LanePoly.leaf("Q", (lane * b) % 6) * c * LanePoly.leaf("P", (lane + a) % 6) + shuffled
    shuffled = shuffled + LanePoly.constant(F(1, 2), lanes)
    assert poly.equals(shuffled)
    inputs = {"P": np.array(perm, float), "Q": np.arange(6.0) - 2}
    from volta.symbolic import expr as E
    from volta.symbolic.evaluate import evaluate_float
    env = {E.var(n, i): float(v) for n in inputs for i, v in enumerate(inputs[n])}
    expected = [evaluate_float(e, env) for e in poly.to_exprs()]
    assert np.allclose(poly.evaluate_float(inputs), expected)


def test_wide_indices_use_the_row_sort():
    lanes = 5
    big = np.arange(lanes) + (1 << 40)
    x, y = LanePoly.leaf("X", big), LanePoly.leaf("Y", big[::-1])
    assert (x * y + y).equals(y + y * x)
    assert list((x * y).differing_lanes(x * y + LanePoly.leaf("X", np.where(np.arange(lanes) == 2, 1, 0)) * 0 + LanePoly.leaf("Z", np.zeros(lanes, int)) * LanePoly.leaf("Q", np.arange(lanes)) * 0)) == []
    assert not (x * y).equals(x * x)


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 200), st.lists(st.tuples(st.integers(0, 199), st.integers(0, 7)), max_size=4),
       st.booleans())
def test_aligned_comparison_agrees_with_sorting(k, tweaks, reverse):
    """Sums of k one-term blocks (joined CHUNK at a time) compare lane by lane without sorting where the
    terms line up; the lanes it reports differ exactly where the canonical (sorted) comparison says so."""
    lanes = 8
    lane = np.arange(lanes)
    order = list(range(k))
    a = b = LanePoly.constant(0, lanes)
    for kk in order:
        a = a + LanePoly.leaf("A", lane * k + kk) * LanePoly.leaf("B", kk * lanes + lane)
    for kk in (reversed(order) if reverse else order):
        col = kk * lanes + lane
        for t, bad_lane in tweaks:   # one lane reads a neighbouring element of B at step t
            if t == kk:
                col = np.where(lane == bad_lane, (col + 1) % (k * lanes), col)
        b = b + LanePoly.leaf("A", lane * k + kk) * LanePoly.leaf("B", col)
    assert sum(len(blocks) for blocks in a.groups.values()) < k // 64 + 64
    fast = list(a.differing_lanes(b))
    assert fast == list(a._sorted_differing(b))
    assert fast == sorted({bl for t, bl in tweaks if t < k})


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 5), st.integers(-3, 3),
                          st.sampled_from(["", "alpha", "beta", "alpha*beta"])), min_size=1, max_size=6),
       st.integers(-3, 3), st.permutations(list(range(6))))
def test_scalar_parameters_are_factors_without_columns(terms, c, perm):
    """`--symbol` scalars multiply a sum without copying it (shapes renamed); the polynomial is still the
    one the expressions give, in any factor order, and compares like its expansion."""
    lanes = 6
    lane = np.arange(lanes)
    sym = {"alpha": LanePoly.symbol("alpha", lanes), "beta": LanePoly.symbol("beta", lanes)}

    def scalars(spec):
        out = LanePoly.constant(1, lanes)
        for name in filter(None, spec.split("*")):
            out = out * sym[name]
        return out

    poly, expanded = LanePoly.constant(0, lanes), LanePoly.constant(0, lanes)
    for a, b, k, spec in terms:
        term = LanePoly.leaf("P", (lane + a) % 6) * LanePoly.leaf("Q", (lane * b) % 6) * k
        poly = poly + scalars(spec) * term       # the scalar first: factored
        expanded = term * scalars(spec) + expanded   # the scalar last, reversed sum
    poly = poly * (sym["alpha"] * c) + LanePoly.leaf("Q", lane) * sym["beta"]
    expanded = sym["beta"] * LanePoly.leaf("Q", lane) + c * (sym["alpha"] * expanded)
    assert poly.equals(expanded)
    values = {"P": np.arange(6.0) - 2.5, "Q": np.arange(6.0) * 0.5 + 1, "alpha": 1.5, "beta": -0.75}
    assert np.allclose(poly.evaluate_float(values), expanded.evaluate_float(values))
    for e1, e2 in zip(poly.take(np.array(perm)).to_exprs(), expanded.take(np.array(perm)).to_exprs()):
        assert equal_exprs(e1, e2)
    tweak = sym["alpha"] * (LanePoly.leaf("P", np.where(lane == 3, 1, 0)) - LanePoly.leaf("P", np.zeros(6, int)))
    assert list(poly.differing_lanes(poly + tweak)) == [3]
    assert list(poly.differing_lanes(poly + tweak * sym["beta"] - tweak * sym["beta"])) == []
    assert LanePoly.symbol("alpha", lanes).leaf_parts() is None
