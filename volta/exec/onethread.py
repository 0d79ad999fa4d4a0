"""One-thread launches (a reference kernel run as `grid 1, block 1`) without the lane machinery (issue 9).

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

import gc
import struct

import numpy as np

from volta.errors import Unsupported
from volta.exec import limits
from volta.exec.access import _input_leaves, region_itemsize
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
_DATA_OPS = {"add": 2, "sub": 2, "mul": 2, "fma": 3, "mad": 3, "neg": 1}   # realops.TABLE forms: arity
_GLOBAL_SHIFT = REGION_SHIFT[".global"]
_PACKED = ((".f16x2",), (".bf16x2",))
_STRONG = (".volatile", ".relaxed", ".acquire", ".release", ".mmio")


def applies(m) -> bool:
    """A symbolic run of exactly one thread on the plain Machine (subclasses trace or reinterpret steps)."""
    from volta.exec.machine import Machine

    return (ENABLED and m.L == 1 and type(m) is Machine and m.symbolic and not getattr(m, "bit_terms", False)
            and m.clocks is None and not m.may_spin)


class Registers:
    """The cached registers: (bits, flags, expression or None) per register, None where not yet read."""

    __slots__ = ("m", "vals", "dirty", "empty")

    def __init__(self, m):
        self.m = m
        self.empty = [None] * len(m.regs)
        self.vals = list(self.empty)
        self.dirty = set()

    def fill(self, i):
        m = self.m
        r = m.regs[i]
        if r is None:   # never written: zeros, UNDEF (Machine.read)
            v = (0, UNDEF, None)
        else:
            f = m.flags[i]
            v = (int(r[0]), int(f[0]) if f is not None else 0, _expr_of(m.sym[i]))
        self.vals[i] = v
        return v

    def spill(self):
        """Write the registers changed since the last fill back into the machine's lane arrays."""
        m = self.m
        for i in self.dirty:
            bits, flags, e = self.vals[i]
            if m.regs[i] is None:
                m.regs[i] = np.zeros(1, np.uint64)
            m.regs[i][0] = bits
            if flags:
                if m.flags[i] is None:
                    m.flags[i] = np.zeros(1, np.uint8)
                m.flags[i][0] = flags
            else:
                m.flags[i] = None
            if e is None:
                m.sym[i] = None
            else:
                arr = np.empty(1, dtype=object)
                arr[0] = e
                m.sym[i] = arr
        self.dirty.clear()   # in place: the decoded closures hold these two containers
        self.vals[:] = self.empty


def _expr_of(s):
    if s is None:
        return None
    if isinstance(s, LaneSym):
        found, part = s.restrict(LANE0)
        return part.exprs()[0] if found.all() else None
    return s[0]


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
    n_ops = len(ops)
    regs = Registers(m)
    code: list = [_UNCOMPILED] * n_ops
    max_steps = limits.current().max_steps
    pc = int(m.pc[0])
    running = m.status[0] == RUN
    while True:
        fn = code[pc] if running and 0 <= pc < n_ops else None
        if fn is _UNCOMPILED:
            fn = code[pc] = _compile(m, ops[pc], regs)
        if fn is not None:
            m.steps += 1
            if not m.steps & 4095:
                limits.step_check(m)  # --timeout deadline, progress line
            if m.steps > max_steps:
                raise limits.too_many_steps(max_steps, ops[pc].span)
            try:
                nxt = fn()
            except Unsupported:
                nxt = None   # nothing changed: the general path raises it again, with its message and place
            if nxt is not None:
                m.thread_instructions += 1
                pc = nxt
                continue
            m.steps -= 1   # the general path counts it
        regs.spill()
        m.pc[0] = pc
        if not m.step_once(max_steps):
            return
        pc = int(m.pc[0])
        running = m.status[0] == RUN


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
    The run loop counts a thread-instruction per step; a false guard executes nothing and takes it back."""
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
                m.last_branch[0] = index
            m.thread_instructions -= 1
            return index + 1
        nxt = body()
        if nxt is not None and branch:
            m.last_branch[0] = index
        return nxt
    return step


def _reader(m, operand, t, regs):
    """A function giving (bits, flags, expression) of a source operand, or None (general path)."""
    if isinstance(operand, RegRef):
        i, vals, fill = operand.index, regs.vals, regs.fill
        return lambda: vals[i] or fill(i)
    if isinstance(operand, (ast.Imm, ast.FloatImm, VarRef)):
        bits, _ = m.read(operand, LANE0, t)   # the machine's own decoding of the immediate, once
        value = (int(bits[0]), 0, None)
        return lambda: value
    return None   # special registers, negated predicates, vectors: the general path


def _writer(op, regs):
    """A function storing (bits, flags, expression) into the destination register, masked to its width."""
    dst = op.operands[0]
    if not isinstance(dst, RegRef):
        return None
    i, vals, dirty = dst.index, regs.vals, regs.dirty
    w = width(dst.type) if dst.type != ".pred" else 1
    mk = (1 << w) - 1

    def put(bits, flags, e):
        vals[i] = (bits & mk, flags, e)
        dirty.add(i)
    return put


def _sources(m, op, regs):
    from volta.exec.machine import source_types

    readers = [_reader(m, s, t, regs) for s, t in zip(op.operands[1:], source_types(op))]
    return None if any(r is None for r in readers) else readers


def _mov(m, op, regs):
    if len(op.operands) != 2:
        return None
    put = _writer(op, regs)
    read = _reader(m, op.operands[1], op.d.types[-1] if op.d.types else ".b64", regs)
    if put is None or read is None:
        return None
    mk = (1 << width(op.d.types[-1])) - 1 if op.d.types else (1 << 64) - 1
    nxt = op.index + 1

    def step():
        bits, flags, e = read()
        put(bits & mk, flags, e)
        return nxt
    return step


def _setp(m, op, regs):
    """Integer comparisons of concrete operands (anything else: the general path)."""
    cmp = intscalar.compare(op.d)
    dst = op.operands[0]
    if cmp is None or len(op.operands) != 3 or not isinstance(dst, RegRef) or op.d.boolop is not None:
        return None
    srcs = _sources(m, op, regs)
    put = _writer(op, regs)
    if srcs is None or put is None:
        return None
    ra, rb = srcs
    nxt = op.index + 1

    def step():
        a, b = ra(), rb()
        if a[1] or b[1]:
            return None
        put(1 if cmp(a[0], b[0]) else 0, 0, None)
        return nxt
    return step


def _arith(m, op, regs):
    """Register arithmetic: concrete operands by intscalar or compute.TABLE (the bits Machine._compute
    writes), tensor data by realops.TABLE for add/sub/mul/fma/mad/neg of .f32/.f64."""
    d = op.d
    t = d.types[-1] if d.types else None
    srcs = _sources(m, op, regs)
    put = _writer(op, regs)
    if srcs is None or put is None or t is None:
        return None
    nxt = op.index + 1
    scalar = intscalar.scalar_op(d)
    table = C.TABLE[op.op]
    dividing = op.op in ("div", "rem")
    real = None
    if (t in (".f32", ".f64") and _DATA_OPS.get(op.op) == len(srcs)
            and not d.has(".sat", ".relu", ".xorsign", ".abs")):
        real = realops.TABLE[op.op]
    decode = _f32_const if t == ".f32" else _f64_const

    def general(vals):
        """Operands with flags, or arithmetic intscalar does not cover."""
        flags = 0
        for v in vals:
            flags |= v[1]
        if not flags:
            if scalar is not None:
                put(scalar(*[v[0] for v in vals]), 0, None)
            else:
                arrays = [np.array([v[0]], np.uint64) for v in vals]
                out = m._dividing(op, LANE0, table, arrays) if dividing else table(d, *arrays)
                put(int(out[0]), 0, None)
            return nxt
        if flags != DATA or real is None or E.INTEGER_INPUTS:
            return None   # never-written values, integer data, other instructions: the general path
        args = []
        for bits, f, e in vals:
            if e is None:
                if f:
                    return None
                e = decode(bits)
                if e is None:
                    return None   # inf/NaN operand: realops.apply in the general path decides
            elif type(e) is not Expr:
                return None
            args.append(e)
        put(0, DATA, real(d, *args))
        return nxt

    if scalar is not None and len(srcs) == 2:   # the common index arithmetic, without the lists
        ra, rb = srcs

        def step():
            a, b = ra(), rb()
            if a[1] or b[1]:
                return general((a, b))
            put(scalar(a[0], b[0]), 0, None)
            return nxt
        return step
    return lambda: general([r() for r in srcs])


def _f32_const(bits):
    v = struct.unpack("<f", struct.pack("<I", bits & 0xFFFFFFFF))[0]
    return E.const(v) if v - v == 0 else None   # inf and NaN have no real value here


def _f64_const(bits):
    v = struct.unpack("<d", struct.pack("<Q", bits & ((1 << 64) - 1)))[0]
    return E.const(v) if v - v == 0 else None



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
    read_base = _reader(m, src.base, None, regs)   # A.addresses reads the base the same way
    if read_base is None:
        return None
    offset = src.offset
    size = es * len(targets)
    align = min(size, 16)
    regions = m.memory.regions
    puts = []
    for r in targets:
        puts.append((r.index, (1 << width(r.type)) - 1))
    vals, dirty = regs.vals, regs.dirty
    inputs: dict = {}   # region id -> its input leaves, once the element size matched
    nxt = op.index + 1

    def step():
        a, f, _ = read_base()
        if f:
            return None   # an address from data or never-written: refused / reported by the general path
        addr = (a + offset) & ((1 << 64) - 1)
        rid, off = addr >> _GLOBAL_SHIFT, addr & ((1 << _GLOBAL_SHIFT) - 1)
        if not 0 < rid < len(regions):
            return None   # the generic window or no buffer (a null pointer, out of bounds): general path
        region = regions[rid]
        if (region.space != ".global" or region.role not in ("in", "inout") or off + size > region.size
                or off % align or region.written is not None or region.sym is not None
                or region.kwritten is not None or getattr(region, "lsref", None) is not None):
            return None
        leaves = inputs.get(rid)
        if leaves is None:
            if region_itemsize(region) != es:
                return None
            leaves = inputs[rid] = _input_leaves(m, region, es)
        if off % es:
            return None
        raw = region.data[0, off:off + size].tobytes()
        for k, (i, mk) in enumerate(puts):
            bits = int.from_bytes(raw[k * es:(k + 1) * es], "little")
            vals[i] = (bits & mk, DATA, leaves[off // es + k])
            dirty.add(i)
        return nxt
    return step
