"""Weak reads of one CTA and barrier generation, logged and folded into the race shadow in one pass.

Merging each read instruction into the per-granule read records (volta/exec/races/shadow.py) costs some forty
numpy operations on its batch, whatever its size: for a GEMM's shared tiles, read by dozens of unrolled loads
between two barriers, each granule by one or two of them, that fixed cost is most of the race checking. A read
checks nothing against other reads, so its record can wait: the shadow appends each weak read batch of a single
CTA and generation here, and folds the log into the records, all batches at once, before anything looks at
them (a write, a read of another CTA or generation, a strong read, a lookup by granule, a change of granule).

`fold` computes the records the batch-by-batch merge (`Shadow._record_reads`) leaves, in closed form per
granule: the first reader is the last lane of the earliest batch that found the record fresh (no read since the
last write, or only reads of the CTA's earlier generations); "several threads" is set when a lane other than
the first reader or two lanes of one batch read it; "several warps" when a lane of another warp than the first
reader read it; the second reader is the last lane, in the earliest batch holding one, of the best rank
(another CTA, then another warp, then another thread) above the rank of the one kept before. The one field
that may differ is `r_wgen_max` where `r_mwarp` is set, which nothing reads then (the merge's own shortcut for
full records leaves it stale the same way). tests/exec/test_shadow_readlog.py checks conflicts and records
against the batch-by-batch merge on random traces.
"""
from __future__ import annotations

import numpy as np

LIMIT = 1 << 20   # logged accesses before a fold regardless: the log's memory stays bounded


class ReadLog:
    """Pending weak reads of CTA `cta` in barrier generation `gen`: per batch, flat granule indices and per-lane
    thread, warp, warp generation and clock entry (one 5-row array), and the batch's pc."""

    __slots__ = ("cta", "gen", "rows", "pcs", "size")

    def __init__(self):
        self.cta = self.gen = -1
        self.rows: list[np.ndarray] = []
        self.pcs: list[int] = []
        self.size = 0

    def holds(self, cta: int, gen: int) -> bool:
        """Whether a batch of `cta` in `gen` may join the log without folding it first."""
        return not self.rows or (self.cta == cta and self.gen == gen and self.size < LIMIT)

    def add(self, gidx, tid, warp, wgen, clk, cta: int, gen: int, pc: int) -> None:
        self.cta, self.gen = cta, gen
        row = np.empty((5, gidx.size), np.int64)   # filled row by row: a third of np.stack's cost
        for k, v in enumerate((gidx, tid, warp, wgen, clk)):
            row[k] = v
        self.rows.append(row)
        self.pcs.append(pc)
        self.size += gidx.size

    def drop(self) -> None:
        """Forget the logged reads (a private shadow's reads of a generation that can no longer race)."""
        self.rows, self.pcs, self.size = [], [], 0

    def take(self):
        """The logged accesses (rows granule, tid, warp, wgen, clk), each batch's pc and each access's batch,
        emptying the log."""
        rows = np.concatenate(self.rows, axis=1) if len(self.rows) > 1 else self.rows[0]
        batch = np.repeat(np.arange(len(self.rows)), [r.shape[1] for r in self.rows])
        pcs = np.asarray(self.pcs, np.int64)
        self.rows, self.pcs, self.size = [], [], 0
        return rows, pcs, batch


def _any_per(flags: np.ndarray, starts: np.ndarray) -> np.ndarray:
    return np.logical_or.reduceat(flags, starts) if starts.size else np.zeros(0, bool)


def fold(c, log: ReadLog, local) -> None:
    """Merge the logged reads into the record columns `c` (the shadow's `_Columns`), as `Shadow._record_reads`
    would have batch by batch; `local` maps flat granule indices to positions in the columns (allocating)."""
    if not log.rows:
        return
    cta, gen = log.cta, log.gen
    rows, pcs, batch = log.take()
    li = local(rows[0])
    # granule by granule, each in batch order, each batch in lane order (a radix sort where positions are small)
    by = np.argsort(li.astype(np.uint16) if li.max() < 1 << 16 else li, kind="stable")
    li, tid, warp, batch = li[by], rows[1, by], rows[2, by], batch[by]
    n = li.size
    new_x = np.empty(n, bool)
    new_x[0] = True
    np.not_equal(li[1:], li[:-1], out=new_x[1:])
    new_g = new_x.copy()                  # first row of each (granule, batch) group
    new_g[1:] |= batch[1:] != batch[:-1]
    xs, gs = np.flatnonzero(new_x), np.flatnonzero(new_g)
    x = li[xs]                            # the granules touched, once each
    row_x = np.cumsum(new_x) - 1          # row -> granule
    g_last = np.append(gs[1:], n) - 1     # last row of each group
    g_of_x = np.searchsorted(gs, xs)      # each granule's first group

    r_tid0, r_cta0 = c.r_tid[x], c.r_cta[x]
    fresh = (r_tid0 < 0) | ((r_cta0 == cta) & (c.r_gen[x] < gen))
    other_cta = ~fresh & (r_cta0 != cta)
    first = g_last[g_of_x]                # the last lane of a granule's earliest batch: its first reader if fresh
    R_tid = np.where(fresh, tid[first], r_tid0)
    R_cta = np.where(fresh, cta, r_cta0)
    R_warp = np.where(fresh, warp[first], c.r_warp[x])

    other_thread = ~other_cta[row_x] & (tid != R_tid[row_x])
    other_warp = warp != R_warp[row_x]
    doubled = np.diff(np.append(gs, n)) >= 2                                   # two lanes of one batch
    mixed = np.minimum.reduceat(warp, gs) != np.maximum.reduceat(warp, gs)    # lanes of two warps in one batch
    mthread = (~fresh & c.r_mthread[x]) | _any_per(other_thread, xs) | _any_per(doubled, g_of_x)
    mwarp = (~fresh & c.r_mwarp[x]) | _any_per(other_thread & other_warp, xs) | _any_per(mixed, g_of_x)
    wgen_max = np.maximum.reduceat(rows[3, by[g_last]], g_of_x)      # each batch's last lane: its merge is last-wins
    wgen_max = np.where(fresh, wgen_max, np.maximum(c.r_wgen_max[x], wgen_max))

    # the second reader: the rank kept before (cleared when a fresh first reader of its CTA replaces the first)
    r2_tid0, r2_cta0 = c.r2_tid[x], c.r2_cta[x]
    cleared = fresh & (r2_cta0 == cta)
    held = np.where(cleared | (r2_tid0 < 0), -1,
                    np.where(r2_cta0 != R_cta, 2, (c.r2_warp[x] != R_warp).astype(np.int64)))
    rank = np.where(tid == R_tid[row_x], -1, np.where(other_cta[row_x], 2, other_warp.astype(np.int64)))
    best = np.maximum.reduceat(rank, xs)
    cand = np.flatnonzero((rank == best[row_x]) & (best > held)[row_x])
    if cand.size:   # per granule, the earliest batch holding a candidate of the best rank, its last such lane
        cx = row_x[cand]
        lead = np.empty(cand.size, bool)
        lead[0] = True
        np.not_equal(cx[1:], cx[:-1], out=lead[1:])
        cand = cand[batch[cand] == batch[cand[lead]][np.cumsum(lead) - 1]]
        cx = row_x[cand]
        tail = np.empty(cand.size, bool)
        tail[-1] = True
        np.not_equal(cx[1:], cx[:-1], out=tail[:-1])
        win, wx = cand[tail], x[cx[tail]]

    c.r2_tid[x[cleared]] = -1
    f, src = x[fresh], first[fresh]
    at = by[src]   # the same rows in the log's own order
    for name, value in (("r_tid", tid[src]), ("r_cta", cta), ("r_gen", gen), ("r_warp", warp[src]),
                        ("r_wgen", rows[3, at]), ("r_pc", pcs[batch[src]]), ("r_scope", 0), ("r_clk", rows[4, at])):
        getattr(c, name)[f] = value
    c.r_ctas[f] = False
    c.r_mcta[x[other_cta]] = True
    c.r_weak[x] = True
    c.r_mthread[x] = mthread
    c.r_mwarp[x] = mwarp
    c.r_wgen_max[x] = wgen_max
    if cand.size:
        for name, value in (("r2_tid", tid[win]), ("r2_cta", cta), ("r2_warp", warp[win]), ("r2_pc", pcs[batch[win]]),
                            ("r2_scope", 0)):
            getattr(c, name)[wx] = value
    c.r_full[x] = (c.r_mthread[x] & c.r_mwarp[x] & c.r_weak[x] & (c.r2_tid[x] >= 0)
                   & ((c.r2_cta[x] != c.r_cta[x]) | (c.r2_warp[x] != c.r_warp[x])))
