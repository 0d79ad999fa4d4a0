"""Renamings: an element proved by renaming the inputs of a proved one, and never where no renaming maps it."""
from __future__ import annotations

from hypothesis import given, settings, strategies as st

from volta.symbolic import expr as E
from volta.symbolic.constants import LOG2E
from volta.symbolic.normal import equal, normalize
from volta.symbolic.renaming import Renamings


def _softmax_column(q: int, d: int, keys: int = 4, online: bool = False):
    """sum_k e^(s_k)·V[k, d] / sum_k e^(s_k) over scores s_k = Q[q]·K[k]; `online`: shifted by the max."""
    scores = [E.var("Q", q) * E.var("K", k) for k in range(keys)]
    m = scores[0]
    for s in scores[1:]:
        m = E.maximum(m, s)
    shift = m if online else E.ZERO
    w = [E.exp2(E.mul(E.sub(s, shift), LOG2E)) for s in scores]
    num, den = E.ZERO, E.ZERO
    for k in range(keys):
        num = E.fma(w[k], E.var("V", 4 * k + d), num)
        den = E.add(den, w[k])
    return E.div(num, den)


def _proved(a, b) -> Renamings:
    assert equal(normalize(a), normalize(b))
    r = Renamings()
    r.add(a, b)
    return r


def test_other_columns_and_rows_are_renamings():
    r = _proved(_softmax_column(0, 0), _softmax_column(0, 0, online=True))
    for q, d in ((0, 1), (0, 3), (1, 0), (1, 2)):
        assert r.covers(_softmax_column(q, d), _softmax_column(q, d, online=True))


def test_a_different_pair_is_not_covered():
    r = _proved(_softmax_column(0, 0), _softmax_column(0, 0, online=True))
    # the same reference against an opt whose weights skip the last key: no renaming maps the proved pair to it
    assert not r.covers(_softmax_column(0, 1), _softmax_column(0, 1, keys=3, online=True))


def test_one_image_per_leaf():
    # a buffer name no other test uses: leaves made here in this order (commutative arguments sort by creation,
    # and `X` elements made earlier in a worker's process could come in another order)
    x, y, z = E.var("one_image", 0), E.var("one_image", 1), E.var("one_image", 2)
    r = _proved(x * (y + x), x * y + x * x)
    assert r.covers(z * (y + z), z * y + z * z)    # X0 -> X2
    r = _proved(x * y + x, x + y * x)
    assert not r.covers(x * y + z, x + y * z)      # X0 -> X0 in one place and X0 -> X2 in another


def test_shared_node_reading_a_moved_buffer_is_no_renaming():
    """`s` is the same node on both sides, so the walk skips it; renaming X0 -> X1 would change it too,
    so (s + X1, X1 + s) is not the renamed identity and must not be claimed from it (it is true here, but the
    walk may not say so); a claim needs the skipped node to read no buffer that moves."""
    x0, x1 = E.var("X", 0), E.var("X", 1)
    s = E.mul(x0, E.var("W", 0))
    r = _proved(E.add(s, x0), E.add(x0, s))
    assert not r.covers(E.add(s, x1), E.add(x1, s))
    t = E.mul(E.var("W", 0), E.var("W", 1))   # reads W only: skipping it is right
    r = _proved(E.add(t, x0), E.add(x0, t))
    assert r.covers(E.add(t, x1), E.add(x1, t))


def test_constants_and_symbols_do_not_rename():
    x = E.var("X", 0)
    r = _proved(E.mul(x, 2) + x, E.mul(x, 3))
    assert not r.covers(E.mul(x, 5) + x, E.mul(x, 3))
    r = _proved(E.sym("alpha") * x, x * E.sym("alpha"))
    assert not r.covers(E.sym("beta") * x, x * E.sym("alpha"))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(["X0", "X1", "X2", "Y0", "Y1"]), min_size=3, max_size=3),
       st.lists(st.sampled_from(["X0", "X1", "X2", "Y0", "Y1"]), min_size=3, max_size=3))
def test_covered_pairs_are_equal(proved_leaves, target_leaves):
    """Whatever the leaves, a pair the renaming covers is equal by normal forms (the claim is never wrong)."""
    def leaf(name):
        return E.var(name[0], int(name[1]))

    def pair(names):
        a, b, c = map(leaf, names)
        return E.add(E.mul(a, b), c), E.add(c, E.mul(b, a))

    def skewed(names):   # the opt side written with the arguments in another order: equal only if a·b = b·a
        a, b, c = map(leaf, names)
        return E.add(E.mul(a, E.add(b, c)), c), E.add(E.add(E.mul(a, b), E.mul(a, c)), c)

    for build in (pair, skewed):
        r = _proved(*build(proved_leaves))
        a2, b2 = build(target_leaves)
        if r.covers(a2, b2):
            assert equal(normalize(a2), normalize(b2))
        a3, b3 = build(target_leaves)[0], E.add(build(target_leaves)[1], leaf(target_leaves[0]))
        assert not r.covers(a3, b3)
