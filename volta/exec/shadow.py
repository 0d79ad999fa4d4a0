"""Race detection by shadow memory, one instruction's lanes at a time (DESIGN.md "Races").

Two accesses race when they touch the same bytes from different threads, one writes, not both
are atomic, and no barrier orders them: different CTAs are never ordered; in one CTA, `bar.sync`
starts a new generation, and `bar.warp.sync` orders threads of one warp. Each granule keeps the
last write and a summary of the reads since (one reader plus "several threads"/"several CTAs"
flags), which is exact for deciding whether a later write conflicts with some earlier read.
Race tracking holds synchronization state and knows nothing of values.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

FIELDS_W = ("w_tid", "w_cta", "w_gen", "w_warp", "w_wgen", "w_pc", "w_atomic")
FIELDS_R = ("r_tid", "r_cta", "r_gen", "r_warp", "r_wgen", "r_pc", "r_mthread", "r_mcta")


@dataclass
class Conflict:
    granule: int  # flat granule index (copy * granules + offset // g)
    prior_pc: int
    prior_tid: int
    pc: int
    tid: int
    prior_write: bool
    write: bool


class Shadow:
    """Per-granule access history of one region (all its per-CTA copies)."""

    def __init__(self, nbytes: int, granule: int):
        self.g = granule
        self.n = (nbytes + granule - 1) // granule
        for name in FIELDS_W + FIELDS_R:
            dtype = bool if name in ("w_atomic", "r_mthread", "r_mcta") else np.int64
            setattr(self, name, np.full(self.n, -1 if dtype is np.int64 else False, dtype=dtype))
        self.scratch = np.zeros(self.n, np.int64)  # duplicate detection within one batch (scatter, re-read)
        self._arange = np.arange(0, dtype=np.int64)

    def refine(self, granule: int) -> None:
        """Switch to a finer granule (a sub-word access appeared): each entry repeats."""
        factor = self.g // granule
        for name in FIELDS_W + FIELDS_R:
            setattr(self, name, np.repeat(getattr(self, name), factor))
        self.g, self.n = granule, self.n * factor
        self.scratch = np.zeros(self.n, np.int64)

    def access(self, gidx, tid, cta, gen, warp, wgen, pc: int, write: bool, atomic: bool,
               warp_uniform: bool = False) -> tuple[list[Conflict], np.ndarray]:
        """Check a batch of granule accesses against history and record them. Arrays are per access.

        Returns the conflicts, and the pairs of positions (k, j) of the batch where two threads of one
        warp write one granule in this one instruction. With `warp_uniform` (a plain `st`) those pairs
        are not races: CUDA lets one of the writes land, so the caller must show the values equal."""
        conflicts = []
        same_warp = np.zeros((0, 2), np.int64)
        # 1. lanes of this very instruction against each other (distinct threads, same interval)
        if write and gidx.size > 1 and not atomic:
            pos = self._positions(gidx.size)
            self.scratch[gidx] = pos
            loser = np.flatnonzero(self.scratch[gidx] != pos)  # a granule another lane also writes
            if loser.size:
                winner = self.scratch[gidx[loser]]
                other = tid[loser] != tid[winner]
                one_warp = other & (warp[loser] == warp[winner]) if warp_uniform else np.zeros(loser.size, bool)
                racing = other & ~one_warp
                if racing.any():
                    k = int(np.argmax(racing))
                    a, b = int(winner[k]), int(loser[k])
                    conflicts.append(Conflict(int(gidx[a]), pc, int(tid[a]), pc, int(tid[b]), True, True))
                same_warp = np.stack([loser[one_warp], winner[one_warp]], axis=1)
        # 2. against the last write
        w_tid = self.w_tid[gidx]
        hit = (w_tid >= 0) & self._concurrent(w_tid, self.w_cta[gidx], self.w_gen[gidx], self.w_warp[gidx],
                                               self.w_wgen[gidx], tid, cta, gen, warp, wgen)
        if atomic:
            hit &= ~self.w_atomic[gidx]
        if hit.any():
            k = int(np.argmax(hit))
            conflicts.append(Conflict(int(gidx[k]), int(self.w_pc[gidx[k]]), int(w_tid[k]), pc, int(tid[k]), True, write))
        if write:
            # 3. a write against reads since the last write
            r_tid = self.r_tid[gidx]
            r_cta = self.r_cta[gidx]
            same_interval = (r_cta == cta) & (self.r_gen[gidx] == gen)
            warp_ordered = (self.r_warp[gidx] == warp) & (self.r_wgen[gidx] != wgen) & ~self.r_mthread[gidx]
            hit = (r_tid >= 0) & (
                self.r_mcta[gidx] | (r_cta != cta) | (same_interval & ~warp_ordered & (self.r_mthread[gidx] | (r_tid != tid)))
            )
            if hit.any():
                k = int(np.argmax(hit))
                conflicts.append(Conflict(int(gidx[k]), int(self.r_pc[gidx[k]]), int(r_tid[k]), pc, int(tid[k]), False, True))
            for name, value in zip(FIELDS_W, (tid, cta, gen, warp, wgen, pc, atomic)):
                getattr(self, name)[gidx] = value
            self.r_tid[gidx] = -1
            self.r_mthread[gidx] = False
            self.r_mcta[gidx] = False
        else:
            self._record_reads(gidx, tid, cta, gen, warp, wgen, pc)
        return conflicts, same_warp

    @staticmethod
    def _concurrent(p_tid, p_cta, p_gen, p_warp, p_wgen, tid, cta, gen, warp, wgen):
        warp_ordered = (p_warp == warp) & (p_wgen != wgen)
        return (p_tid != tid) & ((p_cta != cta) | ((p_gen == gen) & ~warp_ordered))

    def _record_reads(self, gidx, tid, cta, gen, warp, wgen, pc):
        r_tid = self.r_tid[gidx]
        fresh = (r_tid < 0) | ((self.r_cta[gidx] == cta) & (self.r_gen[gidx] < gen))
        other_cta = (r_tid >= 0) & (self.r_cta[gidx] != cta)
        other_thread = (r_tid >= 0) & ~fresh & ~other_cta & (r_tid != tid)
        self.r_mcta[gidx[other_cta]] = True
        self.r_mthread[gidx[other_thread]] = True
        f = gidx[fresh]
        if f.size:
            self.r_mthread[f] = False
            for name, value in zip(("r_tid", "r_cta", "r_gen", "r_warp", "r_wgen", "r_pc"),
                                   (tid, cta, gen, warp, wgen, pc)):
                getattr(self, name)[f] = value[fresh] if isinstance(value, np.ndarray) else value
        # several lanes of this instruction reading one granule: scatter positions, and see who lost
        if gidx.size > 1:
            pos = self._positions(gidx.size)
            self.scratch[gidx] = pos
            loser = self.scratch[gidx] != pos
            if loser.any():
                self.r_mthread[gidx[loser]] = True
                if isinstance(cta, np.ndarray):
                    self.scratch[gidx] = cta
                    other = self.scratch[gidx] != cta
                    if other.any():
                        self.r_mcta[gidx[other]] = True

    def _positions(self, n: int) -> np.ndarray:
        if self._arange.size < n:
            self._arange = np.arange(max(n, 2 * self._arange.size), dtype=np.int64)
        return self._arange[:n]
