"""One instruction of the one-thread executor (volta/exec/fast/onethread.py) decoded into a closure over the
register cache (`onethread.Registers`): the closure returns the next pc, or None when its instruction is
outside what it covers, having changed nothing (the general path, `Machine.step_once`, then runs it).
The semantics are the machine's: integer arithmetic is `semantics.intscalar` (checked against
`compute.TABLE`), tensor data builds the expressions `Machine._real_compute` builds (realops.TABLE), and a
load of an input element that nothing has written is that element's leaf.
"""
from __future__ import annotations

import functools
import struct
import sys

import numpy as np

from volta.exec.handlers.table import DISPATCH, NOT_REAL
from volta.exec.state.access import input_leaf, region_itemsize
from volta.exec.state.memory import REGION_SHIFT
from volta.exec.state.operands import source_types
from volta.exec.state.services import DATA
from volta.ir.program import RegRef, VarRef, type_size
from volta.ptx import ast
from volta.semantics import compute as C
from volta.semantics import intscalar, realops
from volta.semantics.bits import width
from volta.symbolic import expr as E
from volta.symbolic.expr import Expr

LANE0 = np.zeros(1, np.int64)
# float instructions on data whose expression is realops.TABLE's (what Machine._real_compute builds), by arity:
# the ring operations, max/min, and division, reciprocal, 2^x, roots, log2 and the approximated functions (an
# attention reference's exponentials and normalization ran through the general path, one step at a time)
_DATA_OPS = {"add": 2, "sub": 2, "mul": 2, "fma": 3, "mad": 3, "neg": 1, "max": 2, "min": 2, "div": 2, "rcp": 1,
             "ex2": 1, "sqrt": 1, "rsqrt": 1, "lg2": 1, "tanh": 1, "sin": 1, "cos": 1}
GLOBAL_SHIFT = REGION_SHIFT[".global"]
OFFSET_MASK = (1 << GLOBAL_SHIFT) - 1
MASK64 = (1 << 64) - 1
_PACKED = ((".f16x2",), (".bf16x2",))
_WORDS = {1: "B", 2: "H", 4: "I", 8: "Q"} if sys.byteorder == "little" else {}   # (else: no loads here)
_RUN = 64   # leaves made at once when a loop reads an input buffer in order
_STRONG = (".volatile", ".relaxed", ".acquire", ".release", ".mmio")


def compile_step(m, op, regs):
    """A closure executing `op` (returning the next pc, or None to send it to the general path), or None."""
    if op.op == "bra":
        target = op.operands[0][1]
        body = lambda: target   # noqa: E731
    elif op.op == "mov":
        body = _mov(m, op, regs)
    elif op.op == "setp":
        body = _setp(m, op, regs)
    elif op.op in ("ld", "ldu"):
        body = _load(m, op, regs)
    else:
        body = _arith(m, op, regs)
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
    slots = [_slot(m, s, t, regs) for s, t in zip(op.operands[1:], source_types(op))]
    return None if any(i is None for i in slots) else slots


def mov_shape(m, op, regs):
    """(source slot, destination, width mask) of a register or immediate move, or None."""
    dst = _destination(op)
    src = _slot(m, op.operands[1], op.d.types[-1] if op.d.types else ".b64", regs) if len(op.operands) == 2 else None
    if dst is None or src is None:
        return None
    o, mk = dst
    return src, o, mk & ((1 << width(op.d.types[-1])) - 1 if op.d.types else (1 << 64) - 1)


def _mov(m, op, regs):
    shape = mov_shape(m, op, regs)
    if shape is None:
        return None
    src, o, mk = shape
    vals, fill, dirty = regs.vals, regs.fill, regs.dirty
    nxt = op.index + 1

    def step():
        bits, flags, e = vals[src] or fill(src)
        vals[o] = (bits & mk, flags, e)
        dirty.add(o)
        return nxt
    return step


def setp_shape(m, op, regs):
    """(comparison of the raw bits, source slots, destination) of an integer setp, or None."""
    cmp = intscalar.compare(op.d)
    dst = _destination(op)
    if cmp is None or len(op.operands) != 3 or dst is None or op.d.boolop is not None:
        return None
    srcs = _sources(m, op, regs)
    return None if srcs is None else (cmp, srcs, dst)


def _setp(m, op, regs):
    """Integer comparisons of concrete operands (anything else: the general path)."""
    shape = setp_shape(m, op, regs)
    if shape is None:
        return None
    cmp, srcs, dst = shape
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


def arith_shape(m, op, regs):
    """(source slots, (destination, width mask), intscalar function or None, realops function or None) of
    register arithmetic that Machine._execute sends to Machine._compute, or None."""
    d = op.d
    t = d.types[-1] if d.types else None
    if op.op not in C.TABLE or op.op in DISPATCH or op.op in NOT_REAL or d.types[-1:] in _PACKED or t is None:
        return None
    srcs = _sources(m, op, regs)
    dst = _destination(op)
    if srcs is None or dst is None:
        return None
    real = None
    if (t in (".f32", ".f64") and _DATA_OPS.get(op.op) == len(srcs)
            and not d.has(".sat", ".relu", ".xorsign", ".abs")):
        real = realops.TABLE[op.op]
    return srcs, dst, intscalar.scalar_op(d), real


def _arith(m, op, regs):
    """Register arithmetic: concrete operands by intscalar or compute.TABLE (the bits Machine._compute
    writes), tensor data by realops.TABLE for the .f32/.f64 instructions of _DATA_OPS."""
    shape = arith_shape(m, op, regs)
    if shape is None:
        return None
    d, t = op.d, op.d.types[-1]
    srcs, (o, mk), scalar, real = shape
    vals, fill, dirty = regs.vals, regs.fill, regs.dirty
    nxt = op.index + 1
    table = C.TABLE[op.op]
    dividing = op.op in ("div", "rem")
    integer = bool(m.integers)   # integer inputs: data arithmetic takes the general path (Machine._real_compute)

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
        if flags != DATA or real is None or integer:
            return None   # never-written values, integer data, other instructions: the general path
        args = []
        for bits, f, e in operands:
            if e is None:
                if f:
                    return None
                e = decode_float(t, bits, m.named)
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
                    and type(c[2]) is Expr and not integer):
                vals[o] = (0, DATA, real(d, a[2], b[2], c[2]))
                dirty.add(o)
                return nxt
            return general((a, b, c))
        return step
    if real is not None and len(srcs) == 2:
        ia, ib = srcs

        def step():
            a, b = vals[ia] or fill(ia), vals[ib] or fill(ib)
            if a[1] == b[1] == DATA and type(a[2]) is Expr and type(b[2]) is Expr and not integer:
                vals[o] = (0, DATA, real(d, a[2], b[2]))
                dirty.add(o)
                return nxt
            return general((a, b))
        return step
    return lambda: general([vals[i] or fill(i) for i in srcs])


def decode_float(t, bits, named=None):
    """The real value of an .f32/.f64 immediate's bits, or None for inf and NaN (with `named`, the machine's
    named-constant reading: log2 e for RN(log2 e), as `operands.constants` reads it)."""
    c = named.value(t, bits) if named is not None else None
    if c is not None:
        return c
    return _f32_const(bits) if t == ".f32" else _f64_const(bits)


def _f32_const(bits):
    v = struct.unpack("<f", struct.pack("<I", bits & 0xFFFFFFFF))[0]
    return E.const(v) if v - v == 0 else None   # inf and NaN have no real value here


def _f64_const(bits):
    v = struct.unpack("<d", struct.pack("<Q", bits & ((1 << 64) - 1)))[0]
    return E.const(v) if v - v == 0 else None


def input_region(m, rid, es):
    """(region, its elements' bits (a view of its bytes as unsigned `es`-byte integers), its leaves by
    element, a maker of one leaf) of an input buffer of `es`-byte elements, or False. That no instruction
    has stored into it yet is checked at each load."""
    regions = m.memory.regions
    region = regions[rid] if 0 < rid < len(regions) else None
    if (region is None or region.space != ".global" or region.role not in ("in", "inout")
            or region.written is not None or region_itemsize(region) != es):
        return False   # the generic window, no buffer (a null pointer, out of bounds), shared or local memory
    if es not in _WORDS or m.L > 1 and m.check_races and not region.read_only:
        return False   # another thread may write it: the general path tracks the read in the race shadow
    values = (m.input_values or {}).get(region.name)
    words = memoryview(region.data[0]).cast(_WORDS[es])   # (rows are padded to 16 bytes)
    return region, words, {}, functools.partial(input_leaf, region.name, values)


def new_leaf(entry, i, es):
    """The leaf of input element `i`, not made yet; a loop that reads the buffer in order gets the next
    `_RUN` leaves made at once (E.var_range: half the cost of one at a time)."""
    region, _, leaves, make = entry
    leaf = leaves[i] = make(i)
    if i - 1 in leaves and make.args[1] is None:   # (make.args[1]: replayed input values, made one by one)
        stop = min(i + _RUN, region.size // es)
        E.var_range(make.args[0], i + 1, stop, leaves)
    return leaf


def load_shape(m, op, regs):
    """(base slot, offset, element size, bytes, alignment, [(destination, width mask)]) of a weak load
    from global memory into registers, or None."""
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
    size = es * len(targets)
    return base, src.offset, es, size, min(size, 16), [(r.index, (1 << width(r.type)) - 1) for r in targets]


def _load(m, op, regs):
    """Weak loads of elements of an input buffer that nothing has written yet: their leaves (load_sym)."""
    shape = load_shape(m, op, regs)
    if shape is None:
        return None
    base, offset, es, size, align, puts = shape
    vals, fill, dirty, inputs = regs.vals, regs.fill, regs.dirty, regs.inputs
    nxt = op.index + 1

    def step():
        a, f, _ = vals[base] or fill(base)
        if f:
            return None   # an address from data or never-written: refused / reported by the general path
        addr = (a + offset) & MASK64
        key = (addr >> GLOBAL_SHIFT, es)
        entry = inputs.get(key)
        if entry is None:
            entry = inputs[key] = input_region(m, key[0], es)
        if entry is False:
            return None
        region, words, leaves, _ = entry
        off = addr & OFFSET_MASK
        if (off + size > region.size or off % align or region.sym is not None or region.kwritten is not None
                or region.lsref is not None):
            return None
        i = off // es
        for r, mk in puts:
            leaf = leaves.get(i)
            if leaf is None:
                leaf = new_leaf(entry, i, es)
            vals[r] = (words[i] & mk, DATA, leaf)
            dirty.add(r)
            i += 1
        return nxt
    return step
