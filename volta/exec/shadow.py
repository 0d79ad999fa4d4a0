"""Race detection by shadow memory, one instruction's lanes at a time (DESIGN.md "Races").

Two accesses race when they touch the same bytes from different threads, one writes, not both
are atomic, and no barrier orders them: different CTAs are never ordered; in one CTA, `bar.sync`
starts a new generation, and `bar.warp.sync` orders threads of one warp. Each granule keeps the
last write and a summary of the reads since (one reader plus "several threads"/"several CTAs"
flags), which is exact for deciding whether a later write conflicts with some earlier read.
Race tracking holds synchronization state and knows nothing of values.

Strong accesses (atomics, `.volatile`, `.relaxed`/`.acquire`/`.release` loads and stores) carry a
scope (1 cta, 2 cluster, 3 gpu, 4 sys; 0 is a weak access). Two strong accesses are *morally
strong* (PTX memory model) when each one's scope includes the other's thread: same CTA, or both
at gpu/sys scope; then they do not race. A `.cta`-scoped atomic used by two blocks is a race.
Causality through release/acquire patterns comes in as vector clocks (`volta/exec/memmodel.py`):
`order(prior_tid, prior_clk, tid)` says which prior accesses happen before the current ones.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

FIELDS_W = ("w_tid", "w_cta", "w_gen", "w_warp", "w_wgen", "w_pc", "w_scope", "w_clk", "w_data")
FIELDS_R = ("r_tid", "r_cta", "r_gen", "r_warp", "r_wgen", "r_pc", "r_mthread", "r_mcta", "r_scope", "r_clk",
            "r_weak", "r_ctas", "r_mwarp", "r_wgen_max")
_BOOL = ("r_mthread", "r_mcta", "r_weak", "r_ctas", "w_data", "r_mwarp")
GPU = 3  # scopes at or above this include every thread of the grid
PLAIN = 10  # added to the scope of a strong access that is not an atomic (ld/st .volatile/.relaxed/…)


def morally_strong(p_scope, p_cta, p_warp, scope, cta, warp):
    """Both strong and each scope includes the other thread (same CTA, or both gpu/sys scoped). Not for two
    non-atomic strong accesses (volatile loads/stores) of threads of one warp: that is warp-synchronous code,
    which nothing orders under independent thread scheduling (the outcome depends on the interleaving)."""
    p_level, level = p_scope % PLAIN, scope % PLAIN
    return (p_scope > 0) & (scope > 0) & ((p_cta == cta) | ((p_level >= GPU) & (level >= GPU))) & ~(
        (p_warp == warp) & (p_scope >= PLAIN) & (scope >= PLAIN))


@dataclass
class Conflict:
    granule: int  # flat granule index (copy * granules + offset // g)
    prior_pc: int
    prior_tid: int
    pc: int
    tid: int
    prior_write: bool
    write: bool
    prior_strong: bool = False  # the conflict involves strong accesses whose scopes do not cover both threads
    # write-write conflicts: (position, prior position in the batch or -1, prior tid, prior pc, prior data?)
    # of every racing access, so that the caller can compare the stored values
    positions: tuple = ()


class Shadow:
    """Per-granule access history of one region (all its per-CTA copies)."""

    def __init__(self, nbytes: int, granule: int):
        self.g = granule
        self.n = (nbytes + granule - 1) // granule
        for name in FIELDS_W + FIELDS_R:
            dtype = bool if name in _BOOL else np.int64
            init = 0 if name in ("w_scope", "r_scope", "w_clk", "r_clk") else -1
            setattr(self, name, np.full(self.n, init if dtype is np.int64 else False, dtype=dtype))
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
               warp_uniform: bool = False, scope=None, clk=None, order=None,
               data=None) -> tuple[list[Conflict], np.ndarray]:
        """Check a batch of granule accesses against history and record them. Arrays are per access.

        `scope`: 0 for a weak access, else the scope of a strong one (int or per access); `atomic` alone
        means gpu scope. `clk` is each access's own vector-clock entry and `order(prior_tid, prior_clk,
        positions)` says which earlier accesses happen before (None: only barriers order).
        Returns the conflicts, and the pairs of positions (k, j) of the batch where two threads of one
        warp write one granule in this one instruction. With `warp_uniform` (a plain `st`) those pairs
        are not races: CUDA lets one of the writes land, so the caller must show the values equal."""
        conflicts = []
        same_warp = np.zeros((0, 2), np.int64)
        if scope is None:
            scope = GPU if atomic else 0
        scope = np.broadcast_to(np.asarray(scope, np.int64), gidx.shape)
        clk = np.zeros(gidx.size, np.int64) if clk is None else np.broadcast_to(np.asarray(clk, np.int64), gidx.shape)
        data = np.zeros(gidx.size, bool) if data is None else np.broadcast_to(np.asarray(data, bool), gidx.shape)
        # 1. lanes of this very instruction against each other (distinct threads, same interval)
        if write and gidx.size > 1 and not ((scope >= GPU) & (scope < PLAIN)).all():
            pos = self._positions(gidx.size)
            self.scratch[gidx] = pos
            loser = np.flatnonzero(self.scratch[gidx] != pos)  # a granule another lane also writes
            if loser.size:
                winner = self.scratch[gidx[loser]]
                other = (tid[loser] != tid[winner]) & ~morally_strong(scope[winner], cta[winner], warp[winner],
                                                                      scope[loser], cta[loser], warp[loser])
                one_warp = other & (warp[loser] == warp[winner]) if warp_uniform else np.zeros(loser.size, bool)
                racing = other & ~one_warp
                if racing.any():
                    k = int(np.argmax(racing))
                    a, b = int(winner[k]), int(loser[k])
                    conflicts.append(Conflict(int(gidx[a]), pc, int(tid[a]), pc, int(tid[b]), True, True,
                                              bool(scope[a] or scope[b]),
                                              tuple((int(b_), int(a_), int(tid[a_]), pc, bool(data[a_]))
                                                    for b_, a_ in zip(loser[racing], winner[racing]))))
                same_warp = np.stack([loser[one_warp], winner[one_warp]], axis=1)
        # 2. against the last write
        w_tid = self.w_tid[gidx]
        w_scope = self.w_scope[gidx]
        hit = (w_tid >= 0) & self._concurrent(w_tid, self.w_cta[gidx], self.w_gen[gidx], self.w_warp[gidx],
                                               self.w_wgen[gidx], tid, cta, gen, warp, wgen)
        hit &= ~morally_strong(w_scope, self.w_cta[gidx], self.w_warp[gidx], scope, cta, warp)
        if order is not None and hit.any():
            hit &= ~order(w_tid, self.w_clk[gidx], np.arange(gidx.size))
        if hit.any():
            k = int(np.argmax(hit))
            conflicts.append(Conflict(int(gidx[k]), int(self.w_pc[gidx[k]]), int(w_tid[k]), pc, int(tid[k]), True,
                                      write, bool(w_scope[k] or scope[k]),
                                      tuple((int(j), -1, int(w_tid[j]), int(self.w_pc[gidx[j]]),
                                             bool(self.w_data[gidx[j]])) for j in np.flatnonzero(hit))
                                      if write else ()))
        if write:
            # 3. a write against reads since the last write
            r_tid = self.r_tid[gidx]
            r_cta = self.r_cta[gidx]
            same_interval = (r_cta == cta) & (self.r_gen[gidx] == gen)
            # every read since the last write by this warp, in an earlier warp generation (__syncwarp, or
            # every earlier step under --lockstep-warps)
            warp_ordered = (self.r_warp[gidx] == warp) & ~self.r_mwarp[gidx] & (self.r_wgen_max[gidx] < wgen)
            hit = (r_tid >= 0) & (
                self.r_mcta[gidx] | (r_cta != cta) | (same_interval & ~warp_ordered & (self.r_mthread[gidx] | (r_tid != tid)))
            )
            if hit.any():
                # strong reads and a strong write whose scopes cover each other do not race
                several = self.r_mthread[gidx] | self.r_mcta[gidx]
                one = ~several & morally_strong(self.r_scope[gidx], r_cta, self.r_warp[gidx], scope, cta, warp)
                all_strong = several & (scope > 0) & ~self.r_weak[gidx] & (
                    ((scope % PLAIN >= GPU) & ~self.r_ctas[gidx]) | (~self.r_mcta[gidx] & (r_cta == cta)))
                # several volatile readers, all of the writer's warp, and a volatile write: warp-synchronous
                all_strong &= ~((scope >= PLAIN) & ~self.r_mwarp[gidx] & (self.r_warp[gidx] == warp))
                hit &= ~(one | all_strong)
                if order is not None and hit.any():
                    hit &= ~(~several & order(r_tid, self.r_clk[gidx], np.arange(gidx.size)))
            if hit.any():
                k = int(np.argmax(hit))
                conflicts.append(Conflict(int(gidx[k]), int(self.r_pc[gidx[k]]), int(r_tid[k]), pc, int(tid[k]), False,
                                          True, bool(self.r_scope[gidx[k]] or scope[k])))
            for name, value in zip(FIELDS_W, (tid, cta, gen, warp, wgen, pc, scope, clk, data)):
                getattr(self, name)[gidx] = value
            self.r_tid[gidx] = -1
            for name in ("r_mthread", "r_mcta", "r_weak", "r_ctas", "r_mwarp"):
                getattr(self, name)[gidx] = False
        else:
            self._record_reads(gidx, tid, cta, gen, warp, wgen, pc, scope, clk)
        return conflicts, same_warp

    @staticmethod
    def _concurrent(p_tid, p_cta, p_gen, p_warp, p_wgen, tid, cta, gen, warp, wgen):
        warp_ordered = (p_warp == warp) & (p_wgen != wgen)
        return (p_tid != tid) & ((p_cta != cta) | ((p_gen == gen) & ~warp_ordered))

    def _record_reads(self, gidx, tid, cta, gen, warp, wgen, pc, scope, clk):
        if scope.any():
            self.r_weak[gidx[scope == 0]] = True
            self.r_ctas[gidx[(scope > 0) & (scope % PLAIN < GPU)]] = True
        else:
            self.r_weak[gidx] = True
        # duplicates in the batch come from one warp (same generation) or set r_mwarp below, so last-wins is exact
        self.r_wgen_max[gidx] = np.maximum(self.r_wgen_max[gidx], wgen)
        r_tid = self.r_tid[gidx]
        fresh = (r_tid < 0) | ((self.r_cta[gidx] == cta) & (self.r_gen[gidx] < gen))
        other_cta = (r_tid >= 0) & (self.r_cta[gidx] != cta)
        other_thread = (r_tid >= 0) & ~fresh & ~other_cta & (r_tid != tid)
        self.r_mcta[gidx[other_cta]] = True
        self.r_mthread[gidx[other_thread]] = True
        self.r_mwarp[gidx[other_thread & (self.r_warp[gidx] != warp)]] = True
        f = gidx[fresh]
        if f.size:
            self.r_mthread[f] = False
            for name, value in zip(("r_tid", "r_cta", "r_gen", "r_warp", "r_wgen", "r_pc", "r_scope", "r_clk"),
                                   (tid, cta, gen, warp, wgen, pc, scope, clk)):
                getattr(self, name)[f] = value[fresh] if isinstance(value, np.ndarray) else value
            self.r_weak[f] = scope[fresh] == 0
            self.r_ctas[f] = (scope[fresh] > 0) & (scope[fresh] % PLAIN < GPU)
            self.r_mwarp[f] = False
            self.r_wgen_max[f] = wgen[fresh] if isinstance(wgen, np.ndarray) else wgen
        # several lanes of this instruction reading one granule: scatter positions, and see who lost
        if gidx.size > 1:
            pos = self._positions(gidx.size)
            self.scratch[gidx] = pos
            loser = self.scratch[gidx] != pos
            if loser.any():
                self.r_mthread[gidx[loser]] = True
                if isinstance(warp, np.ndarray):
                    self.scratch[gidx] = warp
                    self.r_mwarp[gidx[self.scratch[gidx] != warp]] = True
                if isinstance(cta, np.ndarray):
                    self.scratch[gidx] = cta
                    other = self.scratch[gidx] != cta
                    if other.any():
                        self.r_mcta[gidx[other]] = True

    def _positions(self, n: int) -> np.ndarray:
        if self._arange.size < n:
            self._arange = np.arange(max(n, 2 * self._arange.size), dtype=np.int64)
        return self._arange[:n]
