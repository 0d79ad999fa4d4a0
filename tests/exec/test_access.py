"""Address resolution (volta/exec/state/access.py): the one-region shortcut answers as the lane-by-lane path.

`resolve` first tries `_one_region`, which decides from the least and greatest address that every lane lies in
bounds and aligned inside one region; `_resolve_lanes` finds each lane's region and reports what fails. On random
address batches (in and out of bounds, misaligned, spanning regions and generic windows) the shortcut either
declines or gives exactly the lane-by-lane answer, with no finding reported.
"""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from volta.exec.state import access as A
from volta.exec.state.memory import GENERIC_LOCAL, GENERIC_SHARED, Memory


def _machine():
    mem = Memory()
    mem.add("g", ".global", 4096)
    mem.add("s1", ".shared", 100, copies=2)     # shared regions placed at 1024-byte steps of the window
    mem.add("s2", ".shared", 2048, copies=2)
    mem.add("l", ".local", 64, copies=4)
    mem.add("c", ".const", 256)
    reports = []
    return SimpleNamespace(
        memory=mem, null_params=(), prog=SimpleNamespace(params=[], variables={}),
        report=lambda *a, **k: reports.append(a), count_threads=lambda *a, **k: None,
        admitting_branch=lambda lane: None), reports


_SPACES = [(".global", "g"), (".shared", "s1"), (".shared", "s2"), (".local", "l"), (".global", "c"),
           (None, "g"), (None, "s2"), (None, "l"), (".const", "c")]


@st.composite
def _batch(draw):
    m, _ = _machine()
    space, name = draw(st.sampled_from(_SPACES))
    region = m.memory.by_name[name]
    size = draw(st.sampled_from([1, 2, 4, 8, 16]))
    n = draw(st.integers(1, 12))
    start = draw(st.integers(-32, region.size + 16))
    step = draw(st.sampled_from([0, 1, 2, 4, 8, 16, -4]))
    offs = start + step * np.arange(n)
    if draw(st.booleans()):   # a stray lane somewhere else
        offs[draw(st.integers(0, n - 1))] = draw(st.integers(-64, 5000))
    base = region.base
    if space is None:
        base += {".shared": GENERIC_SHARED, ".local": GENERIC_LOCAL}.get(region.space, 0)
    addr = (np.int64(base) + offs).astype(np.uint64)
    if draw(st.booleans()) and n > 1:   # one lane in another region (or window)
        other = m.memory.by_name[draw(st.sampled_from(["g", "s1", "s2", "l"]))]
        addr[0] = np.uint64(other.base + 8)
    return space, addr, size


@settings(max_examples=400, deadline=None)
@given(_batch(), st.booleans())
def test_one_region_agrees_with_lane_by_lane(batch, write):
    space, addr, size = batch
    lanes = np.arange(addr.size, dtype=np.int64) * 3
    m, reports = _machine()
    fast = A._one_region(m, space, addr, lanes, size)
    slow = A._resolve_lanes(m, None, space, addr, lanes, size, write)
    if fast is None:
        return
    assert not reports, "the shortcut took a batch the lane-by-lane path reports on"
    assert len(fast) == len(slow) == 1
    (r1, l1, o1), (r2, l2, o2) = fast[0], slow[0]
    assert r1 is r2
    assert np.array_equal(l1, l2) and np.array_equal(o1, o2) and o1.dtype == o2.dtype


def test_one_region_takes_an_in_bounds_batch():
    """The shortcut is taken where it should be (the test above would pass if it never were)."""
    m, _ = _machine()
    s2 = m.memory.by_name["s2"]
    addr = np.uint64(s2.base) + np.arange(0, 128, 4, dtype=np.uint64)
    lanes = np.arange(addr.size)
    got = A._one_region(m, ".shared", addr, lanes, 4)
    assert got is not None and got[0][0] is s2 and got[0][1] is lanes
    assert np.array_equal(got[0][2], np.arange(0, 128, 4))
    generic = A._one_region(m, None, addr + np.uint64(GENERIC_SHARED), lanes, 4)
    assert generic is not None and np.array_equal(generic[0][2], got[0][2])
    assert A._one_region(m, ".shared", addr + np.uint64(2), lanes, 4) is None   # misaligned
    assert A._one_region(m, ".shared", addr + np.uint64(s2.size - 64), lanes, 4) is None   # past the end


# ---- the race shadow's granule ----------------------------------------------------------------------------

_ACCESS = st.tuples(st.sampled_from([1, 2, 2, 2, 4, 4, 8]), st.integers(0, 7), st.integers(0, 11), st.booleans(),
                    st.integers(0, 1))


@settings(max_examples=500, deadline=None)
@given(st.lists(st.lists(_ACCESS, min_size=1, max_size=4), max_size=25))
def test_a_granule_fitted_to_the_accesses_decides_as_bytes(batches):
    """A shadow that starts at 4-byte granules and refines as `fit_granule` says finds the same races (thread,
    instruction, first byte) as a shadow of bytes, batch after batch of reads and writes of 1 to 8 bytes (each
    aligned to its size) by threads of two warps and two barrier intervals."""
    from volta.exec.races.shadow import Shadow

    fitted, bytewise = Shadow(64, 4), Shadow(64, 1)
    for pc, batch in enumerate(batches):
        for write in (False, True):   # a batch is one instruction: its reads, then its writes
            acc = [a for a in batch if a[3] == write]
            if not acc:
                continue
            size = acc[0][0]
            offs = np.array([(o * size) % 64 for _, o, _, _, _ in acc], np.int64)
            tid = np.array([t for _, _, t, _, _ in acc], np.int64)
            gen = np.array([g for *_, g in acc], np.int64)
            found = []
            for sh in (fitted, bytewise):
                g = A.fit_granule(sh, size, offs)
                per = size // g
                gidx = ((offs // g)[:, None] + np.arange(per)).reshape(-1)
                rep = (lambda a: np.repeat(a, per))  # noqa: E731
                t = rep(tid)
                conflicts, _ = sh.access(gidx, t, np.zeros_like(t), rep(gen), t // 6, np.zeros_like(t), pc, write,
                                         False)
                found.append({(c.granule * g, c.prior_tid, c.tid, c.prior_pc, c.pc, c.prior_write)
                              for c in conflicts})
            assert found[0] == found[1]
