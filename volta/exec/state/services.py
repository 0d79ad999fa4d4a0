"""Bookkeeping around instructions: findings, memory flags, CTA barriers and warp collectives.

A mixin of `Machine` (volta/exec/machine.py), kept apart so the scheduler and the register file
read on one screen. Lane states: RUN, BAR (waiting at a CTA barrier), WARP (waiting at a warp
collective), EXIT. Flags per value: DATA (derived from tensor data) and UNDEF (never written).
"""
from __future__ import annotations

import numpy as np

from volta.exec import findings as F
from volta.exec.state.access import row_index
from volta.ir import cfg as CFG
from volta.ir.program import cuda_frames, cuda_text
from volta.ptx import ast
from volta.semantics.bits import U64

RUN, BAR, WARP, EXIT, SPIN = 0, 1, 2, 3, 4  # SPIN: parked in a loop that made no progress (spin-wait)
YIELD_AFTER = 256  # consecutive loop iterations after which a lane lets the other runnable threads go first
DATA, UNDEF = np.uint8(1), np.uint8(2)


class MachineServices:
    """Findings, memory flags, barriers and collectives: the bookkeeping around instructions."""

    def report(self, kind, message, op, threads, second=None, related=None, **where):
        """One finding per kind and instruction pair. `second` is the other thread's instruction; `related`
        an instruction that explains the finding (the read of an uninitialized value, the branch that
        admitted an out-of-bounds lane), shown after the sites but not part of the de-duplication key."""
        sites = [_site(op)] + ([_site(second)] if second is not None else [])
        key = (kind, tuple((s.line, s.col) for s in sites))
        if key in self._seen:
            return
        self._seen.add(key)
        tids = tuple(self.thread_id(int(t)) for t in threads)
        if len(sites) == 1 and len(tids) == 2:
            sites = sites * 2
        if related is not None:
            rel_op, rel_lane = related
            sites.append(_site(rel_op))
            if rel_lane is not None and len(tids) == len(sites) - 1:
                tids += (self.thread_id(int(rel_lane)),)
        self.findings.append(F.Finding(kind, message, tids, tuple(sites), **where))

    def count_threads(self, kind, op, lanes) -> None:
        """Record `lanes` as threads that do the finding of `kind` at `op`: its `details["threads"]` says how many
        distinct threads did (the finding itself is reported once, for the first)."""
        site = _site(op)
        seen = self.__dict__.setdefault("_finding_lanes", {}).setdefault((kind, site.line, site.col), set())
        seen.update(int(x) for x in lanes)
        for f in reversed(self.findings):
            if f.kind == kind and f.sites and (f.sites[0].line, f.sites[0].col) == (site.line, site.col):
                f.details["threads"] = len(seen)
                return

    def uninitialized(self, message, op, lane, **where):
        """An undefined value reached an output, branch or address: name its first read as well."""
        origin = self.undef_origin
        if origin is not None:
            message += f" (first read of never-written memory: `{origin[0].d.inst.opcode}`)"
        self.report(F.UNINITIALIZED, message, op, [lane], related=origin, **where)

    def note_undefined_read(self, op, lanes, undef):
        if self.undef_origin is None and undef is not None and undef.any():
            self.undef_origin = (op, int(lanes[int(np.nonzero(undef)[0][0])]))

    def admitting_branch(self, lane):
        """The last conditional branch the lane executed (taken or not), as a related site, or None."""
        pc = int(self.last_branch[int(lane)])
        return (self.prog.ops[pc], None) if pc >= 0 else None

    def thread_id(self, lane: int) -> F.ThreadId:
        return F.ThreadId(tuple(int(c[lane]) for c in self.ctaid), tuple(int(c[lane]) for c in self.tid))

    # memory flags: which stored bytes came from tensor data (or are undefined)
    def memory_flags(self, region, lanes, offs, size):
        if getattr(region, "flags", None) is None:
            return None
        start = _flat_start(region, lanes, offs, self)
        flat = region.flags.reshape(-1)
        if size in _SPREAD and (start % size == 0).all():
            word = flat.view(_WORD[size])[start // size]
            out = word.astype(np.uint64)
            for k in range(1, size):
                out |= word.astype(np.uint64) >> np.uint64(8 * k)
            return (out & np.uint64(0xFF)).astype(np.uint8)
        out = flat[start]
        for k in range(1, size):
            out = out | flat[start + k]
        return out

    def memory_undef(self, region, lanes, offs, size):
        """The UNDEF taint of the bytes read (None: none), without reading the taint of a region that was never
        given any: what a lane-structured load needs of it (its DATA flag follows the expressions)."""
        if not getattr(region, "undef_flags", False):
            return None
        flags = self.memory_flags(region, lanes, offs, size)
        return None if flags is None else flags & UNDEF

    def set_memory_flags(self, region, lanes, offs, size, flags):
        if region.space == ".global":
            return
        if flags is not None and not getattr(region, "undef_flags", False) and (flags & UNDEF).any():
            region.undef_flags = True   # some byte may carry UNDEF from now on (`memory_undef` looks only then)
        if getattr(region, "flags", None) is None:
            if flags is None or not flags.any():
                return
            region.flags = np.zeros(region.data.shape, np.uint8)
        start = _flat_start(region, lanes, offs, self)
        flat = region.flags.reshape(-1)
        if size in _SPREAD and (start % size == 0).all():
            view = flat.view(_WORD[size])
            view[start // size] = flags.astype(_WORD[size]) * _SPREAD[size] if flags is not None else 0
            return
        for k in range(size):
            flat[start + k] = flags if flags is not None else 0

    # warp collectives: lanes named in the member mask must all arrive
    def collective_ready(self, op, lanes, member_mask):
        """Lanes that can execute now (and their positions), blocking the others in WARP state."""
        warps = self.gwarp[lanes]
        ready = np.ones(lanes.size, bool)
        for w in np.unique(warps):
            sel = warps == w
            want = int(np.bitwise_or.reduce(member_mask[sel]))
            present = int(np.bitwise_or.reduce(U64(1) << self.laneid[lanes[sel]].astype(np.uint64)))
            if want & ~present & 0xFFFFFFFF:
                ready[sel] = False
        waiting = lanes[~ready]
        self.status[waiting] = WARP
        if not ready.any():
            return None
        return lanes[ready], np.nonzero(ready)[0]

    def warp_sync(self, op, lanes):
        mk, f = self.read(op.operands[0], lanes, ".b32") if op.operands else (np.full(lanes.size, 0xFFFFFFFF, np.uint64), None)
        self.require_concrete(op, f, lanes, "member mask")
        ready = self.collective_ready(op, lanes, mk)
        if ready is None:
            return
        lanes, _ = ready
        self.wgen[np.unique(self.gwarp[lanes])] += 1
        self.pc[lanes] += 1
        self.status[lanes] = RUN

    # CTA barriers
    def _release_barriers(self) -> bool:
        """Release every CTA whose live threads all wait at one barrier; report divergence."""
        released = False
        blocked = self.status == BAR
        for cta in np.unique(self.cta[blocked]):
            in_cta = self.cta == cta
            live = in_cta & (self.status != EXIT)
            waiting = in_cta & blocked
            if (live & ~waiting).any():
                continue  # someone is at a warp collective: that is reported as a deadlock below
            pcs = np.unique(self.pc[waiting])
            if pcs.size > 1:
                continue
            op = self.prog.ops[int(pcs[0])]
            lanes = np.nonzero(waiting)[0]
            count = self._barrier_count(op, lanes)
            if count is not None and lanes.size < count:
                continue
            exited = np.nonzero(in_cta & (self.status == EXIT))[0]
            if exited.size:
                self._exited_before_barrier(op, lanes, exited, count)
            if op.d.has(".red"):
                self._barrier_reduce(op, lanes)
            self.gen[cta] += 1
            if self.clocks is not None:
                self.clocks.barrier(lanes)
            self.wgen[cta * self.warps_per_cta:(cta + 1) * self.warps_per_cta] += 1
            self.nbar[lanes] += 1
            self.pc[lanes] += 1
            self.status[lanes] = RUN
            released = True
        return released

    def _exited_before_barrier(self, op, lanes, exited, count):
        """Threads of the CTA exited without reaching the barrier the others wait at. CUDA makes that
        undefined (`__syncthreads()` must be reached by every thread of the block or by none); since
        Volta the hardware counts exited threads as arrived, which `if (i >= n) return;` relies on.
        Reported unless `allow_exit_before_barrier`; then only threads that passed earlier barriers
        and left mid-sequence are (a barrier inside a divergent branch)."""
        passed = self.nbar[lanes].min()
        skipped = exited[self.nbar[exited] <= passed]
        if self.allow_exit_before_barrier or count is not None:
            skipped = skipped[self.nbar[skipped] > 0]
        if not skipped.size:
            return
        block = ", ".join(str(int(c[lanes[0]])) for c in self.ctaid)
        self.report(F.DEADLOCK, f"barrier divergence: {_thread_set(self, skipped)} of block ({block}) exit without "
                    f"reaching the barrier that {_thread_set(self, lanes)} wait at (undefined behaviour in CUDA: "
                    f"a __syncthreads() must be reached by all threads of the block or by none; GPUs since Volta "
                    f"count exited threads as arrived, which --allow-exit-before-barrier accepts)",
                    op, [lanes[0], skipped[0]])

    def _barrier_reduce(self, op, lanes):
        """`bar.red.{popc,and,or}`: every arriving thread gets the CTA-wide reduction of its predicate."""
        dst, pred = op.operands[0], op.operands[-1]
        p, flags = self.read(pred, lanes, ".pred")
        self.require_concrete(op, flags, lanes, "barrier reduction predicate")
        p = p != 0
        if op.d.has(".popc"):
            value = np.full(lanes.size, int(p.sum()), np.uint64)
        elif op.d.boolop == ".and" or op.d.has(".and"):
            value = np.full(lanes.size, int(p.all()), np.uint64)
        else:
            value = np.full(lanes.size, int(p.any()), np.uint64)
        self.write(dst, lanes, value)

    def _barrier_count(self, op, lanes):
        if len(op.operands) >= 2 and not op.d.has(".red"):
            v, _ = self.read(op.operands[1], lanes[:1])
            return int(v[0])
        return None

    # spin-waits: a loop iteration that changed nothing parks its lanes until memory changes
    def back_edge(self, op, lanes):
        """Lanes took a backward branch. If every register of a lane is what it was the last time it took
        this branch, and no store or atomic changed memory since then, the iteration made no progress: the
        lane spins on memory. Park it (SPIN) so that the other threads run (the fairness bound: a spinner
        never starves the threads it waits for); it runs again once memory has changed since it parked.

        Only the registers the loop body (the branch's target up to the branch) writes are hashed
        (`loop_registers`), and the comparison decides the same as one over every register: it is made
        only when this branch was the last backward branch the lane took (`spin_pc`; every backward
        `bra` comes here, the one-thread fast paths that skip this never run where spinning is
        possible, and waking or yielding resets `spin_pc`). Since then the lane has only moved
        forward (a step, a forward branch, an if-converted region to its join), from the target to
        the branch, so only instructions in that range ran and every other register is unchanged.
        tests/exec/test_spin_digest.py checks the decisions against the full hash."""
        same = self._no_progress(op, lanes)
        parked = lanes[same]
        if parked.size:
            self.status[parked] = SPIN
        # fairness bound: a loop that keeps changing registers (a retry counter) but runs YIELD_AFTER
        # iterations in a row while other threads could run yields to them (it runs again when nothing
        # else can); a loop that never ends still ends at --max-steps
        moving = lanes[~same]
        if moving.size:
            self.spin_count[moving] += 1
            tired = moving[self.spin_count[moving] >= YIELD_AFTER]
            if tired.size and np.count_nonzero(self.status == RUN) > tired.size:
                self.status[tired] = SPIN
                self.spin_epoch[tired] = -1   # wakes as soon as nothing else runs
                self.spin_pc[tired] = -1
                self.spin_count[tired] = 0

    def _no_progress(self, op, lanes):
        """Per lane: are its registers and memory what they were when it last took this branch? Records
        the snapshot for the next taking."""
        if self.spin_hash is None:
            self.spin_hash = np.zeros(self.L, np.uint64)
            self.spin_pc = np.full(self.L, -1, np.int64)
            self.spin_epoch = np.zeros(self.L, np.int64)
            self.spin_count = np.zeros(self.L, np.int64)  # back-edges taken since the lane last yielded
        h = self._state_digest(lanes, loop_registers(self.prog, op.index))
        same = (self.spin_pc[lanes] == op.index) & (self.spin_hash[lanes] == h) & (
            self.spin_epoch[lanes] == self.mem_epoch)
        self.spin_hash[lanes] = h
        self.spin_pc[lanes] = op.index
        self.spin_epoch[lanes] = self.mem_epoch  # memory as of this snapshot (and of parking)
        return same

    def _state_digest(self, lanes, registers):
        """A hash per lane of the given registers' bits (index and value), for back_edge's comparison."""
        h = np.full(lanes.size, np.uint64(0x9E3779B97F4A7C15))
        with np.errstate(over="ignore"):
            for i in registers:
                r = self.regs[i]
                if r is not None:
                    h = (h ^ r[lanes]) * np.uint64(0x100000001B3 + 2 * i)
                    h ^= h >> np.uint64(29)
        return h

    def _wake_spinners(self) -> bool:
        """Nothing else can run: spinners whose memory may have changed since they parked run again."""
        spinning = self.status == SPIN
        if not spinning.any():
            return False
        wake = spinning & (self.spin_epoch < self.mem_epoch)
        if not wake.any():
            return False
        self.status[wake] = RUN
        self.spin_pc[wake] = -1  # a fresh snapshot before parking again
        return True

    def _report_spin(self, spinning):
        first = int(spinning[0])
        op = self.prog.ops[int(self.pc[first])]
        loop = self.prog.ops[int(self.spin_pc[first])] if self.spin_pc[first] >= 0 else op
        others = np.nonzero(self.status == BAR)[0]
        tail = ""
        if others.size:
            tail = (f"; {others.size} other thread(s) wait at `{self.prog.ops[int(self.pc[others[0]])].d.inst.opcode}`")
        exited = int(np.count_nonzero(self.status == EXIT))
        self.report(F.DEADLOCK, f"spin-wait deadlock: {spinning.size} thread(s) loop at this branch without progress "
                    f"and no other thread can change the memory they wait on ({exited} thread(s) have exited{tail}; "
                    f"a lock never released, a flag never set, or a grid barrier some block never reaches)",
                    loop, [first])

    def _report_deadlock(self, waiting):
        spinning = waiting[self.status[waiting] == SPIN]
        if spinning.size:
            self._report_spin(spinning)
            return
        first = int(waiting[0])
        op = self.prog.ops[int(self.pc[first])]
        others = np.nonzero((self.cta == self.cta[first]) & (self.pc != self.pc[first]) & (self.status != EXIT))[0]
        if others.size:
            other_op = self.prog.ops[int(self.pc[others[0]])]
            self.report(F.DEADLOCK, f"threads wait at `{op.d.inst.opcode}` while others of the same CTA wait "
                        f"at a different barrier or collective: they can never all arrive", op,
                        [first, int(others[0])], second=other_op)
        else:
            exited = np.nonzero((self.gwarp == self.gwarp[first]) & (self.status == EXIT))[0]
            who = [first] + ([int(exited[0])] if exited.size else [])
            self.report(F.DEADLOCK, f"{waiting.size} threads wait at `{op.d.inst.opcode}` for partners that "
                        f"have exited or never reach it", op, who)


def loop_registers(prog, branch: int) -> np.ndarray:
    """The registers (ascending) an instruction from the backward branch's target to the branch itself
    may write: its destination operand (operand 0 of every PTX instruction that writes a register, a
    vector, a `p|q` pair) and whatever else `cfg.uses` counts as written. Cached per branch."""
    cache = prog.__dict__.setdefault("_loop_registers", {})
    got = cache.get(branch)
    if got is None:
        target = prog.ops[branch].operands[0][1]
        written = set()
        for op in prog.ops[target:branch + 1]:
            written |= CFG.uses(op)[1]
            if op.operands and not isinstance(op.operands[0], (ast.Address, tuple)):
                written |= CFG._reg_indices(op.operands[0])
        cache[branch] = got = np.array(sorted(written), np.int64)
    return got


def _thread_set(m, lanes) -> str:
    """`threads 32..63`, `thread 5`, or `40 threads (3, 7, 9, …)` by linear thread index in the CTA."""
    local = np.sort(lanes % m.per_cta)
    if local.size == 1:
        return f"thread {int(local[0])}"
    if int(local[-1] - local[0]) + 1 == local.size:
        return f"threads {int(local[0])}..{int(local[-1])}"
    shown = ", ".join(str(int(t)) for t in local[:3])
    return f"{local.size} threads ({shown}, …)"


_WORD = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}
_SPREAD = {n: _WORD[n](int("01" * n, 16)) for n in _WORD}  # a flag byte repeated over an n-byte word


def _flat_start(region, lanes, offs, m):
    return row_index(region, lanes, m) * region.data.shape[1] + offs


def _site(op) -> F.Site:
    text = op.d.inst.opcode
    return F.Site(op.span.file, op.span.line, op.span.col, text, cuda_text(op),
                  tuple(line for _, line in cuda_frames(op)))
