"""Cut points (volta/symbolic/cuts.py): shared row statistics proved equal once and compared as atoms; a
fingerprint collision between values that differ over the reals never becomes a cut."""
from __future__ import annotations

from fractions import Fraction

from hypothesis import given, settings, strategies as st

from volta.equiv.check import _expansion
from volta.symbolic import cuts, expr as E
from volta.symbolic.normal import Normalizer, equal, normalize

N = 16


def _cut(ref, opt):
    norm = Normalizer()
    return cuts.cut(ref, opt, lambda e: normalize(e, norm), equal, _expansion)


def _row(name):
    return [E.var(name, i) for i in range(N)]


def _mean_sequential(xs):
    s = E.ZERO
    for x in xs:
        s = E.add(s, x)
    return E.div(s, E.const(N))


def _mean_tree(xs):
    while len(xs) > 1:
        xs = [E.add(xs[i], xs[i + 1]) for i in range(0, len(xs), 2)]
    return E.mul(xs[0], E.const(Fraction(1, N)))


def _normed(xs, mean_of):
    """(x - mean) / sqrt(mean((x - mean)^2) + eps) for each x: a layer norm's row."""
    m = mean_of(xs)
    d = [E.sub(x, m) for x in xs]
    var = mean_of([E.mul(v, v) for v in d])
    rstd = E.div(E.ONE, E.sqrt(E.add(var, E.const(Fraction(1, 100_000)))))
    return [E.mul(v, rstd) for v in d]


def test_row_statistics_in_two_orders_become_cut_points_and_the_rows_match():
    xs = _row("x")
    ref, opt = _normed(xs, _mean_sequential), _normed(xs, _mean_tree)
    new_ref, new_opt, made = _cut(ref, opt)
    assert made >= 2     # the mean, the variance (and what is built on them)
    assert all(a is b or equal(normalize(a), normalize(b)) for a, b in zip(new_ref, new_opt))
    assert any(leaf.data[0] == cuts.CUT for leaf in E.leaves(new_ref[0]))      # the variance is an atom now
    assert len(E.postorder(new_ref[0])) * 2 < len(E.postorder(ref[0]))


def test_a_near_miss_is_proposed_but_never_cut():
    # the two sums agree in the first 9 digits (the fingerprint) but differ over the reals
    xs = _row("x")
    tiny = E.mul(xs[0], E.const(Fraction(1, 2 ** 40)))
    s_ref = _mean_sequential(xs)
    s_opt = E.add(_mean_tree(xs), tiny)
    ref = [E.mul(s_ref, y) for y in _row("y")]
    opt = [E.mul(s_opt, y) for y in _row("y")]
    new_ref, new_opt, _ = _cut(ref, opt)
    assert not any(a is b for a, b in zip(new_ref, new_opt))
    assert not any(equal(normalize(a), normalize(b)) for a, b in zip(new_ref, new_opt))


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(-3, 3), min_size=N, max_size=N), st.integers(0, N - 1))
def test_rewritten_roots_are_equal_only_where_the_originals_are(coeffs, k):
    # opt's weighted sum differs from ref's in coefficient k when the drawn change is nonzero
    xs = _row("x")
    ws = [E.const(c) for c in coeffs]
    changed = list(ws)
    changed[k] = E.const(coeffs[k] + 1)
    ref_sum = E.add_all(E.mul(w, x) for w, x in zip(ws, xs))
    opt_sum = E.add_all(E.mul(w, x) for w, x in reversed(list(zip(changed, xs))))
    ref = [E.mul(ref_sum, y) for y in _row("y")]
    opt = [E.mul(opt_sum, y) for y in _row("y")]
    new_ref, new_opt, _ = _cut(ref, opt)
    assert not any(a is b or equal(normalize(a), normalize(b)) for a, b in zip(new_ref, new_opt))


_LEAVES = st.sampled_from([E.var("x", i) for i in range(4)] + [E.const(2), E.const(Fraction(1, 3))])


def _extend(children):
    pair = st.tuples(children, children)
    return st.one_of(pair.map(lambda p: E.add(*p)), pair.map(lambda p: E.mul(*p)),
                     pair.map(lambda p: E.div(p[0], E.add(p[1], E.const(7)))),
                     pair.map(lambda p: E.maximum(*p)), children.map(E.sqrt))


@settings(max_examples=200, deadline=None)
@given(st.recursive(_LEAVES, _extend, max_leaves=24))
def test_a_roots_estimate_bounds_every_node_below_it(root):
    """cut() asks the roots' expansion estimate whether any node is large: that holds because no node below a
    root estimates more than the root (sums, products and ratios have at least their parts' terms; an atom
    carries its arguments')."""
    top = _expansion(root)
    assert all(_expansion(node) <= top for node in E.postorder(root))
