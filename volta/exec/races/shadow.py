"""Race detection by shadow memory, one instruction's lanes at a time (DESIGN.md "Races").

Two accesses race when they touch the same bytes from different threads, one writes, not both
are atomic, and no barrier orders them: different CTAs are never ordered; in one CTA, `bar.sync`
starts a new generation, and `bar.warp.sync` orders threads of one warp. Each granule keeps the
last write and a summary of the reads since (one reader plus "several threads"/"several CTAs"
flags), which is exact for deciding whether a later write conflicts with some earlier read, plus a
second reader of another thread than the first, so that a report never names the writer as the reader.
Race tracking holds synchronization state and knows nothing of values.

The history is paged: a page of PAGE granules gets its entries on first touch, so memory follows what
a launch touches, not the buffers it declares (three 4096x4096 matrices of which one CTA reads a few
rows). A batch's granule indices are translated to slots of compact arrays once (`_local`), and the
checks stay vectorized over the batch. Two shortcuts skip work whose outcome is known, for the shared
tile a GEMM reads dozens of times between barriers: a read record that is *full* (`r_full`: several warps
read the granule in this generation, a second reader of another warp kept) is left as it is by a further
weak read of its CTA and generation; and a batch of one CTA meets no concurrent write where that CTA alone
wrote the region, in earlier barrier generations only (`write_gens`). Weak reads of one CTA and generation are
not merged batch by batch: they wait in a log (volta/exec/races/readlog.py) that is folded into the read records
in one pass (`settle`) before anything reads those (a write, another kind of read, a lookup, `refine`).
A *private* shadow (each granule accessed by the threads of one CTA only: a CTA's copy of shared memory, with no
asynchronous copy that looks back at reads of earlier barrier intervals) drops the log instead of folding it
when the access that would fold it is of the log's CTA in a later barrier generation (`_settle_before`): a read
record of an earlier generation of the only CTA that touches the granule is ordered before every access still
to come, so no decision can depend on it (tests/exec/test_shadow_readlog.py checks that against the fold).

Strong accesses (atomics, `.volatile`, `.relaxed`/`.acquire`/`.release` loads and stores) carry a
scope (1 cta, 2 cluster, 3 gpu, 4 sys; 0 is a weak access). Two strong accesses are *morally
strong* (PTX memory model) when each one's scope includes the other's thread: same CTA, or both
at gpu/sys scope; then they do not race. A `.cta`-scoped atomic used by two blocks is a race.
Causality through release/acquire patterns comes in as vector clocks (`volta/exec/races/memmodel.py`):
`order(prior_tid, prior_clk, tid)` says which prior accesses happen before the current ones.

Morally strong accesses are no data race, but when at least one of them is not an atomic (a `.volatile` or
`.relaxed` load or store) and nothing orders them, they are an *ordering race* (`Conflict.ordering`): the
value read, or the value that remains, depends on the schedule. A read of a write is ordered after it when
causality orders them, or when the reading thread already observed that write (an earlier strong read of it
since it was made: coherence, the PTX model's observation order). Polling reads (volta/ir/spin.py: a loop
repeats them until the value it waits for arrives) are not reported against the writes they wait for. Strong
reads since the last write are kept per granule and thread in `strong` (a dict: strong accesses are few).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from volta.exec.races.readlog import ReadLog, fold

FIELDS_W = ("w_tid", "w_cta", "w_gen", "w_warp", "w_wgen", "w_pc", "w_scope", "w_clk", "w_data", "w_silent",
            "w_many")
FIELDS_R = ("r_tid", "r_cta", "r_gen", "r_warp", "r_wgen", "r_pc", "r_mthread", "r_mcta", "r_scope", "r_clk",
            "r_weak", "r_ctas", "r_mwarp", "r_wgen_max", "r_full")
FIELDS_R2 = ("r2_tid", "r2_cta", "r2_warp", "r2_pc", "r2_scope")  # a reader of another thread than r_tid
FIELDS = FIELDS_W + FIELDS_R + FIELDS_R2
_BOOL = ("r_mthread", "r_mcta", "r_weak", "r_ctas", "w_data", "r_mwarp", "w_silent", "w_many", "r_full")
_WIDE = ("w_clk", "r_clk")  # vector-clock entries; ids, pcs, scopes and generations fit 32 bits
_ZERO = ("w_scope", "r_scope", "r2_scope", "w_clk", "r_clk")  # 0 when untouched; the others -1 / False
DTYPE = {name: bool if name in _BOOL else np.int64 if name in _WIDE else np.int32 for name in FIELDS}
INIT = {name: False if name in _BOOL else 0 if name in _ZERO else -1 for name in FIELDS}
PAGE_SHIFT = 6  # 64 granules a page: a strided walk down a matrix column touches one small page a row
PAGE = 1 << PAGE_SHIFT
_NO_PAIRS = np.zeros((0, 2), np.int64)   # no two lanes of one warp write one granule (read only: shared)
_NO_PAIRS.flags.writeable = False
GPU = 3  # scopes at or above this include every thread of the grid
PLAIN = 10  # added to the scope of a strong access that is not an atomic (ld/st .volatile/.relaxed/…)


def morally_strong(p_scope, p_cta, scope, cta):
    """Both strong and each scope includes the other thread (same CTA, or both gpu/sys scoped)."""
    p_level, level = p_scope % PLAIN, scope % PLAIN
    return (p_scope > 0) & (scope > 0) & ((p_cta == cta) | ((p_level >= GPU) & (level >= GPU)))


def plain_involved(p_scope, scope):
    """At least one of two strong accesses is not an atomic (a volatile/relaxed/acquire/release ld or st)."""
    return (p_scope >= PLAIN) | (scope >= PLAIN)


@dataclass(frozen=True)
class StrongRead:
    """A strong read of one granule by one thread since the granule's last write (its latest such read)."""

    pc: int
    clk: int
    cta: int
    gen: int
    warp: int
    wgen: int
    scope: int
    polling: bool


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
    ordering: bool = False  # morally strong accesses that nothing orders: an ordering race, not a data race
    prior_silent: bool = False  # the earlier access is a write that, like every write before it, stored the
    # value already there (a read racing only with such writes reads the same value in any order)
    at: int = -1  # position in the batch of the current access (write-after-read conflicts)
    # write-write conflicts: (position, prior position in the batch or -1, prior tid, prior pc, prior data?)
    # of every racing access, so that the caller can compare the stored values
    positions: tuple = ()


def _per_access(v, shape, dtype=np.int64) -> np.ndarray:
    """`v` (a scalar or an array) as one read-only value per access, without a copy where it already is one."""
    if isinstance(v, np.ndarray):
        return v if v.shape == shape and v.dtype == dtype else np.broadcast_to(np.asarray(v, dtype), shape)
    return np.full(shape, v, dtype)   # a scalar: filling a batch-sized array costs a third of broadcasting


class _Columns:
    """The compact history: one array per field, PAGE entries for each page slot in use."""
    __slots__ = FIELDS + ("scratch",)


class _View:
    """One field read by flat granule index, for callers outside this module (the last writer of an
    output element, the cp.async window check): untouched granules read as initial and allocate nothing."""
    __slots__ = ("shadow", "name")

    def __init__(self, shadow: Shadow, name: str):
        self.shadow, self.name = shadow, name

    def __getitem__(self, gidx):
        sh, name = self.shadow, self.name
        sh.settle()
        g = np.asarray(gidx, np.int64)
        slot = sh.table[g >> PAGE_SHIFT].astype(np.int64) - 1
        out = np.full(g.shape, INIT[name], DTYPE[name])
        live = slot >= 0
        if live.any():
            out[live] = getattr(sh.c, name)[slot[live] * PAGE + (g[live] & (PAGE - 1))]
        return out[()]


class Shadow:
    """Per-granule access history of one region (all its per-CTA copies), paged."""

    def __init__(self, nbytes: int, granule: int, lazy_reads: bool = True, private: bool = False):
        self.g = granule
        self.n = (nbytes + granule - 1) // granule
        self.table = np.zeros(-(-self.n // PAGE), np.int32)  # slot + 1 of each page, 0: untouched (lazy zeros)
        self.used = 0  # page slots in use
        self.c = _Columns()
        for name in FIELDS:
            setattr(self.c, name, np.empty(0, DTYPE[name]))
        self.c.scratch = np.empty(0, np.int64)  # duplicate detection within one batch (scatter, re-read)
        self._arange = np.arange(0, dtype=np.int64)
        # strong reads since each granule's last write: granule -> {tid: StrongRead}
        self.strong: dict = {}
        self.write_gens: dict = {}  # CTA -> the latest barrier generation in which it wrote here
        # weak reads of one CTA and generation not yet merged into the read records (volta/exec/races/readlog.py);
        # lazy_reads=False merges each batch at once (the reference the read log is tested against)
        self.lazy_reads = lazy_reads
        self.pending = ReadLog()
        self.private = private   # every granule is touched by one CTA only (the caller knows: see the docstring)

    def __getattr__(self, name):
        if name in DTYPE:  # shadow.w_tid[granule]: read by flat granule index
            return _View(self, name)
        raise AttributeError(name)

    @property
    def nbytes(self) -> int:
        """Bytes of history allocated (the pages touched so far, and room to grow)."""
        return sum(getattr(self.c, name).nbytes for name in FIELDS + ("scratch",)) + self.table.nbytes

    def settle(self) -> None:
        """Merge the logged reads into the read records, before anything reads them."""
        if self.pending.rows:
            fold(self.c, self.pending, self._local)

    def _settle_before(self, cta, gen) -> None:
        """Settle before a batch of accesses (per-access `cta`, `gen`) looks at the read records. In a private
        shadow, a log of the batch's one CTA in an earlier generation is dropped instead: its reads are ordered
        before this batch and everything after it (barriers order a CTA's generations; no other CTA touches these
        granules), and a read record older than its CTA's generation decides nothing: a write finds it in no
        interval of its own, a read finds it stale and replaces it, second reader included."""
        log = self.pending
        if self.private and log.rows and gen.size and log.gen < gen.min() and (cta == log.cta).all():
            log.drop()
        else:
            self.settle()

    def refine(self, granule: int) -> None:
        """Switch to a finer granule (a sub-word access appeared): each entry repeats, so each page slot
        becomes `factor` consecutive slots of the pages it now spans."""
        self.settle()
        factor = self.g // granule
        for name in FIELDS + ("scratch",):
            setattr(self.c, name, np.repeat(getattr(self.c, name)[: self.used * PAGE], factor))
        old = self.table
        self.strong = {g * factor + q: dict(v) for g, v in self.strong.items() for q in range(factor)}
        self.table = np.zeros(old.size * factor, np.int32)
        pages = np.flatnonzero(old)
        slots = old[pages].astype(np.int64) - 1
        for q in range(factor):
            self.table[pages * factor + q] = slots * factor + q + 1
        self.g, self.n, self.used = granule, self.n * factor, self.used * factor

    def _local(self, gidx: np.ndarray) -> np.ndarray:
        """Compact positions of flat granule indices, allocating the pages touched for the first time."""
        page = gidx >> PAGE_SHIFT
        slot = self.table[page]
        if not slot.all():
            self._allocate(np.unique(page[slot == 0]))
            slot = self.table[page]
        return (slot.astype(np.int64) - 1) * PAGE + (gidx & (PAGE - 1))

    def _allocate(self, pages: np.ndarray) -> None:
        need = (self.used + pages.size) * PAGE
        have = self.c.scratch.size
        if need > have:  # grow by doubling: amortized copies, at most twice the touched pages
            size = max(need, 2 * have, 16 * PAGE)
            for name in FIELDS + ("scratch",):
                old = getattr(self.c, name)
                new = np.full(size, INIT.get(name, 0), old.dtype)
                new[: old.size] = old
                setattr(self.c, name, new)
        self.table[pages] = self.used + 1 + np.arange(pages.size)
        self.used += pages.size

    def access(self, gidx, tid, cta, gen, warp, wgen, pc: int, write: bool, atomic: bool,
               warp_uniform: bool = False, scope=None, clk=None, order=None,
               data=None, polling: bool = False, silent=None) -> tuple[list[Conflict], np.ndarray]:
        """Check a batch of granule accesses against history and record them. Arrays are per access.

        `scope`: 0 for a weak access, else the scope of a strong one (int or per access); `atomic` alone
        means gpu scope. `clk` is each access's own vector-clock entry and `order(prior_tid, prior_clk,
        positions)` says which earlier accesses happen before (None: only barriers order). `polling`: the
        batch is a polling read (volta/ir/spin.py). `silent`: per write, it stores the bytes already there.
        Returns the conflicts, and the pairs of positions (k, j) of the batch where two threads of one
        warp write one granule in this one instruction. With `warp_uniform` (a plain `st`) those pairs
        are not races: CUDA lets one of the writes land, so the caller must show the values equal."""
        conflicts = []
        same_warp = _NO_PAIRS
        if scope is None:
            scope = GPU if atomic else 0
        scope = _per_access(scope, gidx.shape)
        clk = _per_access(0 if clk is None else clk, gidx.shape)
        if write:   # what a write stores (a read's are never looked at)
            data = _per_access(False if data is None else data, gidx.shape, bool)
            silent = _per_access(False if silent is None else silent, gidx.shape, bool)
        # li: compact positions (gidx stays the name of a granule in reports); a weak read that meets no write
        # goes to the read log by granule, its positions found (and pages allocated) only when the log is folded
        c, li = self.c, (self._local(gidx) if write else None)
        # 1. lanes of this very instruction against each other (distinct threads, same interval)
        if write and gidx.size > 1 and not ((scope >= GPU) & (scope < PLAIN)).all():
            pos = self._positions(gidx.size)
            c.scratch[li] = pos
            loser = np.flatnonzero(c.scratch[li] != pos)  # a granule another lane also writes
            if loser.size:
                winner = c.scratch[li[loser]]
                other = tid[loser] != tid[winner]
                strong = morally_strong(scope[winner], cta[winner], scope[loser], cta[loser])
                one_warp = other & (warp[loser] == warp[winner]) if warp_uniform else np.zeros(loser.size, bool)
                racing = other & ~one_warp & ~strong
                ordering = other & ~one_warp & strong & plain_involved(scope[winner], scope[loser])
                for chosen, is_ordering in ((racing, False), (ordering, True)):
                    if chosen.any():
                        k = int(np.argmax(chosen))
                        a, b = int(winner[k]), int(loser[k])
                        conflicts.append(Conflict(int(gidx[a]), pc, int(tid[a]), pc, int(tid[b]), True, True,
                                                  bool(scope[a] or scope[b]), is_ordering,
                                                  positions=tuple((int(b_), int(a_), int(tid[a_]), pc, bool(data[a_]))
                                                                  for b_, a_ in zip(loser[chosen], winner[chosen]))))
                same_warp = np.stack([loser[one_warp], winner[one_warp]], axis=1)
        # 2. against the last write (none can be concurrent when every write so far is of this batch's one
        # CTA, in an earlier barrier generation than the batch's: a tile read after the barrier that follows
        # its stores)
        cta0 = int(cta[0]) if gidx.size else -1
        one_cta = bool((cta == cta0).all()) if gidx.size else False
        if one_cta and self.write_gens.keys() <= {cta0} and self.write_gens.get(cta0, -1) < gen.min():
            hit = np.zeros(gidx.size, bool)
        else:
            li = self._local(gidx) if li is None else li
            w_tid = c.w_tid[li]
            hit = (w_tid >= 0) & self._concurrent(w_tid, c.w_cta[li], c.w_gen[li], c.w_warp[li],
                                                   c.w_wgen[li], tid, cta, gen, warp, wgen)
        if hit.any():  # most accesses meet no concurrent write: nothing for the exemptions to remove
            w_scope = c.w_scope[li]
            strong = morally_strong(w_scope, c.w_cta[li], scope, cta)
            if order is not None:
                hit &= ~order(w_tid, c.w_clk[li], np.arange(gidx.size))
            ordering = hit & strong & plain_involved(w_scope, scope)
            hit &= ~strong
            if ordering.any() and not polling:  # a polling read is not reported against the write it waits for
                ordering &= ~self._observed(gidx, tid, ordering)
            else:
                ordering[:] = False
            for chosen, is_ordering in ((hit, False), (ordering, True)):
                if not write:  # a read racing only with writes of the value already there reads it in any order
                    quiet = chosen & c.w_silent[li]
                    if is_ordering:
                        chosen = chosen & ~quiet   # the value read does not depend on the schedule
                    elif (chosen & ~quiet).any():
                        chosen = chosen & ~quiet   # a plain race first; the quiet ones only when alone
                if chosen.any():
                    k = int(np.argmax(chosen))
                    conflicts.append(Conflict(int(gidx[k]), int(c.w_pc[li[k]]), int(w_tid[k]), pc, int(tid[k]), True,
                                              write, bool(w_scope[k] or scope[k]), is_ordering,
                                              positions=tuple((int(j), -1, int(w_tid[j]), int(c.w_pc[li[j]]),
                                                               bool(c.w_data[li[j]])) for j in np.flatnonzero(chosen))
                                              if write else (), prior_silent=bool(c.w_silent[li[k]]) and not write,
                                              at=k))
        if write:
            # 3. a write against reads since the last write
            self._settle_before(cta, gen)
            r_tid = c.r_tid[li]
            r_cta = c.r_cta[li]
            same_interval = (r_cta == cta) & (c.r_gen[li] == gen)
            # every read since the last write by this warp, in an earlier warp generation (__syncwarp, or
            # every earlier step under --lockstep-warps)
            warp_ordered = (c.r_warp[li] == warp) & ~c.r_mwarp[li] & (c.r_wgen_max[li] < wgen)
            hit = (r_tid >= 0) & (
                c.r_mcta[li] | (r_cta != cta) | (same_interval & ~warp_ordered & (c.r_mthread[li] | (r_tid != tid)))
            )
            if hit.any():
                # strong reads and a strong write whose scopes cover each other do not race
                several = c.r_mthread[li] | c.r_mcta[li]
                one = ~several & morally_strong(c.r_scope[li], r_cta, scope, cta)
                all_strong = several & (scope > 0) & ~c.r_weak[li] & (
                    ((scope % PLAIN >= GPU) & ~c.r_ctas[li]) | (~c.r_mcta[li] & (r_cta == cta)))
                hit &= ~(one | all_strong)
                if order is not None and hit.any():
                    hit &= ~(~several & order(r_tid, c.r_clk[li], np.arange(gidx.size)))
            if hit.any():
                if (hit & ~silent).any():  # a write of the value already there races more quietly: list apart
                    hit &= ~silent
                k = int(np.argmax(hit))
                at = li[k]
                reader, reader_pc, reader_scope = int(r_tid[k]), int(c.r_pc[at]), int(c.r_scope[at])
                if reader == int(tid[k]) and c.r2_tid[at] >= 0:  # the writer read it too: name another reader
                    reader, reader_pc, reader_scope = int(c.r2_tid[at]), int(c.r2_pc[at]), int(c.r2_scope[at])
                conflicts.append(Conflict(int(gidx[k]), reader_pc, reader, pc, int(tid[k]), False, True,
                                          bool(reader_scope or scope[k]), at=k))
            if self.strong:
                conflicts += self._stale_reads(gidx, tid, cta, gen, warp, wgen, pc, np.where(silent, 0, scope), order)
            # silent: this write and every earlier one stored the value already there (from the launch's start)
            silent = silent & ((c.w_tid[li] < 0) | c.w_silent[li])
            # many: more than one thread has written the granule (volta/exec/races/racy_reads.py)
            many = c.w_many[li] | ((c.w_tid[li] >= 0) & (c.w_tid[li] != tid))
            if li.size > 1:   # several lanes of this instruction write one granule
                pos = self._positions(li.size)
                c.scratch[li] = pos
                shared_slot = c.scratch[li] != pos
                if shared_slot.any():
                    c.scratch[li] = 0
                    c.scratch[li[shared_slot]] = 1
                    many = many | (c.scratch[li] == 1)
            for name, value in zip(FIELDS_W, (tid, cta, gen, warp, wgen, pc, scope, clk, data, silent, many)):
                getattr(c, name)[li] = value
            for k in ((cta0,) if one_cta else np.unique(cta).tolist()):
                self.write_gens[k] = max(self.write_gens.get(k, -1), int(gen[cta == k].max()))
            c.r_tid[li] = -1
            c.r2_tid[li] = -1
            for name in ("r_mthread", "r_mcta", "r_weak", "r_ctas", "r_mwarp", "r_full"):
                getattr(c, name)[li] = False
            if self.strong:
                for g in set(gidx.tolist()) & self.strong.keys():
                    del self.strong[g]
        elif self.lazy_reads and one_cta and not scope.any() and (gen == gen.flat[0]).all():
            if not self.pending.holds(cta0, int(gen.flat[0])):
                self._settle_before(cta, gen)
            self.pending.add(gidx, tid, _per_access(warp, gidx.shape), _per_access(wgen, gidx.shape), clk, cta0,
                             int(gen.flat[0]), pc)
        else:
            self.settle()
            li = self._local(gidx) if li is None else li
            self._record_reads(c, li, tid, cta, gen, warp, wgen, pc, scope, clk)
            if scope.any():
                self._record_strong(gidx, tid, cta, gen, warp, wgen, pc, scope, clk, polling)
        return conflicts, same_warp

    def weak_reads(self, gidx, tid, cta: int, gen: int, warp, wgen, pc: int) -> bool:
        """`access` of a batch of weak reads of the one CTA `cta` in its barrier generation `gen` (numbers, not
        per-access arrays), with no vector clocks, when the batch meets `access`'s shortcut: every write so far
        is of this CTA in an earlier generation, so no write is concurrent and the reads go to the log, as
        `access` logs them. False, with nothing done, otherwise: the caller then calls `access`. A GEMM's loads
        of its shared tiles between two barriers are all of this kind (tests/exec/test_shadow_readlog.py
        replays random traces through both)."""
        if not (self.lazy_reads and gidx.size and self.write_gens.keys() <= {cta}
                and self.write_gens.get(cta, -1) < gen):
            return False
        if not self.pending.holds(cta, gen):
            self._settle_before(np.full(1, cta, np.int64), np.full(1, gen, np.int64))
        self.pending.add(gidx, tid, warp, wgen, 0, cta, gen, pc)
        return True

    # ---- ordering races: strong reads since the last write ---------------------------------------
    def _observed(self, gidx, tid, where) -> np.ndarray:
        """Positions (among `where`) whose thread already read the granule strongly since its last write: the
        write is then ordered before its later accesses (coherence)."""
        out = np.zeros(gidx.size, bool)
        for k in np.flatnonzero(where):
            out[k] = int(tid[k]) in self.strong.get(int(gidx[k]), ())
        return out

    def _record_strong(self, gidx, tid, cta, gen, warp, wgen, pc, scope, clk, polling):
        tid, cta, gen, warp, wgen = (_per_access(v, gidx.shape) for v in (tid, cta, gen, warp, wgen))
        for k in np.flatnonzero(scope):
            self.strong.setdefault(int(gidx[k]), {})[int(tid[k])] = StrongRead(
                pc, int(clk[k]), int(cta[k]), int(gen[k]), int(warp[k]), int(wgen[k]), int(scope[k]), polling)

    def _stale_reads(self, gidx, tid, cta, gen, warp, wgen, pc, scope, order) -> list:
        """A strong write against the strong reads of other threads since the last write that nothing orders
        before it (the value they read depends on the schedule): at most one ordering conflict."""
        tid, cta, gen, warp, wgen = (_per_access(v, gidx.shape) for v in (tid, cta, gen, warp, wgen))
        for k in np.flatnonzero(scope):
            for reader, r in self.strong.get(int(gidx[k]), {}).items():
                if r.polling or reader == int(tid[k]):
                    continue
                if not (morally_strong(r.scope, r.cta, int(scope[k]), int(cta[k]))
                        and plain_involved(r.scope, int(scope[k]))):
                    continue
                if not self._concurrent(reader, r.cta, r.gen, r.warp, r.wgen, int(tid[k]), int(cta[k]), int(gen[k]),
                                        int(warp[k]), int(wgen[k])):
                    continue
                if order is not None and order(np.array([reader]), np.array([r.clk]), np.array([k]))[0]:
                    continue
                return [Conflict(int(gidx[k]), r.pc, reader, pc, int(tid[k]), False, True, True, True)]
        return []

    @staticmethod
    def _concurrent(p_tid, p_cta, p_gen, p_warp, p_wgen, tid, cta, gen, warp, wgen):
        warp_ordered = (p_warp == warp) & (p_wgen != wgen)
        return (p_tid != tid) & ((p_cta != cta) | ((p_gen == gen) & ~warp_ordered))

    def _record_reads(self, c, li, tid, cta, gen, warp, wgen, pc, scope, clk):
        if not scope.any() and (c.r_full[li] & (c.r_gen[li] == gen) & (c.r_cta[li] == cta)).all():
            return   # weak reads of records already full, from their CTA and generation: nothing below changes
        r_tid = c.r_tid[li]
        fresh = (r_tid < 0) | ((c.r_cta[li] == cta) & (c.r_gen[li] < gen))
        every = bool(fresh.all())   # the first reads since the last write or barrier: nothing to merge into
        if not every:
            if scope.any():
                c.r_weak[li[scope == 0]] = True
                c.r_ctas[li[(scope > 0) & (scope % PLAIN < GPU)]] = True
            else:
                c.r_weak[li] = True
            # duplicates in the batch come from one warp (same generation) or set r_mwarp below, so last-wins
            # is exact
            c.r_wgen_max[li] = np.maximum(c.r_wgen_max[li], wgen)
            other_cta = (r_tid >= 0) & (c.r_cta[li] != cta)
            other_thread = (r_tid >= 0) & ~fresh & ~other_cta & (r_tid != tid)
            c.r_mcta[li[other_cta]] = True
            c.r_mthread[li[other_thread]] = True
            c.r_mwarp[li[other_thread & (c.r_warp[li] != warp)]] = True
        f = li if every else li[fresh]
        if f.size:
            c.r_mthread[f] = False
            for name, value in zip(("r_tid", "r_cta", "r_gen", "r_warp", "r_wgen", "r_pc", "r_scope", "r_clk",
                                    "r_wgen_max"), (tid, cta, gen, warp, wgen, pc, scope, clk, wgen)):
                getattr(c, name)[f] = value if every or not isinstance(value, np.ndarray) else value[fresh]
            fs = scope if every else scope[fresh]
            c.r_weak[f] = fs == 0
            c.r_ctas[f] = (fs > 0) & (fs % PLAIN < GPU)
            c.r_mwarp[f] = False
            # readers of the first reader's CTA in an earlier barrier interval are ordered before what follows
            c.r2_tid[f[c.r2_cta[f] == c.r_cta[f]]] = -1
        # several lanes of this instruction reading one granule: scatter positions, and see who lost
        if li.size > 1:
            pos = self._positions(li.size)
            c.scratch[li] = pos
            loser = c.scratch[li] != pos
            if loser.any():
                c.r_mthread[li[loser]] = True
                if isinstance(warp, np.ndarray):
                    c.scratch[li] = warp
                    c.r_mwarp[li[c.scratch[li] != warp]] = True
                if isinstance(cta, np.ndarray):
                    c.scratch[li] = cta
                    other = c.scratch[li] != cta
                    if other.any():
                        c.r_mcta[li[other]] = True
        self._second_reader(c, li, tid, cta, warp, pc, scope)
        # full: several threads of several warps read it, weakly, and the second reader is of another warp or
        # CTA; a further weak read from the first reader's CTA and generation then changes no field (r_wgen_max
        # only matters while r_mwarp is unset)
        c.r_full[li] = (c.r_mthread[li] & c.r_mwarp[li] & c.r_weak[li] & (c.r2_tid[li] >= 0)
                        & ((c.r2_cta[li] != c.r_cta[li]) | (c.r2_warp[li] != c.r_warp[li])))

    @staticmethod
    def _second_reader(c, li, tid, cta, warp, pc, scope):
        """Keep, besides the first reader, one reader of another thread: of another CTA if there was one,
        else of another warp, else any, so a write by the first reader names a reader that races."""
        tid, cta, warp = (_per_access(v, li.shape) for v in (tid, cta, warp))
        k = np.flatnonzero(tid != c.r_tid[li])
        if not k.size:
            return
        at = li[k]
        first_cta, first_warp = c.r_cta[at], c.r_warp[at]
        rank = np.where(cta[k] != first_cta, 2, (warp[k] != first_warp).astype(np.int64))
        held = np.where(c.r2_tid[at] < 0, -1, np.where(c.r2_cta[at] != first_cta, 2,
                                                        (c.r2_warp[at] != first_warp).astype(np.int64)))
        take = rank > held
        if not take.any():
            return
        k, at, rank = k[take], at[take], rank[take]
        if rank.min() != rank.max():  # one granule, several candidates: the best lands last
            by = np.argsort(rank, kind="stable")
            k, at = k[by], at[by]
        c.r2_tid[at] = tid[k]
        c.r2_cta[at] = cta[k]
        c.r2_warp[at] = warp[k]
        c.r2_pc[at] = pc
        c.r2_scope[at] = scope[k]

    def _positions(self, n: int) -> np.ndarray:
        if self._arange.size < n:
            self._arange = np.arange(max(n, 2 * self._arange.size), dtype=np.int64)
        return self._arange[:n]
