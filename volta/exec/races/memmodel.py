"""Causality order of the PTX memory model for the race detector: vector clocks, scopes, fences.

The PTX ISA (memory consistency model chapter) orders two accesses of different threads only
through *synchronizes-with* between a release pattern and an acquire pattern that observes it,
where both are *morally strong* (each one's scope includes the other's thread):

* release pattern on location M: a release operation on M (`st.release`, `atom.release`/`.acq_rel`,
  `red.release`), or a fence (`fence.sc`, `fence.acq_rel`, `membar`) followed in program order by
  a strong write to M (`.relaxed`, `.volatile`, any atomic); its scope is the smaller of the two;
* acquire pattern on M: an acquire operation on M (`ld.acquire`, `atom.acquire`/`.acq_rel`), or a
  strong read of M followed in program order by a fence.

Here each thread has a vector clock (one row of `vc`, only allocated for programs that contain a
fence or a release/acquire operation). A release publishes the thread's clock on M, keyed by
(cta-scoped?, CTA); an acquire joins every publication on M that is morally strong with it. A
strong read followed by a fence joins at the fence (`pending`); a write after a fence publishes
the clock the thread had at the fence. Atomic read-modify-writes continue M's release sequence;
any other write to M replaces it. `bar.sync` joins the clocks of the CTA. Accesses record the
thread's own clock entry; `ordered` tells the shadow memory which earlier accesses happen before.

Scopes: 1 cta, 2 cluster (this machine launches clusters of one CTA, so cluster is the CTA),
3 gpu, 4 sys; `.volatile` is `.relaxed.sys`; atomics without a scope are `.gpu`, without an
ordering `.relaxed` (they do not synchronize unless a fence or release/acquire is involved).
"""
from __future__ import annotations

import numpy as np

from volta.errors import Unsupported

CTA, CLUSTER, GPU, SYS = 1, 2, 3, 4
SCOPES = {".cta": CTA, ".cluster": CLUSTER, ".gpu": GPU, ".sys": SYS}
MAX_THREADS = 2048  # vector clocks are L x L int32 (clocks, pending acquires, clocks at fences): 16 MiB each
ORDERING_FENCES = ("fence", "membar")


def scope_of(op, default=GPU) -> int:
    if op.d.has(".volatile"):
        return SYS
    for name, value in SCOPES.items():
        if op.d.has(name):
            return value
    if op.op == "membar":
        return {".cta": CTA, ".gl": GPU, ".sys": SYS}.get(next((m for m in (".cta", ".gl", ".sys")
                                                               if op.d.has(m)), ".gl"), GPU)
    return default


def strength(op) -> int:
    """0 for a weak (plain) access, else the scope of a strong one."""
    if op.op in ("atom", "red"):
        return scope_of(op)
    if op.d.has(".volatile") or op.d.has(".relaxed") or op.d.has(".acquire") or op.d.has(".release") \
            or op.d.has(".mmio"):
        return scope_of(op)
    return 0


def is_ordering_fence(op) -> bool:
    """`fence.sc`, `fence.acq_rel` (and plain `fence` forms of them) and `membar`; not proxy fences."""
    if op.op == "membar":
        return not op.d.has(".proxy")
    if op.op != "fence":
        return False
    return not any(op.d.has(m) for m in (".proxy", ".mbarrier_init", ".proxy::tensormap", ".op_restrict"))


def needs_clocks(prog) -> bool:
    for op in prog.ops:
        if op.op in ORDERING_FENCES and is_ordering_fence(op):
            return True
        if op.op in ("ld", "st", "atom", "red") and any(op.d.has(m) for m in (".acquire", ".release", ".acq_rel")):
            return True
    return False


class Clocks:
    """Vector clocks of every thread of the launch, and the publications per synchronizing location."""

    def __init__(self, m):
        n = m.L
        self.synced = False  # a release/acquire or fence happened (matters only without clocks)
        if n > MAX_THREADS:
            self.vc = None  # too many threads for vector clocks: see `unordered_race`
            self.L = n
            return
        self.L = n
        self.vc = np.zeros((n, n), np.int32)
        np.fill_diagonal(self.vc, 1)
        self.pending = None
        self.fence_clock = np.zeros(n, np.int32)  # own clock at the last ordering fence (0: none yet)
        self.fence_rows = None  # the whole clock at that fence (allocated at the first fence)
        self.fence_scope = np.zeros(n, np.int8)
        self.locs: dict = {}  # (region name, flat byte) -> {(cta_scoped, cta): clock row}
        self.m = m

    def _need(self, op):
        self.synced = True

    def unordered_race(self, op):
        """A race is about to be reported, but synchronization through memory was not tracked (no clocks):
        it might order the pair, so refuse instead of claiming the race."""
        if self.vc is None and self.synced:
            raise Unsupported(f"a possible race at `{op.d.inst.opcode}` after synchronization through memory "
                              f"(release/acquire or a fence) that the race detector cannot follow in a launch of "
                              f"{self.L} threads (vector clocks handle at most {MAX_THREADS})", op.span)

    # ---- what the shadow memory asks -------------------------------------------------------
    def own(self, tids):
        if self.vc is None:
            return None
        return self.vc[tids, tids].astype(np.int64)

    def ordered(self, tids):
        """A function for Shadow.access: prior (tid, clock) happens before access k of the batch."""
        if self.vc is None:
            return None
        vc = self.vc

        def order(prior_tid, prior_clk, positions):
            p = np.asarray(prior_tid)
            ok = p >= 0
            out = np.zeros(p.shape, bool)
            out[ok] = vc[tids[positions[ok]], p[ok]] >= prior_clk[ok]
            return out

        return order

    # ---- events --------------------------------------------------------------------------------
    def barrier(self, lanes):
        if self.vc is None or lanes.size == 0:
            return
        joined = self.vc[lanes].max(axis=0)
        if self.pending is not None:
            joined = np.maximum(joined, self.pending[lanes].max(axis=0))
        self.vc[lanes] = joined
        self.vc[lanes, lanes] += 1

    def fence(self, op, lanes, scope):
        """`fence.sc`/`.acq_rel` (the default) and `membar` are both halves; `fence.acquire` and
        `fence.release` (uni-directional, PTX 8.6+) only theirs."""
        self._need(op)
        if self.vc is None:
            return
        if self.pending is not None and not op.d.has(".release"):  # acquire patterns: strong reads before it
            self.vc[lanes] = np.maximum(self.vc[lanes], self.pending[lanes])
            self.pending[lanes] = 0
        if op.d.has(".acquire") and not op.d.has(".acq_rel"):
            return
        if self.fence_rows is None:
            self.fence_rows = np.zeros_like(self.vc)
        self.fence_rows[lanes] = self.vc[lanes]
        self.fence_clock[lanes] = self.vc[lanes, lanes]
        self.fence_scope[lanes] = scope
        self.vc[lanes, lanes] += 1

    def read(self, op, lane, key, cta, scope, acquire: bool):
        """A strong read of `key` by `lane`: join what is published there (now, or at the next fence)."""
        if self.vc is None:
            if acquire:
                self._need(op)
            return
        pubs = self.locs.get(key)
        if not pubs:
            return
        rows = [row for (cta_scoped, c), row in pubs.items() if c == cta or (not cta_scoped and scope >= GPU)]
        if not rows:
            return
        joined = np.maximum.reduce(rows) if len(rows) > 1 else rows[0]
        if acquire:
            self.vc[lane] = np.maximum(self.vc[lane], joined)
        else:
            if self.pending is None:
                self.pending = np.zeros_like(self.vc)
            self.pending[lane] = np.maximum(self.pending[lane], joined)

    def write(self, op, lane, key, cta, scope, release: bool, rmw: bool):
        """A write of `key` by `lane` (scope 0: weak). Publishes the clock of a release pattern."""
        if self.vc is None:
            if release:
                self._need(op)
            return
        row = None
        if scope and release:
            row, s = self.vc[lane].copy(), scope
            self.vc[lane, lane] += 1
        elif scope and self.fence_clock[lane] > 0:
            # a release pattern publishes what the thread knew at the fence (not what it acquired since)
            row, s = self.fence_rows[lane].copy(), min(scope, int(self.fence_scope[lane]))
        pubs = self.locs.get(key)
        if not rmw or not scope:
            pubs = None  # a plain or non-RMW write: readers of it observe only its own release (if any)
        if row is None:
            if pubs is None:
                self.locs.pop(key, None)
            return
        pubs = dict(pubs or {})
        k = (s < GPU, int(cta))
        pubs[k] = np.maximum(pubs[k], row) if k in pubs else row
        self.locs[key] = pubs
