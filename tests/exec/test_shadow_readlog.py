"""The race shadow's read log (volta/exec/races/readlog.py) decides as merging each read batch at once.

The reference is the shadow with `lazy_reads=False`: every read batch goes through `Shadow._record_reads`, the
batch-by-batch merge the shadow used before the log. Random traces of several CTAs and warps read and write a
few granules (so records meet fresh, repeated, other-warp and other-CTA readers), with barriers, __syncwarp,
strong and atomic accesses, silent writes, a happens-before order, lookups by granule and a change of granule
in between. Every conflict must be the same, and so must every read record at the end.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from volta.exec.races.shadow import FIELDS, Shadow

THREADS, WARP, CTA = 96, 8, 32   # 3 CTAs of 4 warps of 8 threads
GRANULES = 6

_read = st.tuples(st.just("read"), st.lists(st.tuples(st.integers(0, GRANULES - 1), st.integers(0, THREADS - 1)),
                                            min_size=1, max_size=10),
                  st.sampled_from([0, 0, 0, 0, 1, 3, 11, 13]), st.booleans())
_write = st.tuples(st.just("write"), st.lists(st.tuples(st.integers(0, GRANULES - 1), st.integers(0, THREADS - 1)),
                                              min_size=1, max_size=4),
                   st.sampled_from([0, 0, 0, 1, 3, 11, 13]), st.booleans())
_barrier = st.tuples(st.just("barrier"), st.integers(0, THREADS // CTA - 1))
_syncwarp = st.tuples(st.just("syncwarp"), st.integers(0, THREADS // WARP - 1))
_lookup = st.tuples(st.just("lookup"), st.integers(0, GRANULES * 4 - 1))
_STEP = st.one_of(_read, _read, _read, _read, _write, _barrier, _syncwarp, _lookup)


def _order(prior_tid, prior_clk, positions):
    """An arbitrary happens-before relation on (prior thread, prior clock) and the current access."""
    return (np.asarray(prior_tid) * 7 + np.asarray(prior_clk) + np.asarray(positions)) % 5 == 0


def _key(c):
    return (c.granule, c.prior_pc, c.prior_tid, c.pc, c.tid, c.prior_write, c.write, c.prior_strong, c.ordering,
            c.prior_silent, c.at, c.positions)


def _records(sh: Shadow, gens=None) -> dict:
    """The read records; with `gens` (a private shadow's comparison) only those of a CTA's current barrier
    generation, the others (which a private shadow may drop unfolded) read as none."""
    sh.settle()
    n = sh.used * 64
    out = {name: getattr(sh.c, name)[:n].copy() for name in FIELDS if name.startswith("r")}
    if gens is not None:
        live = (out["r_tid"] >= 0) & (out["r_gen"] == gens[np.maximum(out["r_cta"], 0)])
        out = {name: np.where(live, v, -3) for name, v in out.items()}
        # a second reader's other fields mean nothing once its thread is cleared (every use tests r2_tid first)
        out.update({name: np.where(out["r2_tid"] >= 0, out[name], -4) for name in out if name.startswith("r2_")})
    # the running warp-generation maximum only matters while one warp read the granule since its last write
    # (see readlog.py); a write empties the record and the next first reader sets it afresh
    out["r_wgen_max"] = np.where(out["r_mwarp"] | (out["r_tid"] < 0), -2, out["r_wgen_max"])
    return out


def _run(steps, one_cta_batches, ordered, refine_at, private=False, shortcut=False):
    """Replay `steps` on the logged shadow and the batch-by-batch reference. `private`: every granule belongs
    to one CTA (a CTA's copy of shared memory), and the logged shadow may drop reads of earlier generations.
    `shortcut`: the logged shadow gets weak reads of one CTA through `Shadow.weak_reads` first (as the machine
    does without vector clocks: every clock entry 0), `access` only where that declines."""
    ctas = THREADS // CTA if private else 1
    lazy = Shadow(GRANULES * ctas * 4 * 4, 4, private=private)
    eager = Shadow(GRANULES * ctas * 4 * 4, 4, lazy_reads=False)
    gens = np.zeros(THREADS // CTA, np.int64)
    wgens = np.zeros(THREADS // WARP, np.int64)
    shortcuts = []
    for pc, step in enumerate(steps):
        if pc == refine_at:
            for sh in (lazy, eager):
                sh.refine(1)
        kind = step[0]
        if kind == "barrier":
            gens[step[1]] += 1
        elif kind == "syncwarp":
            wgens[step[1]] += 1
        elif kind == "lookup":
            g = step[1] if lazy.g == 1 else step[1] // 4
            live = not private or int(eager.r_gen[g]) == gens[max(int(eager.r_cta[g]), 0)]
            for name in ("r_tid", "r_mthread", "r2_tid", "w_tid") if live else ("w_tid",):
                assert int(getattr(lazy, name)[g]) == int(getattr(eager, name)[g])
        else:
            _, accesses, scope, silent = step
            gidx = np.array([g for g, _ in accesses], np.int64)
            tid = np.array([t for _, t in accesses], np.int64)
            if one_cta_batches:   # as the machine issues one CTA's lanes: every lane of the first lane's CTA
                tid = tid % CTA + tid[0] // CTA * CTA
            if private:   # each CTA its own copy of the granules
                gidx = gidx + tid // CTA * GRANULES
            if lazy.g == 1:
                gidx = gidx * 4 + tid % 4
            cta, warp = tid // CTA, tid // WARP
            write = kind == "write"
            args = (gidx, tid, cta, gens[cta], warp, wgens[warp], pc, write, write and scope in (1, 3))
            extra = dict(scope=scope, clk=0 if shortcut else (tid * 3 + pc) % 4, order=_order if ordered else None,
                         silent=np.full(tid.size, silent) if write else None)
            want = eager.access(*args, **extra)
            one = (cta == cta[0]).all()
            if shortcut and not write and not scope and one and lazy.weak_reads(gidx, tid, int(cta[0]),
                                                                                int(gens[cta[0]]), warp,
                                                                                wgens[warp], pc):
                shortcuts.append(pc)
                got = ([], want[1])
            else:
                got = lazy.access(*args, **extra)
            assert [_key(c) for c in got[0]] == [_key(c) for c in want[0]]
            assert np.array_equal(got[1], want[1])
    a, b = _records(lazy, gens if private else None), _records(eager, gens if private else None)
    for name in a:
        assert np.array_equal(a[name], b[name]), name
    return shortcuts


@pytest.mark.slow   # 1,500 examples: 7.7 CPU s
@settings(max_examples=1500, deadline=None)
@given(st.lists(_STEP, max_size=40), st.booleans(), st.booleans(), st.integers(0, 60))
def test_logged_reads_decide_as_reads_merged_at_once(steps, one_cta_batches, ordered, refine_at):
    _run(steps, one_cta_batches, ordered, refine_at)


@pytest.mark.slow   # 800 examples: 3.8 CPU s
@settings(max_examples=800, deadline=None)
@given(st.lists(_STEP, max_size=40), st.booleans(), st.booleans(), st.integers(0, 60))
def test_a_private_shadow_drops_only_reads_that_can_no_longer_race(steps, one_cta_batches, ordered, refine_at):
    """Shared memory's shadow drops a CTA's logged reads at its next barrier generation: every conflict is still
    the reference's, and so is every read record of a CTA's current generation."""
    _run(steps, one_cta_batches, ordered, refine_at, private=True)


@settings(max_examples=800, deadline=None)
@given(st.lists(_STEP, max_size=40), st.booleans(), st.booleans(), st.integers(0, 60))
def test_weak_reads_of_one_cta_decide_as_access(steps, one_cta_batches, private, refine_at):
    """`Shadow.weak_reads` (the machine's path for a weak load of one CTA) logs a batch only where `access`
    finds no conflict and logs it the same way: the conflicts and read records are the reference's."""
    _run(steps, one_cta_batches, False, refine_at, private=private, shortcut=True)


def test_weak_reads_take_tile_loads_after_a_barrier_and_decline_after_a_write():
    """The shortcut is taken for a tile read after the barrier that follows its stores, and declines a read in
    the generation of a write (where `access` must look for a concurrent write)."""
    reads = ("read", [(0, 1), (1, 2), (2, 9)], 0, False)
    steps = [("write", [(0, 1), (1, 2), (2, 3)], 0, False), reads, ("barrier", 0), reads, reads]
    assert _run(steps, True, False, 99, shortcut=True) == [3, 4]


def test_a_tile_read_by_two_warps_in_many_loads_then_written_after_no_barrier():
    """The GEMM pattern the log is for: many loads of one CTA's tile between barriers, each granule by lanes of
    two warps, then a store into the tile without a barrier: the race names a reader of another thread."""
    lazy, eager = Shadow(256, 4), Shadow(256, 4, lazy_reads=False)
    tid = np.arange(64, dtype=np.int64)
    zero = np.zeros(64, np.int64)
    for sh in (lazy, eager):
        for k in range(16):
            gidx = (tid % 32 + k) % 64
            sh.access(gidx, tid, zero, zero, tid // 32, zero, k, False, False)
    assert lazy.pending.size == 16 * 64
    write = (np.array([5], np.int64), np.array([3], np.int64), zero[:1], zero[:1], zero[:1], zero[:1], 99, True,
             False)
    got, want = lazy.access(*write)[0], eager.access(*write)[0]
    assert [_key(c) for c in got] == [_key(c) for c in want]
    assert len(got) == 1 and got[0].tid == 3 and got[0].prior_tid != 3
    assert lazy.pending.size == 0
