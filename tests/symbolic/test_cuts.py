"""Cut points (volta/symbolic/cuts.py): shared row statistics proved equal once and compared as atoms; a
fingerprint collision between values that differ over the reals never becomes a cut."""
from __future__ import annotations

import functools
from fractions import Fraction

from hypothesis import given, settings, strategies as st

from volta.equiv.check import _expansion
from volta.symbolic import cuts, expr as E
from volta.symbolic.evaluate import evaluate
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


@settings(max_examples=20, deadline=None)
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



def _swish_ref(x):
    """x·sigmoid(x), sigmoid as torch's 1/(1 + 2^-x) (base 2: exact at integer inputs)."""
    return E.mul(x, E.div(E.ONE, E.add(E.ONE, E.exp2(E.neg(x)))))


def _swish_kernel(x, sign=-1):
    """x/(1 + 2^-x) as a kernel writes it (sign=+1: a wrong kernel's 2^x)."""
    return E.div(x, E.add(E.ONE, E.exp2(E.mul(E.const(sign), x))))


def _hardswish(y):
    return E.mul(E.const(Fraction(1, 6)), E.mul(y, E.minimum(E.const(6), E.maximum(E.ZERO, E.add(y, E.const(3))))))


def _group_normed_swish(swishes, rational=False):
    """hardswish(group norm of swish(x + k)) over one group: the same code over each side's swishes (with
    `rational`, 1/(var + eps) for the rsqrt: exact values at rational inputs)."""
    xs = [E.add(x, E.const(k % 3)) for k, x in enumerate(_row("x")[:len(swishes)])]
    ys = [swish(x) for swish, x in zip(swishes, xs)]
    m = E.div(E.add_all(ys), E.const(len(ys)))
    d = [E.sub(y, m) for y in ys]
    var = E.div(E.add_all(E.mul(v, v) for v in d), E.const(len(ys)))
    eps = E.add(var, E.const(Fraction(1, 100_000)))
    scale = E.div(E.ONE, eps if rational else E.sqrt(eps))
    return [_hardswish(E.mul(v, scale)) for v in d]


def test_a_swish_written_two_ways_is_merged_and_the_group_norm_above_is_one_dag():
    """The group's mean of N fractions, normalized, has a common denominator of 2^N terms (at 108 a group, a
    leaderboard GroupNorm over a swish was UNKNOWN 'too large to normalize'); merged, each
    kernel swish is the reference's node and every output is the same DAG."""
    ref, opt = _group_normed_swish([_swish_ref] * N), _group_normed_swish([_swish_kernel] * N)
    new_ref, new_opt, made = _cut(ref, opt)
    assert made and all(a is b for a, b in zip(new_ref, new_opt))


WRONG = functools.partial(_swish_kernel, sign=1)


def test_a_wrong_swish_is_never_merged_with_the_right_one():
    """2^x for 2^-x: no rewritten output is proved equal to the reference's."""
    ref, opt = _group_normed_swish([_swish_ref] * N), _group_normed_swish([WRONG] * N)
    new_ref, new_opt, _made = _cut(ref, opt)
    norm = Normalizer()
    assert not any(cuts.proved_equal(a, b, r, o, lambda e: normalize(e, norm), equal, _expansion)
                   for a, b, r, o in zip(new_ref, new_opt, ref, opt))


@settings(max_examples=20, deadline=None)
@given(st.lists(st.sampled_from([_swish_ref, _swish_kernel, WRONG]), min_size=4, max_size=4),
       st.lists(st.integers(-4, 4), min_size=4, max_size=4))
def test_what_cut_points_prove_holds_at_exact_points(swishes, values):
    """Differential: whatever mix of right and wrong swishes one side holds, every output the cut points prove
    equal is equal at exact integer inputs, where the originals evaluate exactly."""
    ref = _group_normed_swish([_swish_ref] * 4, rational=True)
    opt = _group_normed_swish(swishes, rational=True)
    new_ref, new_opt, _made = _cut(ref, opt)
    norm = Normalizer()
    env = dict(zip(_row("x"), map(Fraction, values)))
    for a, b, r, o in zip(new_ref, new_opt, ref, opt):
        if cuts.proved_equal(a, b, r, o, lambda e: normalize(e, norm), equal, _expansion):
            assert evaluate(r, env) == evaluate(o, env), (swishes, values)
