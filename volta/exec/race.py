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

    def refine(self, granule: int) -> None:
        """Switch to a finer granule (a sub-word access appeared): each entry repeats."""
        factor = self.g // granule
        for name in FIELDS_W + FIELDS_R:
            setattr(self, name, np.repeat(getattr(self, name), factor))
        self.g, self.n = granule, self.n * factor

    def access(self, gidx, tid, cta, gen, warp, wgen, pc: int, write: bool, atomic: bool) -> list[Conflict]:
        """Check a batch of granule accesses against history and record them. Arrays are per access."""
        conflicts = []
        # 1. lanes of this very instruction against each other (distinct threads, same interval)
        if write:
            order = np.argsort(gidx, kind="stable")
            sorted_g = gidx[order]
            dup = np.nonzero(sorted_g[1:] == sorted_g[:-1])[0]
            if dup.size and not atomic:
                same = dup[tid[order][dup] != tid[order][dup + 1]]
                if same.size:
                    a, b = order[same[0]], order[same[0] + 1]
                    conflicts.append(Conflict(int(gidx[a]), pc, int(tid[a]), pc, int(tid[b]), True, True))
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
        return conflicts

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
        # several lanes of this instruction reading one granule
        if gidx.size > 1:
            uniq, first, counts = np.unique(gidx, return_index=True, return_counts=True)
            multi = counts > 1
            if multi.any():
                self.r_mthread[uniq[multi]] = True
                order = np.argsort(gidx, kind="stable")
                c_sorted = cta[order] if isinstance(cta, np.ndarray) else np.full(gidx.size, cta)
                starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
                cmin = np.minimum.reduceat(c_sorted, starts)
                cmax = np.maximum.reduceat(c_sorted, starts)
                self.r_mcta[uniq[cmin != cmax]] = True
