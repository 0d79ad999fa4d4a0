"""lanesym.merge joins parts of one structure side by side (`_joined`) instead of scattering, adding and
compacting them (`_scattered`): where it answers, it must give the very family `_scattered` gives (the same
shapes in the same order, index and coefficient arrays, denominator and bound), for leaves, sums, products,
constants and rationals on disjoint lane sets in any order."""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from volta.exec.state import lanesym
from volta.exec.state.lanesym import LaneSym
from volta.symbolic.lanepoly import LanePoly


def _poly(kind, lanes, seed):
    rng = np.random.default_rng(seed)
    n = lanes.size
    leaf = LanePoly.leaf("A", rng.integers(0, 50, n))
    other = LanePoly.leaf("B", rng.integers(0, 50, n))
    return [leaf, leaf + other, leaf * other + leaf, LanePoly.constant(3, n) + leaf,
            LanePoly.lane_constants(rng.integers(-3, 4, n)) + other, leaf.scale(0.5) + other,
            LanePoly.constant(0.25, n) + leaf][kind]


@st.composite
def _parts(draw):
    lanes = draw(st.lists(st.integers(0, 60), min_size=2, max_size=40, unique=True))
    cut = sorted(draw(st.lists(st.integers(1, len(lanes) - 1), min_size=1, max_size=3, unique=True)))
    groups = np.split(np.array(lanes, np.int64), cut)
    same = draw(st.booleans())   # one structure for every part (what `_joined` takes) or a mix
    kinds = [draw(st.integers(0, 6))] * len(groups) if same else [draw(st.integers(0, 6)) for _ in groups]
    return [LaneSym(g, _poly(k, g, draw(st.integers(0, 1000)))) for g, k in zip(groups, kinds)]


def _same(a: LanePoly, b: LanePoly):
    assert list(a.groups) == list(b.groups)
    assert a.lanes == b.lanes and a.den == b.den and a.bound == b.bound and a.term_count() == b.term_count()
    for shape in a.groups:
        (ia, ca), (ib, cb) = a._block(shape), b._block(shape)
        assert np.array_equal(np.broadcast_to(ia, ib.shape), ib) and ia.shape == ib.shape
        assert np.array_equal(np.broadcast_to(ca, cb.shape), cb) and ca.shape == cb.shape


@settings(max_examples=300, deadline=None)
@given(_parts())
def test_joined_is_the_scattered_family(parts):
    order = np.argsort(np.concatenate([p.lanes for p in parts]), kind="stable")
    joined = lanesym._joined(parts, order)
    scattered = lanesym._scattered(parts, order)
    if joined is not None:
        _same(joined, scattered)
    merged = lanesym.merge(parts)
    assert np.array_equal(merged.lanes, np.sort(np.concatenate([p.lanes for p in parts])))
    _same(merged.poly, scattered)


def test_joined_answers_for_the_loads_of_one_tile():
    parts = [LaneSym(np.arange(8) + 8 * k, LanePoly.leaf("V", np.arange(8) * 5 + k)) for k in (2, 0, 1)]
    order = np.argsort(np.concatenate([p.lanes for p in parts]), kind="stable")
    assert lanesym._joined(parts, order) is not None
