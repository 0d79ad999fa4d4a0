"""One-thread launches (a reference kernel run as `grid 1, block 1`), and a lane of a larger launch that runs
alone (`solo`), without the lane machinery (issue 9).

With one lane, every numpy call of the SIMT executor costs a microsecond for one number, and a step costs
hundreds of them. Here each instruction is decoded once into a closure over Python scalars: registers live
in a cache of (bits, flags, expression) triples (volta/exec/fast/onestep.py decodes the steps, and
volta/exec/fast/oneblock.py compiles straight-line runs of them into one function), integer arithmetic is
`semantics.intscalar`, float arithmetic on tensor data builds the same expressions as
`Machine._real_compute` (realops.TABLE), and loads of input elements are their leaves. A closure answers
None when its instruction is outside that: it has then changed nothing, the cache is written back to the
machine, and `Machine.step_once` executes the instruction with the machine's own handlers (stores,
barriers, special registers, calls, data-dependent branches, anything unusual) before the cache is
refilled (only the registers that instruction names, when it touches no others: `_confined`). So there is
one set of semantics; this module only skips the lanes, and anything it does not know exactly goes through
the general path.

Bits of a data register are placeholders in `volta check` (its inputs are symbolic): a data result gets
bits 0 here, as no decision reads them (addresses and branches on data are refused through the flags).
"""
from __future__ import annotations

import gc

import numpy as np

from volta.errors import Unsupported
from volta.exec import limits
from volta.exec.fast.oneblock import compile_block
from volta.exec.fast.onestep import compile_step
from volta.exec.state.lanesym import LaneSym
from volta.exec.state.services import RUN, UNDEF
from volta.ir.nodes import ExternCall, RegRef, SpecialRef, VarRef
from volta.ptx import ast


def applies(m, plain: bool) -> bool:
    """A symbolic run of exactly one thread on the plain Machine (subclasses trace or reinterpret steps)."""
    return m.L == 1 and eligible(m, plain)


def eligible(m, plain: bool) -> bool:
    """A symbolic run on the plain Machine (`plain`: no subclass that traces or reinterprets steps), without the
    memory-model clocks or spinning threads."""
    return (m.fast.one_thread and plain and m.symbolic and not getattr(m, "bit_terms", False)
            and m.clocks is None and not m.may_spin and not getattr(m, "watchers", None))


class Registers:
    """The cached registers of one lane: (bits, flags, expression or None) per register, None where not yet
    read, then one slot per decoded immediate (always filled): every operand of a decoded step is an index
    here. Written back to the machine's lane arrays (`spill`) before the general path runs."""

    __slots__ = ("m", "vals", "dirty", "empty", "skipped", "pc", "inputs", "lane", "lanes")

    def __init__(self, m):
        self.m = m
        self.skipped = 0   # steps whose guard was false since the run loop last counted
        self.pc = 0
        self.inputs = {}   # (region id, element size) -> what loads of input elements need (onestep.input_region)
        self.empty = [None] * len(m.regs)
        self.vals = list(self.empty)
        self.dirty = set()
        self.at(0)

    def at(self, lane: int):
        """Cache the registers of `lane` from now on (nothing may be cached: call after `spill`)."""
        self.lane, self.lanes = lane, np.array([lane], np.int64)

    def constant(self, value) -> int:
        """A slot that always holds `value` (an immediate's triple)."""
        self.empty.append(value)
        self.vals.append(value)
        return len(self.vals) - 1

    def fill(self, i):
        m, lane = self.m, self.lane
        r = m.regs[i]
        if r is None:   # never written: zeros, UNDEF (Machine.read)
            v = (0, UNDEF, None)
        else:
            f = m.flags[i]
            v = (int(r[lane]), int(f[lane]) if f is not None else 0, _expr_of(m.sym[i], self.lanes))
        self.vals[i] = v
        return v

    def spill(self):
        """Write the registers changed since the last fill back into the machine's lane arrays."""
        self._write_back(self.dirty)
        self.dirty.clear()   # in place: the decoded closures hold these two containers
        self.vals[:] = self.empty

    def spill_named(self, registers) -> None:
        """Write back and forget only `registers` (those one instruction names): the general path then runs an
        instruction that reads and writes no others, and the rest of the cache stays (`_confined`)."""
        named = self.dirty.intersection(registers)
        self._write_back(named)
        self.dirty -= named
        vals = self.vals
        for i in registers:
            vals[i] = None

    def _write_back(self, registers):
        m, lane = self.m, self.lane
        for i in registers:
            bits, flags, e = self.vals[i]
            if m.regs[i] is None:
                m.regs[i] = np.zeros(m.L, np.uint64)
            m.regs[i][lane] = bits
            if flags:
                if m.flags[i] is None:
                    m.flags[i] = np.zeros(m.L, np.uint8)
                m.flags[i][lane] = flags
            elif m.flags[i] is not None:
                if m.L == 1:
                    m.flags[i] = None
                else:
                    m.flags[i][lane] = 0
            if e is None:
                sym = None
            else:
                sym = np.empty(1, dtype=object)
                sym[0] = e
            if m.L == 1:
                m.sym[i] = sym
            else:
                m._write_sym(i, self.lanes, sym)   # (a LaneSym of the other lanes is kept or materialized)


def _expr_of(s, lanes):
    if s is None:
        return None
    if isinstance(s, LaneSym):
        found, part = s.restrict(lanes)
        return part.exprs()[0] if found.all() else None
    return s[lanes[0]]


def run(m):
    """Execute the launch's one thread to the end (or to an error), counting steps like Machine.run.

    Each data instruction interns a new expression node that lives as long as the process (expr._TABLE), so
    the cyclic collector's scans find nothing to free, and each scan of the young generation grows with the
    run: the collector is off for the run (the little cyclic garbage the general path leaves is collected
    after it). Dot product of 65,536 terms: 1.67 s with the default threshold of 700, 0.79 s collecting
    every 100,000 allocations, ~0.3 s off. Promoting the run's objects unscanned (gc.freeze + unfreeze)
    would save the one scan after the run, but would promote every young cycle of the process with them
    (machines of earlier checks), to wait for a full collection: memory would grow over a batch."""
    was = gc.isenabled()
    gc.disable()
    try:
        _run(m)
    finally:
        if was:
            gc.enable()


def _run(m):
    """Decoded steps up to an instruction they do not cover, that one by the general path, and again. Before the
    general path runs, the register cache is written back: only the registers the instruction names when it
    is confined to them (`_confined`; the attention reference's call to exp and its parameter stores and loads,
    once a key, then leave its 64 accumulators cached, where writing back and reloading them was a fifth of
    its run), else all of it."""
    ops = m.prog.ops
    state = _state(m)
    regs = state[0]
    max_steps = limits.current().step_limit
    pc = int(m.pc[0])
    named: dict = {}   # pc -> the registers its instruction names (None: not confined to them)
    try:
        while True:
            base = m.steps
            running = m.status[0] == RUN and 0 <= pc < len(ops)
            done = _steps(m, ops, state, pc, base, max_steps, len(ops) + 1) if running else 0
            pc = regs.pc if running else pc
            _count(m, regs, base, done, spill=False)
            m.pc[0] = pc
            touched = _confined(ops[pc], regs, named) if running and pc < len(ops) else None
            if touched is None:
                regs.spill()
            else:
                regs.spill_named(touched)
            if not m.step_once(max_steps):
                return
            pc = int(m.pc[0])
    finally:
        regs.spill()   # (at the end, and on the way out of an error: the machine's registers as they are)


def _confined(op, regs, named: dict):
    """The registers `op` names, when the general path's step of it (one thread at a plain instruction) reads
    and writes no other register: its operands and guard are all it touches, unless the guard is on data
    (if-conversion runs a whole region as one step, volta/exec/handlers/ifconvert.py) or never written.
    None otherwise (an operand of a kind not listed here, too: the whole cache is written back then)."""
    found = named.get(op.index, False)
    if found is False:
        out: set = set()
        found = named[op.index] = frozenset(out) if all(_registers(o, out) for o in op.operands) else None
    if found is not None and op.guard is not None:
        g = op.guard[0]
        v = regs.vals[g] or regs.fill(g)
        if v[1]:
            return None
        found = found | {g}
    return found


_NO_REGISTERS = (ast.Imm, ast.FloatImm, ast.Sym, ast.Sink, VarRef, SpecialRef, ExternCall, str, int)   # (str, int: a
# branch target)


def _registers(operand, out: set) -> bool:
    """Add the registers an operand names to `out`; False for an operand of a kind not known here."""
    if isinstance(operand, RegRef):
        out.add(operand.index)
    elif isinstance(operand, (tuple, list)):
        return all(_registers(o, out) for o in operand)
    elif isinstance(operand, ast.NotReg):
        return _registers(operand.reg, out)
    elif isinstance(operand, ast.Pair):
        return _registers(operand.first, out) and _registers(operand.second, out)
    elif isinstance(operand, ast.Vector):
        return _registers(operand.elems, out)
    elif isinstance(operand, ast.Address):
        return operand.coords is None and _registers(operand.base, out)
    elif isinstance(operand, ast.ParenList):
        return _registers(operand.items, out)
    elif not isinstance(operand, _NO_REGISTERS) and operand is not None:
        return False
    return True


def solo(m, lane: int, below: int) -> int:
    """Decoded steps of one lane of a larger launch that the scheduler picked alone (`if (threadIdx.x == 0)
    { long loop }`: the others wait at a barrier, have exited, or stand at a higher pc), while its pc stays
    below `below`, up to the first instruction that is not decoded; how many ran. The scheduler would have
    picked this lane alone for each of them (the lowest pc goes first), so the order of events, and what
    the race shadow sees, is the same."""
    ops = m.prog.ops
    state = _state(m)
    regs = state[0]
    regs.at(lane)
    base = m.steps
    done = _steps(m, ops, state, int(m.pc[lane]), base, limits.current().step_limit, below)
    _count(m, regs, base, done)   # (also empties the cache: the general path may change any register)
    m.pc[lane] = regs.pc
    return done


def _state(m):
    """The register cache and the decoded steps and runs of a machine (built once, kept for solo calls)."""
    if m.solo_state is None:   # (one slot past the last instruction: None, the general path)
        n = len(m.prog.ops)
        m.solo_state = (Registers(m), [_UNCOMPILED] * n + [None], [_UNCOMPILED] * n + [None])
    return m.solo_state


def _count(m, regs, base, done, spill: bool = True):
    m.steps = base + done
    m.thread_instructions += done - regs.skipped
    regs.skipped = 0
    if spill:
        regs.spill()


def _steps(m, ops, state, pc, base, max_steps, below):
    """Decoded steps back to back from `pc` until one is not decoded or the pc reaches `below`; how many ran
    (regs.pc: where it stopped). A false guard counts a step but no thread-instruction (regs.skipped).
    Straight-line runs go as one compiled block (oneblock); where a block stopped short, step closures take
    the steps up to the next jump (`stepping`), so that a run is not compiled again from each of its steps."""
    regs, code, blocks = state
    cap = max_steps - base + 1   # exact: --max-steps stops at the same step with and without blocks
    done, check = 0, max(1, min(m.clock.due - base, cap))   # the next step check (a block may run past the clock's)
    stepping = False
    try:
        while pc < below:
            if not stepping:
                block = blocks[pc]
                if block is _UNCOMPILED:
                    block = blocks[pc] = compile_block(m, ops, pc, regs)
                if block is not None:
                    if pc + block.steps <= below and done + block.steps < cap:
                        pc, n = block.run()
                        done += n
                        stepping = n < block.steps
                        if done >= check:
                            m.steps = base + done
                            limits.step_check(m)  # --timeout deadline, memory, progress line (StepClock)
                            check = min(m.clock.due - base, cap)
                        continue
                    stepping = True   # --max-steps or `below` falls inside the block: its steps one by one
            fn = code[pc]
            if fn is _UNCOMPILED:
                fn = code[pc] = compile_step(m, ops[pc], regs)
            if fn is None:
                break
            done += 1
            if done >= check:
                m.steps = base + done
                if m.steps > max_steps:
                    raise limits.too_many_steps(max_steps, ops[pc].span)
                limits.step_check(m)  # --timeout deadline, memory, progress line (StepClock)
                check = min(m.clock.due - base, cap)
            try:
                nxt = fn()
            except Unsupported:
                nxt = None   # nothing changed: the general path raises it again, with its message and place
            if nxt is None:
                done -= 1   # the general path counts it
                break
            stepping = stepping and nxt == pc + 1
            pc = nxt
    except limits.Timeout:   # (from step_check, or SIGALRM): the report counts this run's steps so far
        m.steps = base + done
        m.thread_instructions += done - regs.skipped
        regs.skipped = 0
        raise
    regs.pc = pc
    return done


_UNCOMPILED = object()
