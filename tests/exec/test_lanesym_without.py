"""LaneSym.without finds the lanes to drop by binary search when the dropped set is increasing (every lane set
the machine makes), and by np.isin otherwise: both must keep exactly the lanes np.isin keeps, with their
values, for increasing, unsorted and repeating lane sets."""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from volta.exec.state.lanesym import LaneSym
from volta.symbolic.lanepoly import LanePoly


@settings(max_examples=300, deadline=None)
@given(st.sets(st.integers(0, 40), min_size=1), st.lists(st.integers(0, 45), max_size=30), st.booleans())
def test_without_keeps_the_lanes_isin_keeps(own, drop, increasing):
    lanes = np.array(sorted(own), np.int64)
    ls = LaneSym(lanes, LanePoly.leaf("A", lanes * 3 + 1))
    gone = np.array(sorted(set(drop)) if increasing else drop, np.int64)
    got = ls.without(gone)
    keep = ~np.isin(lanes, gone)
    if not keep.any():
        assert got is None
        return
    assert np.array_equal(got.lanes, lanes[keep])
    assert np.array_equal(got.poly.leaf_parts()[1], lanes[keep] * 3 + 1)
