"""One-thread launches (a reference kernel run as `grid 1, block 1`), and a lane of a larger launch that runs
alone (`solo`), without the lane machinery (issue 9).

With one lane, every numpy call of the SIMT executor costs a microsecond for one number, and a step costs
hundreds of them. Here each instruction is decoded once into a closure over Python scalars: registers live
in a cache of (bits, flags, expression) triples, integer arithmetic is `semantics.intscalar`, float
arithmetic on tensor data builds the same expressions as `Machine._real_compute` (realops.TABLE), and loads
of input elements are their leaves. A closure answers None when its instruction is outside that: it has
then changed nothing, the cache is written back to the machine, and `Machine.step_once` executes the
instruction with the machine's own handlers (stores, barriers, special registers, ex2, max, data-dependent
branches, anything unusual) before the cache is refilled. So there is one set of semantics; this module
only skips the lanes, and anything it does not know exactly goes through the general path.

Bits of a data register are placeholders in `volta check` (its inputs are symbolic): a data result gets
bits 0 here, as no decision reads them (addresses and branches on data are refused through the flags).
"""
from __future__ import annotations

import functools
import gc
import struct

import numpy as np

from volta.errors import Unsupported
from volta.exec import limits
from volta.exec.access import input_leaf, region_itemsize
from volta.exec.lanesym import LaneSym
from volta.exec.memory import REGION_SHIFT
from volta.exec.services import DATA, RUN, UNDEF
from volta.ir.program import RegRef, VarRef, type_size
from volta.ptx import ast
from volta.semantics import compute as C
from volta.semantics import intscalar, realops
from volta.semantics.bits import width
from volta.symbolic import expr as E
from volta.symbolic.expr import Expr

ENABLED = True   # tests compare both executors by turning this off
LANE0 = np.zeros(1, np.int64)
_DATA_OPS = {"add": 2, "sub": 2, "mul": 2, "fma": 3, "mad": 3, "neg": 1, "max": 2, "min": 2}   # realops.TABLE: arity
_GLOBAL_SHIFT = REGION_SHIFT[".global"]
_OFFSET_MASK = (1 << _GLOBAL_SHIFT) - 1
_MASK64 = (1 << 64) - 1
_PACKED = ((".f16x2",), (".bf16x2",))
_STRONG = (".volatile", ".relaxed", ".acquire", ".release", ".mmio")


def applies(m) -> bool:
    """A symbolic run of exactly one thread on the plain Machine (subclasses trace or reinterpret steps)."""
    return m.L == 1 and eligible(m)


def eligible(m) -> bool:
    """A symbolic run on the plain Machine, without the memory-model clocks or spinning threads."""
    from volta.exec.machine import Machine

    return (ENABLED and type(m) is Machine and m.symbolic and not getattr(m, "bit_terms", False)
            and m.clocks is None and not m.may_spin)


class Registers:
    """The cached registers of one lane: (bits, flags, expression or None) per register, None where not yet
    read, then one slot per decoded immediate (always filled): every operand of a decoded step is an index
    here. Written back to the machine's lane arrays (`spill`) before the general path runs."""

    __slots__ = ("m", "vals", "dirty", "empty", "skipped", "pc", "inputs", "lane", "lanes")

    def __init__(self, m):
        self.m = m
        self.skipped = 0   # steps whose guard was false since the run loop last counted
        self.pc = 0
        self.inputs = {}   # (region id, element size) -> what loads of input elements need (_input_region)
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
        m, lane = self.m, self.lane
        for i in self.dirty:
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
        self.dirty.clear()   # in place: the decoded closures hold these two containers
        self.vals[:] = self.empty


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
    the cyclic collector's scans of young objects find nothing to free: collecting every 100,000 allocations
    instead of every 700 halves the time of a long sum (dot product of 65,536 terms: 1.67 -> 0.79 s)."""
    m.lane_structured = False   # one lane: per-lane expressions are what this executor keeps
    saved = gc.get_threshold()
    gc.set_threshold(100_000, *saved[1:])
    try:
        _run(m)
    finally:
        gc.set_threshold(*saved)


def _run(m):
    ops = m.prog.ops
    regs, code = _state(m)
    max_steps = limits.current().max_steps
    pc = int(m.pc[0])
    while True:
        base = m.steps
        running = m.status[0] == RUN and 0 <= pc < len(ops)
        done = _steps(m, ops, code, regs, pc, base, max_steps, len(ops) + 1) if running else 0
        pc = regs.pc if running else pc
        _count(m, regs, base, done)
        m.pc[0] = pc
        if not m.step_once(max_steps):
            return
        pc = int(m.pc[0])


def solo(m, lane: int, below: int) -> int:
    """Decoded steps of one lane of a larger launch that the scheduler picked alone (`if (threadIdx.x == 0)
    { long loop }`: the others wait at a barrier, have exited, or stand at a higher pc), while its pc stays
    below `below`, up to the first instruction that is not decoded; how many ran. The scheduler would have
    picked this lane alone for each of them (the lowest pc goes first), so the order of events, and what
    the race shadow sees, is the same."""
    ops = m.prog.ops
    regs, code = _state(m)
    regs.at(lane)
    base = m.steps
    done = _steps(m, ops, code, regs, int(m.pc[lane]), base, limits.current().max_steps, below)
    _count(m, regs, base, done)   # (also empties the cache: the general path may change any register)
    m.pc[lane] = regs.pc
    return done


def _state(m):
    """The register cache and the decoded steps of a machine (built once, kept for solo calls)."""
    if m.solo_state is None:
        m.solo_state = (Registers(m), [_UNCOMPILED] * len(m.prog.ops) + [None])   # past the end: general path
    return m.solo_state


def _count(m, regs, base, done):
    m.steps = base + done
    m.thread_instructions += done - regs.skipped
    regs.skipped = 0
    regs.spill()


def _steps(m, ops, code, regs, pc, base, max_steps, below):
    """Decoded steps back to back from `pc` until one is not decoded or the pc reaches `below`; how many ran
    (regs.pc: where it stopped). A false guard counts a step but no thread-instruction (regs.skipped)."""
    done, check = 0, min(4096 - (base & 4095), max_steps - base + 1)
    while pc < below:
        fn = code[pc]
        if fn is _UNCOMPILED:
            fn = code[pc] = _compile(m, ops[pc], regs)
        if fn is None:
            break
        done += 1
        if done >= check:
            m.steps = base + done
            if m.steps > max_steps:
                raise limits.too_many_steps(max_steps, ops[pc].span)
            limits.step_check(m)  # --timeout deadline, progress line
            check += 4096
        try:
            nxt = fn()
        except Unsupported:
            nxt = None   # nothing changed: the general path raises it again, with its message and place
        if nxt is None:
            done -= 1   # the general path counts it
            break
        pc = nxt
    regs.pc = pc
    return done


_UNCOMPILED = object()


# ---- decoding ------------------------------------------------------------------------------------

def _compile(m, op, regs):
    """A closure executing `op` (returning the next pc, or None to send it to the general path), or None."""
    from volta.exec.machine import DISPATCH, NOT_REAL

    d = op.d
    body = None
    if op.op == "bra":
        target = op.operands[0][1]
        body = lambda: target   # noqa: E731
    elif op.op == "mov":
        body = _mov(m, op, regs)
    elif op.op == "setp":
        body = _setp(m, op, regs)
    elif op.op in ("ld", "ldu"):
        body = _load(m, op, regs)
    elif op.op in C.TABLE and op.op not in DISPATCH and op.op not in NOT_REAL and d.types[-1:] not in _PACKED:
        body = _arith(m, op, regs)   # what Machine._execute sends to Machine._compute
    if body is None:
        return None
    return _guarded(m, op, regs, body)


def _guarded(m, op, regs, body):
    """Steps under a concrete guard predicate; a guard on data (if-conversion) goes to the general path.
    A false guard executes nothing: a step, but no thread-instruction (regs.skipped)."""
    index = op.index
    if op.guard is None:
        return body
    g, negated = op.guard
    vals, fill = regs.vals, regs.fill
    branch = op.op == "bra"

    def step():
        v = vals[g] or fill(g)
        if v[1]:
            return None   # data or never-written predicate: ifconvert / the uninitialized report
        if (v[0] != 0) == negated:
            if branch:
                m.last_branch[regs.lane] = index
            regs.skipped += 1
            return index + 1
        nxt = body()
        if nxt is not None and branch:
            m.last_branch[regs.lane] = index
        return nxt
    return step


def _slot(m, operand, t, regs):
    """The index in regs.vals of a source operand's (bits, flags, expression), or None (general path)."""
    if isinstance(operand, RegRef):
        return operand.index
    if isinstance(operand, (ast.Imm, ast.FloatImm, VarRef)):
        bits, _ = m.read(operand, LANE0, t)   # the machine's own decoding of the immediate, once
        return regs.constant((int(bits[0]), 0, None))
    return None   # special registers, negated predicates, vectors: the general path


def _destination(op):
    """(register index, width mask) of the destination register, or None."""
    dst = op.operands[0]
    if not isinstance(dst, RegRef):
        return None
    return dst.index, (1 << (width(dst.type) if dst.type != ".pred" else 1)) - 1


def _sources(m, op, regs):
    from volta.exec.machine import source_types

    slots = [_slot(m, s, t, regs) for s, t in zip(op.operands[1:], source_types(op))]
    return None if any(i is None for i in slots) else slots


def _mov(m, op, regs):
    dst = _destination(op)
    src = _slot(m, op.operands[1], op.d.types[-1] if op.d.types else ".b64", regs) if len(op.operands) == 2 else None
    if dst is None or src is None:
        return None
    o, mk = dst
    mk &= (1 << width(op.d.types[-1])) - 1 if op.d.types else (1 << 64) - 1
    vals, fill, dirty = regs.vals, regs.fill, regs.dirty
    nxt = op.index + 1

    def step():
        bits, flags, e = vals[src] or fill(src)
        vals[o] = (bits & mk, flags, e)
        dirty.add(o)
        return nxt
    return step


def _setp(m, op, regs):
    """Integer comparisons of concrete operands (anything else: the general path)."""
    cmp = intscalar.compare(op.d)
    dst = _destination(op)
    if cmp is None or len(op.operands) != 3 or dst is None or op.d.boolop is not None:
        return None
    srcs = _sources(m, op, regs)
    if srcs is None:
        return None
    (ia, ib), (o, _) = srcs, dst
    vals, fill, dirty = regs.vals, regs.fill, regs.dirty
    nxt = op.index + 1

    def step():
        a, b = vals[ia] or fill(ia), vals[ib] or fill(ib)
        if a[1] or b[1]:
            return None
        vals[o] = _TRUE if cmp(a[0], b[0]) else _FALSE
        dirty.add(o)
        return nxt
    return step


_TRUE, _FALSE = (1, 0, None), (0, 0, None)


def _arith(m, op, regs):
    """Register arithmetic: concrete operands by intscalar or compute.TABLE (the bits Machine._compute
    writes), tensor data by realops.TABLE for add/sub/mul/fma/mad/neg/max/min of .f32/.f64."""
    d = op.d
    t = d.types[-1] if d.types else None
    srcs = _sources(m, op, regs)
    dst = _destination(op)
    if srcs is None or dst is None or t is None:
        return None
    o, mk = dst
    vals, fill, dirty = regs.vals, regs.fill, regs.dirty
    nxt = op.index + 1
    scalar = intscalar.scalar_op(d)
    table = C.TABLE[op.op]
    dividing = op.op in ("div", "rem")
    real = None
    if (t in (".f32", ".f64") and _DATA_OPS.get(op.op) == len(srcs)
            and not d.has(".sat", ".relu", ".xorsign", ".abs")):
        real = realops.TABLE[op.op]
    decode = _f32_const if t == ".f32" else _f64_const

    def general(operands):
        """Operands with flags, or arithmetic intscalar does not cover."""
        flags = 0
        for v in operands:
            flags |= v[1]
        if not flags:
            if scalar is not None:
                bits = scalar(*[v[0] for v in operands])
            else:
                arrays = [np.array([v[0]], np.uint64) for v in operands]
                bits = int((m._dividing(op, regs.lanes, table, arrays) if dividing else table(d, *arrays))[0])
            vals[o] = (bits & mk, 0, None)
            dirty.add(o)
            return nxt
        if flags != DATA or real is None or E.INTEGER_INPUTS:
            return None   # never-written values, integer data, other instructions: the general path
        args = []
        for bits, f, e in operands:
            if e is None:
                if f:
                    return None
                e = decode(bits)
                if e is None:
                    return None   # inf/NaN operand: realops.apply in the general path decides
            elif type(e) is not Expr:
                return None
            args.append(e)
        vals[o] = (0, DATA, real(d, *args))
        dirty.add(o)
        return nxt

    if scalar is not None and len(srcs) == 2:   # the common index arithmetic, without the lists
        ia, ib = srcs

        def step():
            a, b = vals[ia] or fill(ia), vals[ib] or fill(ib)
            if a[1] or b[1]:
                return general((a, b))
            vals[o] = (scalar(a[0], b[0]) & mk, 0, None)
            dirty.add(o)
            return nxt
        return step
    if real is not None and len(srcs) == 3:   # data arithmetic on expressions, without the lists
        ia, ib, ic = srcs

        def step():
            a, b, c = vals[ia] or fill(ia), vals[ib] or fill(ib), vals[ic] or fill(ic)
            if (a[1] == b[1] == c[1] == DATA and type(a[2]) is Expr and type(b[2]) is Expr
                    and type(c[2]) is Expr and not E.INTEGER_INPUTS):
                vals[o] = (0, DATA, real(d, a[2], b[2], c[2]))
                dirty.add(o)
                return nxt
            return general((a, b, c))
        return step
    if real is not None and len(srcs) == 2:
        ia, ib = srcs

        def step():
            a, b = vals[ia] or fill(ia), vals[ib] or fill(ib)
            if a[1] == b[1] == DATA and type(a[2]) is Expr and type(b[2]) is Expr and not E.INTEGER_INPUTS:
                vals[o] = (0, DATA, real(d, a[2], b[2]))
                dirty.add(o)
                return nxt
            return general((a, b))
        return step
    return lambda: general([vals[i] or fill(i) for i in srcs])




def _f32_const(bits):
    v = struct.unpack("<f", struct.pack("<I", bits & 0xFFFFFFFF))[0]
    return E.const(v) if v - v == 0 else None   # inf and NaN have no real value here


def _f64_const(bits):
    v = struct.unpack("<d", struct.pack("<Q", bits & ((1 << 64) - 1)))[0]
    return E.const(v) if v - v == 0 else None



def _input_region(m, rid, es):
    """(region, its bytes, its leaves by element, a maker of one leaf) of an input buffer of `es`-byte
    elements, or False. That no instruction has stored into it yet is checked at each load."""
    regions = m.memory.regions
    region = regions[rid] if 0 < rid < len(regions) else None
    if (region is None or region.space != ".global" or region.role not in ("in", "inout")
            or region.written is not None or region_itemsize(region) != es):
        return False   # the generic window, no buffer (a null pointer, out of bounds), shared or local memory
    if m.L > 1 and m.check_races and not region.read_only:
        return False   # another thread may write it: the general path tracks the read in the race shadow
    values = (m.input_values or {}).get(region.name)
    return region, memoryview(region.data[0]), {}, functools.partial(input_leaf, region.name, values)


def _load(m, op, regs):
    """Weak loads of elements of an input buffer that nothing has written yet: their leaves (load_sym)."""
    d = op.d
    dst, src = op.operands[0], op.operands[1]
    if d.space not in (".global", None, ".generic") or not isinstance(src, ast.Address) or d.has(*_STRONG):
        return None
    t = d.types[-1] if d.types else ".b32"
    es = type_size(t)
    targets = dst.elems if isinstance(dst, ast.Vector) else (dst,)
    if not all(isinstance(r, RegRef) for r in targets) or (t.startswith(".s") and es < 8):
        return None
    base = _slot(m, src.base, None, regs)   # A.addresses reads the base the same way
    if base is None:
        return None
    offset = src.offset
    size = es * len(targets)
    align = min(size, 16)
    puts = [(r.index, (1 << width(r.type)) - 1) for r in targets]
    vals, fill, dirty, inputs = regs.vals, regs.fill, regs.dirty, regs.inputs
    nxt = op.index + 1

    def step():
        a, f, _ = vals[base] or fill(base)
        if f:
            return None   # an address from data or never-written: refused / reported by the general path
        addr = (a + offset) & _MASK64
        key = (addr >> _GLOBAL_SHIFT, es)
        entry = inputs.get(key)
        if entry is None:
            entry = inputs[key] = _input_region(m, key[0], es)
        if entry is False:
            return None
        region, raw, leaves, make = entry
        off = addr & _OFFSET_MASK
        if (off + size > region.size or off % align or region.sym is not None or region.kwritten is not None
                or region.lsref is not None):
            return None
        i = off // es
        for r, mk in puts:
            leaf = leaves.get(i)
            if leaf is None:
                leaf = leaves[i] = make(i)
            vals[r] = (int.from_bytes(raw[off:off + es], "little") & mk, DATA, leaf)
            dirty.add(r)
            i, off = i + 1, off + es
        return nxt
    return step
