"""Instructions that touch more than registers: control flow, memory, barriers, warp collectives.

One handler per opcode, in `DISPATCH` (volta/exec/handlers/table.py); pure register arithmetic lives in
`volta.semantics.compute`.
"""
from __future__ import annotations

import numpy as np

from volta.config import FULL_WARP_MASK, WARP_SIZE
from volta.errors import Unsupported
from volta.exec import findings as F
from volta.exec.handlers import atomics_real, floatbits, integer_real, tensor_real
from volta.exec.handlers.table import _advance, _data_flag, _merge, handles, reduction_groups
from volta.exec.races import memmodel, racy_reads, replicas
from volta.exec.state import access as A
from volta.exec.state import runtime, schedules
from volta.exec.state.lanesym import LaneSym
from volta.exec.state.memory import GENERIC_LOCAL, GENERIC_PARAM, GENERIC_SHARED
from volta.exec.state.operands import constants
from volta.exec.state.services import BAR, DATA, EXIT
from volta.ir.program import RegRef, type_size
from volta.ptx import ast
from volta.semantics import compute as C
from volta.semantics import realops
from volta.semantics.bits import U64, mask, width
from volta.semantics.realops import Infinity
from volta.symbolic import expr as E
from volta.symbolic.constants import LOG2E
from volta.symbolic.lanepoly import LanePoly


# ---- control flow ----------------------------------------------------------------------------

@handles("bra")
def _bra(m, op, lanes):
    target = op.operands[0][1]
    m.pc[lanes] = target
    if target <= op.index and m.may_spin:
        m.back_edge(op, lanes)  # a loop that made no progress parks its lanes (spin-waits,
                                # volta/exec/state/services.py)


@handles("exit", "ret")
def _exit(m, op, lanes):
    m.status[lanes] = EXIT


@handles("call")
def _extern_call(m, op, lanes):
    """A function with no body in the PTX: an uninterpreted function of its arguments (equal
    arguments give equal results). Over the reals that is `f(args)`; a concrete run cannot know it."""
    fn, rets, args = op.operands
    if getattr(m, "bit_terms", False):
        raise Unsupported(f"`{fn.name}` has no body in the PTX: nothing says its bits are a function of "
                          f"its arguments' bits alone", op.span)
    if not m.symbolic and not m.structured:   # printf, or a result the run supplies (volta/exec/state/runtime.py)
        runtime.call(m, op, lanes, fn, rets, args)
        _advance(m, lanes)
        return
    values, flags = [], None
    floats = mangled_floats(fn.name, len(fn.param_types))
    for ref, t, is_float in zip(args, fn.param_types, floats):
        region = m.memory.by_name[ref.name]
        size = type_size(t)
        offs = np.zeros(lanes.size, np.int64)
        bits, undef = A.load(m, region, lanes, offs, size)
        flags = _merge(flags, undef, m.memory_flags(region, lanes, offs, size))
        if m.symbolic:
            values.append(A.load_sym(m, op, region, lanes, offs, size, t, bits))
            # a defined meaning (exp, sqrt, …) takes a float: nvcc passes a float as `.param .b32`, so a
            # concrete argument is read as the float of that width, never as the integer of its bits
            # (and so is one the C++ name says is a float or double: `_Z11__volta_powff` takes two floats)
            ct = {".b32": ".f32", ".b64": ".f64"}.get(t, t) if fn.name in m.functions or is_float else t
            consts = constants(bits, ct, m.named)
            values[-1] = np.array([e if e is not None else c for e, c in zip(values[-1], consts)], dtype=object)
    for ref, t in zip(rets, fn.return_types):
        region = m.memory.by_name[ref.name]
        size = type_size(t)
        offs = np.zeros(lanes.size, np.int64)
        A.store(m, region, lanes, offs, size, np.zeros(lanes.size, np.uint64))
        m.set_memory_flags(region, lanes, offs, size, _merge(flags, np.ones(lanes.size, np.uint8)))
        if m.symbolic:
            results = np.empty(lanes.size, dtype=object)
            meaning = m.functions.get(fn.name)
            apply = (lambda *a: E.call(fn.name, *a)) if meaning is None else _meaning(meaning, fn, op)
            results[:] = [apply(*a) for a in zip(*values)] if values else [apply()] * lanes.size
            A.store_sym(m, region, lanes, offs, size, results)
    _advance(m, lanes)


_BUILTIN_CODES = set("vbcahstijlmxynofdegz")   # the Itanium C++ ABI's one-letter builtin types


def mangled_floats(name: str, count: int) -> list[bool]:
    """Which of a function's `count` parameters its Itanium-mangled C++ name types as float or double
    (`_Z11__volta_powff`: two floats); all False when the name is not mangled or its parameters are not all
    one-letter builtin types (pointers, references, classes: the declared .param type stays the reading)."""
    if name.startswith("_Z"):
        digits = len(name) - len(name[2:].lstrip("0123456789")) - 2
        if digits:
            params = name[2 + digits + int(name[2:2 + digits]):]
            if len(params) == count and set(params) <= _BUILTIN_CODES:
                return [c in "fd" for c in params]
    return [False] * count


def _meaning(meaning, fn, op):
    """The exact real function `--define-fn` names. e enters as 2^(x·L) with L = log2(e) a positive
    symbol: identities proved for every L > 0 hold for the real one, and base-2 normal forms stay exact. L is the
    named constant RN(log2 e) literals read as (volta/symbolic/constants.py), so a defined `exp` meets `__expf`."""
    if len(fn.param_types) != 1:
        raise Unsupported(f"--define-fn gives `{fn.name}` a one-argument meaning, but it takes "
                          f"{len(fn.param_types)} arguments", op.span)
    exact = {"exp2": E.exp2, "sqrt": E.sqrt, "rsqrt": E.rsqrt, "tanh": E.tanh, "log2": E.lg2, "sin": E.sin,
             "cos": E.cos, "exp": lambda x: E.exp2(E.mul(x, LOG2E)), "log": lambda x: E.div(E.lg2(x), LOG2E),
             "erf": _erf}[meaning]

    def apply(x):
        if isinstance(x, Infinity):  # the extended reals: exp(-inf) = 2^-inf = 0; nothing else is exact here
            if x.sign < 0 and meaning in ("exp", "exp2"):
                return E.const(0)
            raise Unsupported(f"`{fn.name}` (--define-fn {fn.name}={meaning}) applied to {x!r} has no exact "
                              f"real value in volta check", op.span)
        return exact(x)

    return apply


def _erf(x):
    """erf has no Volta operator: the uninterpreted `erf(x)` (erf(0) = 0), as the torch stand-in builds it
    (volta/kernelbench/reals.py), so a kernel's erf meets a reference's."""
    if x.op is E.CONST and x.data == 0:
        return E.ZERO
    return E.call("erf", x)


@handles("trap", "brkpt")
def _trap(m, op, lanes):
    raise Unsupported(f"`{op.d.inst.opcode}` executed by {lanes.size} threads (the kernel aborts)", op.span)


@handles("brx")
def _brx(m, op, lanes):
    raise Unsupported("indirect branch `brx.idx` is not modelled", op.span)


@handles("nanosleep", "prefetch", "prefetchu", "pmevent", "griddepcontrol", "applypriority",
         "discard", "createpolicy")
def _nop(m, op, lanes):
    _advance(m, lanes)


@handles("membar", "fence")
def _fence(m, op, lanes):
    """`fence.sc`/`fence.acq_rel`/`membar` order the thread's accesses for the memory model
    (volta/exec/races/memmodel.py); proxy fences order nothing between threads here."""
    if m.clocks is not None and memmodel.is_ordering_fence(op):
        m.clocks.fence(op, lanes, memmodel.scope_of(op))
    _advance(m, lanes)


def _loc_keys(m, region, lanes, offs):
    """One key per lane for the synchronizing location it touches (region, flat byte)."""
    flat = A.row_index(region, lanes, m) * region.data.shape[1] + offs
    return [(region.name, int(x)) for x in flat]


def _sync_reads(m, op, region, lanes, offs):
    """Strong loads: acquire (`ld.acquire`) joins what was published at the location; a relaxed or
    volatile load joins it at the thread's next fence."""
    clocks = m.clocks
    if clocks is None or region.space not in (".global", ".shared"):
        return
    scope = memmodel.strength(op)
    if not scope:
        return
    acquire = op.d.has(".acquire")
    if not clocks.vc is None and not clocks.locs and not acquire:
        return
    for lane, key in zip(lanes, _loc_keys(m, region, lanes, offs)):
        clocks.read(op, int(lane), key, int(m.cta[lane]), scope, acquire)


def _sync_writes(m, op, region, lanes, offs):
    clocks = m.clocks
    if clocks is None or region.space not in (".global", ".shared"):
        return
    scope = memmodel.strength(op)
    release = op.d.has(".release")
    if not scope:
        # a weak store only ends the release sequences of locations that have one
        if clocks.locs:
            flat = A.row_index(region, lanes, m) * region.data.shape[1] + offs
            for x in set(flat.tolist()) & {k[1] for k in clocks.locs if k[0] == region.name}:
                clocks.locs.pop((region.name, x), None)
        return
    for lane, key in zip(lanes, _loc_keys(m, region, lanes, offs)):
        clocks.write(op, int(lane), key, int(m.cta[lane]), scope, release, rmw=False)


# ---- comparisons and moves ---------------------------------------------------------------------

@handles("setp")
def _setp(m, op, lanes):
    t = op.d.types[-1]
    dst = op.operands[0]
    a, fa = m.read(op.operands[1], lanes, t)
    b, fb = m.read(op.operands[2], lanes, t)
    c, fc = (m.read(op.operands[3], lanes, ".pred") if len(op.operands) > 3 else (None, None))
    p = C.compare(op.d, a, b)
    flags = _merge(fa, fb, fc)
    sym_p = sym_q = None
    if m.symbolic and flags is not None and (flags & 1).any():
        sym_p, sym_q = _real_setp(m, op, lanes, flags, t, c is not None)
    if isinstance(dst, ast.Pair):
        q = C.combine(op.d, ~p, c)
        p = C.combine(op.d, p, c)
        m.write(dst.first, lanes, p.astype(np.uint64), flags, sym_p)
        m.write(dst.second, lanes, q.astype(np.uint64), flags, sym_q)
    else:
        m.write(dst, lanes, C.combine(op.d, p, c).astype(np.uint64), flags, sym_p)
    _advance(m, lanes)


def _real_setp(m, op, lanes, flags, t, has_c):
    """Comparison expressions for the data lanes of a `setp` (and its negation for `p|q`)."""
    if getattr(m, "bit_terms", False):  # volta.equiv.bitproof: the comparison as a function of bits
        return m.setp_terms(op, lanes, flags, t, has_c)
    data = (flags & 1) != 0
    dl = lanes[data]
    a = m.read_sym(op.operands[1], dl, t)
    b = m.read_sym(op.operands[2], dl, t)
    if integer_real.type_range(t) is not None:   # an integer comparison reads numbers, not residues
        a, b = _integer_operands(m, op, (a, b), t)
    c = m.read_sym(op.operands[3], dl, ".pred") if has_c else [None] * dl.size
    da, db = (_data_lanes(m, op.operands[i], dl, t) for i in (1, 2))
    ps = np.full(lanes.size, None, dtype=object)
    qs = np.full(lanes.size, None, dtype=object)
    for k, (x, y, z) in enumerate(zip(a, b, c)):
        # realops.compare, or a float's bits against a constant
        cond = floatbits.compare(m, op, x, y, data=(bool(da[k]), bool(db[k])))
        if cond is None:
            raise Unsupported(f"`{op.d.inst.opcode}` on tensor data has no real-number meaning", op.span)
        ps[np.nonzero(data)[0][k]] = realops.combine(op.d, cond, z)
        qs[np.nonzero(data)[0][k]] = realops.combine(op.d, E.logical_not(cond), z)
    return ps, qs


def _data_lanes(m, operand, lanes, t):
    """Which of `lanes` hold tensor data in `operand` (a concrete one reads as the constant of its bits)."""
    _, f = m.read(operand, lanes, t)
    return np.zeros(lanes.size, bool) if f is None else (f & 1) != 0


def _integer_operands(m, op, operands, t):
    """Integer operands in t's range (integer_real.in_range); a .bN comparison (equality) may read them as
    unsigned or as signed numbers, whichever range holds them all."""
    if not t.startswith(".b"):
        return [integer_real.in_range(m, op, v, t) for v in operands]
    try:
        return [integer_real.in_range(m, op, v, ".u" + t[2:]) for v in operands]
    except Unsupported:
        return [integer_real.in_range(m, op, v, ".s" + t[2:]) for v in operands]


@handles("set")
def _set(m, op, lanes):
    t = op.d.types[-1]
    a, fa = m.read(op.operands[1], lanes, t)
    b, fb = m.read(op.operands[2], lanes, t)
    c, fc = (m.read(op.operands[3], lanes, ".pred") if len(op.operands) > 3 else (None, None))
    p = C.combine(op.d, C.compare(op.d, a, b), c)
    dt = op.d.types[0]
    if dt == ".f32":
        r = np.where(p, U64(0x3F800000), U64(0))
    else:
        r = np.where(p, U64((1 << width(dt)) - 1), U64(0))
    m.write(op.operands[0], lanes, r, _merge(fa, fb, fc))
    _advance(m, lanes)


@handles("mov")
def _mov(m, op, lanes):
    dst, src = op.operands
    t = op.d.types[-1] if op.d.types else ".b64"
    if isinstance(src, ast.Vector):  # pack
        ew = width(t) // len(src.elems)
        bits, flags = np.zeros(lanes.size, np.uint64), None
        for k, e in enumerate(src.elems):
            v, f = m.read(e, lanes, f".b{ew}")
            bits |= mask(v, ew) << U64(k * ew)
            flags = _merge(flags, f)
        data = m.symbolic and flags is not None and (flags & DATA).any()
        m.write(dst, lanes, bits, flags, _packed(m, op, src.elems, lanes) if data else None)
    elif isinstance(dst, ast.Vector):  # unpack
        v, f = m.read(src, lanes, t)
        ew = width(t) // len(dst.elems)
        halves = _pair_halves(m, op, src, lanes) if m.symbolic and f is not None and (f & DATA).any() else None
        for k, e in enumerate(dst.elems):
            m.write(e, lanes, mask(v >> U64(k * ew), ew), f, halves[k] if halves is not None else None)
    else:
        v, f = m.read(src, lanes, t)
        if m.symbolic and isinstance(src, RegRef) and isinstance(m.sym[src.index], LaneSym):
            sym = m.lane_sym(src, lanes)
        else:
            sym = m.sym_of(src, lanes) if m.symbolic else None
        m.write(dst, lanes, mask(v, width(t)), f, sym)
    _advance(m, lanes)


def _stored_pair(m, op, region, lanes, offs, bits):
    """A 4-byte load over two 16-bit values stored apart (A.stored_halves): the pair `b16x2(lo, hi)` of
    elements moved through memory, whose format is not known here (an expression does not say how its bits were
    made): a widening, packed arithmetic or a store into a typed buffer decides it where it reads them, as for
    ldmatrix's elements (tensor_real.refuse_unknown_format)."""
    lo = A.load_sym(m, op, region, lanes, offs, 2, ".b16", bits)
    hi = A.load_sym(m, op, region, lanes, offs + 2, 2, ".b16", bits >> U64(16))
    both = (lo != None) & (hi != None)  # noqa: E711
    if (((lo != None) | (hi != None)) & ~both).any():  # noqa: E711
        raise Unsupported(f"`{op.d.inst.opcode}` reads 4 bytes of `{region.name}` holding a stored 16-bit value "
                          f"beside concrete bits: only two stored values (or input elements) are paired", op.span)
    out = np.full(lanes.size, None, dtype=object)
    out[both] = [E.call(tensor_real.pack_name(tensor_real.B16), a, b) for a, b in zip(lo[both], hi[both])]
    return out


def _pair_halves(m, op, src, lanes):
    """`mov.b32 {lo, hi}, %r` of a register holding a pair of 16-bit elements (an f16x2/bf16x2 value: a __half2
    load, packed arithmetic, ldmatrix): its two elements, exactly. Unpacking anything else is refused."""
    sym = m.sym_of(src, lanes)
    if op.d.types[-1] != ".b32" or len(op.operands[0].elems) != 2 or sym is None or \
            not all(tensor_real.is_pair(e) for e in sym if e is not None):
        raise Unsupported("unpacking tensor data from a wider register is not modelled symbolically (only a pair "
                          "of 16-bit elements, `mov.b32 {lo, hi}, %r`)", op.span)
    halves = [np.full(lanes.size, None, dtype=object) for _ in range(2)]
    for k in np.flatnonzero(sym != None):  # noqa: E711
        halves[0][k], halves[1][k] = sym[k].args
    return halves


def _packed(m, op, elems, lanes):
    """The expressions of `mov.b32 %r, {lo, hi}` packing tensor data, per lane (None where both halves are
    concrete). Two forms are modelled:
    - `{0, %h}` (nvcc's __bfloat162float): a bf16 value above 16 zero bits is the f32 of the same number, so
      its expression carries over when `h` certainly holds bf16 bits;
    - `{%a, %b}` two 16-bit elements of one format (a Packed128 of bf16/f16 built element by element, then
      stored as a 128-bit word): the pair `bf16x2(a, b)` or `f16x2(a, b)`, as a 4-byte load of two elements
      makes, which stores, shuffles and packed arithmetic take apart again. Both halves must certainly hold
      that format's bits (a concrete half is read as that format's number).
    An expression does not say how its bits were made (an f16 value, or a float rounded to a u16, would be
    another number read as bf16), hence the certainty; any other packing of data is refused."""
    if op.d.types[-1] == ".b32" and len(elems) == 2:
        if isinstance(elems[0], ast.Imm) and elems[0].value == 0 and isinstance(elems[1], RegRef):
            return _bf16_widened(m, op, elems[1], lanes)
        fmt = next((f for f in ("bf16", "f16") if all(_holds_format(m, op, e, lanes, f) for e in elems)), None)
        if fmt is not None:
            return _half_pair(m, op, elems, lanes, fmt)
    raise Unsupported("packing tensor data into a wider register is not modelled symbolically (only two 16-bit "
                      "elements of one format, `mov.b32 %r, {%lo, %hi}` with both certainly bf16 or both f16, "
                      "or a bf16 above 16 zero bits, `mov.b32 %f, {0, %h}`)", op.span)


def _bf16_widened(m, op, hi, lanes):
    if not _holds_format(m, op, hi, lanes, "bf16"):
        raise Unsupported("`mov.b32 {0, %h}` widens a 16-bit value that is not certainly bf16 (not made by "
                          "a conversion to .bf16 nor an element of a bf16 buffer)", op.span)
    return m.sym_of(hi, lanes)


def _holds_format(m, op, operand, lanes, fmt) -> bool:
    """Whether a 16-bit operand certainly holds `fmt` bits on `lanes`: an immediate (read as that format), a
    register every writer of which converts to `fmt`, or whose values are each an element of an `fmt` buffer
    or, computed or moved through memory (a bf16 stored and loaded back, an earlier launch's output), made
    where no 16-bit value of another kind can exist (`_only_format`)."""
    if isinstance(operand, ast.Imm):
        return True
    if not isinstance(operand, RegRef):
        return False
    if _makes_format(m, operand.index, "." + fmt):
        return True
    sym = m.sym_of(operand, lanes)
    values = [x for x in (() if sym is None else sym) if x is not None]
    if not all(type(e) is E.Expr for e in values):
        return False
    leaves = [e for e in values if e.op is E.VAR]
    if any(getattr(m.buffer_regions.get(e.data[0]), "dtype", None) != fmt for e in leaves):
        return False
    if len(leaves) < len(values):
        if not _only_format(m, fmt) or (m.integers and any(E.has_integer_leaf(e, m.integers) for e in values)):
            return False
    return True


def _half_pair(m, op, elems, lanes, fmt):
    """`fmt`x2(lo, hi) on the lanes where a half is data; a concrete half is read as that format's number."""
    values, data = [], np.zeros(lanes.size, bool)
    for e in elems:
        bits, _ = m.read(e, lanes, ".b16")
        vals = constants(bits, "." + fmt).copy()
        sym = None if isinstance(e, ast.Imm) else m.sym_of(e, lanes)
        if sym is not None:
            has = sym != None  # noqa: E711
            vals[has], data = sym[has], data | has
        values.append(vals)
    out = np.full(lanes.size, None, dtype=object)
    name = tensor_real.pack_name(fmt)
    for k in np.flatnonzero(data):
        lo, hi = values[0][k], values[1][k]
        if not (isinstance(lo, E.Expr) and isinstance(hi, E.Expr)):
            raise Unsupported(f"`mov.b32` packs an infinity (no real value) beside {fmt} data", op.span)
        out[k] = E.call(name, lo, hi)
    return out


def _only_format(m, fmt) -> bool:
    """No 16-bit value of this launch can be anything but `fmt`: no 16-bit buffer of another type, no value of the
    other 16-bit float format made here or (as far as known) by an earlier launch of a sequence, no float
    converted to an integer (which a u16 may then hold). Memoized per machine: it reads only what the machine
    fixes at its start."""
    known = m.__dict__.setdefault("_only_format16", {})
    if fmt not in known:
        other = {"bf16": "f16", "f16": "bf16"}[fmt]
        known[fmt] = not (
            tensor_real._carried_unknown(m, other) or tensor_real._carried_unknown(m, "int")
            or other in tensor_real._formats_made(m) or tensor_real.converts_floats_to_integers(m)
            or any(A.region_itemsize(r) == 2 and r.dtype != fmt for r in m.buffer_regions.values()))
    return known[fmt]


def _makes_format(m, index, t, seen=frozenset()) -> bool:
    """Whether every instruction that writes register `index` makes bits of 16-bit float type `t`: `cvt` to `t`,
    or a plain move of a register that does (memoized per machine)."""
    memo = m.__dict__.setdefault("_format_registers", {})
    if (index, t) not in memo:
        ok = True
        for o in m.prog.ops:
            dst = o.operands[0] if o.operands else None
            targets = o.operands[1] if o.op == "call" else dst.elems if isinstance(dst, ast.Vector) else (dst,)
            if not any(isinstance(r, RegRef) and r.index == index for r in targets or ()):
                continue
            src = o.operands[1] if len(o.operands) == 2 else None
            if o.op == "cvt" and o.d.types[:1] == (t,) or (
                    o.op == "mov" and isinstance(src, RegRef) and src.index not in seen | {index}
                    and _makes_format(m, src.index, t, seen | {index})):
                continue
            ok = False
            break
        memo[index, t] = ok
    return memo[index, t]


@handles("cvta")
def _cvta(m, op, lanes):
    v, f = m.read(op.operands[1], lanes)
    m.require_concrete(op, f, lanes, "address")
    space = op.d.space.split("::")[0] if op.d.space else ".global"
    window = {".shared": GENERIC_SHARED, ".local": GENERIC_LOCAL, ".param": GENERIC_PARAM}.get(space, 0)
    if op.d.has(".to"):
        r = v - U64(window) if window else v
    else:
        r = v + U64(window)
    m.write(op.operands[0], lanes, r, f)
    _advance(m, lanes)


@handles("activemask")
def _activemask(m, op, lanes):
    bits = np.zeros(lanes.size, np.uint64)
    warps = m.gwarp[lanes]
    for w in np.unique(warps):
        sel = warps == w
        bits[sel] = np.bitwise_or.reduce(U64(1) << m.laneid[lanes[sel]].astype(np.uint64))
    m.write(op.operands[0], lanes, bits)
    _advance(m, lanes)


# ---- memory ------------------------------------------------------------------------------

def _elements(op):
    """(element type, element size, number of elements) of a ld/st/atom."""
    t = op.d.types[-1] if op.d.types else ".b32"
    return t, type_size(t), op.d.vec


@handles("ld", "ldu")
def _ld(m, op, lanes):
    dst, src = op.operands[0], op.operands[1]
    t, es, n = _elements(op)
    addr = A.addresses(m, op, src, lanes)
    regs = dst.elems if isinstance(dst, ast.Vector) else (dst,)
    groups = A.resolve(m, op, op.d.space, addr, lanes, es * n, False)
    faulted = _unresolved(lanes, groups)
    if faulted.size:  # out of bounds, misaligned or null: reported once; the register reads as a plain 0
        for r in regs:  # after, not as a second, spurious uninitialized-read finding
            m.write(r, faulted, np.zeros(faulted.size, np.uint64))
    for region, lz, offs in groups:
        if region == "kernel-param":
            for k, r in enumerate(regs):
                _kernel_param(m, op, r, lz, offs + k * es, es, t)
            continue
        if region.space in (".global", ".shared"):
            A.track(m, op, region, lz, offs, es * n, write=False)
            _sync_reads(m, op, region, lz, offs)
        for k, r in enumerate(regs):
            at = offs + k * es if k else offs   # element k's offsets, made once for every look below
            bits, undef = A.load(m, region, lz, at, es)
            m.note_undefined_read(op, lz, undef)
            if t.startswith(".s") and es < 8 and isinstance(r, RegRef) and width(r.type) > 8 * es:
                bits = C.from_int(C.as_int(bits, 8 * es).astype(np.int64), width(r.type))
            # taint stored with the value (UNDEF of a register stored to shared/local memory) comes back
            halves = m.symbolic and es == 4 and A.stored_halves(m, region, lz, at)
            fast = A.load_lsym(m, op, region, lz, at, es) if m.lane_structured and not halves else None
            if fast is not None:   # fast covers a sorted subset of lz: all of it when the sizes agree
                data = (_all_data(lz.size) if fast.lanes.size == lz.size
                        else fast.positions(lz)[0].astype(np.uint8))
                m.write(r, lz, bits, _merge(undef, data, m.memory_undef(region, lz, at, es)), fast)
            elif m.symbolic:
                carried = _data_flag(m, region, lz, at, es)
                if halves:
                    sym = _stored_pair(m, op, region, lz, at, bits)
                else:
                    sym = A.load_sym(m, op, region, lz, at, es, t, bits)
                if m.racing is not None:   # what a racing read returns: a fresh leaf (volta/exec/races/racy_reads.py)
                    sym = racy_reads.substitute(m, op, region, lz, at, es, sym)
                data = (sym != None).astype(np.uint8)  # noqa: E711
                m.write(r, lz, bits, _merge(undef, data, _undef_only(carried)), sym)
            else:
                m.write(r, lz, bits, _merge(undef, _data_flag(m, region, lz, at, es)))
            if m.symbolic and isinstance(r, RegRef) and integer_real.type_range(t) and width(r.type) > 8 * es:
                # a narrow integer extended into a wider register: its number in t, not its residue
                integer_real.in_range(m, op, m.read_sym(r, lz, r.type), t, "the loaded element")
    _advance(m, lanes)


_ALL_DATA: dict = {}


def _all_data(n: int) -> np.ndarray:
    """The DATA flag (1) for each of n lanes, read only, made once per n (np.ones cost as much as a gather)."""
    got = _ALL_DATA.get(n)
    if got is None:
        got = _ALL_DATA[n] = np.ones(n, np.uint8)
        got.flags.writeable = False
    return got


def _unresolved(lanes, groups) -> np.ndarray:
    """Lanes of an access that no region took (the access faulted and was reported)."""
    taken = sum(lz.size for _, lz, _ in groups)
    if taken == lanes.size:
        return lanes[:0]
    return np.setdiff1d(lanes, np.concatenate([lz for _, lz, _ in groups]) if groups else lanes[:0])


def _undef_only(flags):
    """Over the reals DATA follows the expressions; only the UNDEF taint travels in the flags."""
    return None if flags is None else flags & np.uint8(2)


def _kernel_param(m, op, reg, lanes, offs, es, t):
    names = [p[0] for p in m.prog.params]
    index = (offs // 16).astype(np.int64)
    within = offs % 16
    out = np.zeros(lanes.size, np.uint64)
    flags = sym = None
    for i in np.unique(index):
        if not 0 <= i < len(names):
            raise Unsupported("read outside the kernel parameters", op.span)
        bits, symbolic = m.param_values[names[int(i)]]
        sel = index == i
        out[sel] = (U64(bits) >> (within[sel].astype(np.uint64) * U64(8))) & U64((1 << (8 * min(es, 8))) - 1)
        if t.startswith(".s") and es < 8 and isinstance(reg, RegRef) and width(reg.type) > 8 * es:
            out[sel] = C.from_int(C.as_int(out[sel], 8 * es).astype(np.int64), width(reg.type))  # sign-extend
        if symbolic:
            flags = np.where(sel, 1, 0).astype(np.uint8) if flags is None else flags | sel.astype(np.uint8)
            if m.symbolic:
                fixed = (m.input_values or {}).get("__symbols__", {})
                if m.lane_structured and sel.all() and symbolic not in fixed:
                    # one LanePoly factor for every lane: alpha·acc then shares acc's arrays (lanepoly.SYMBOL)
                    sym = LaneSym(lanes, LanePoly.symbol(symbolic, lanes.size))
                    continue
                sym = np.full(lanes.size, None, dtype=object) if sym is None else sym
                sym[sel] = E.const(fixed[symbolic]) if symbolic in fixed else E.sym(symbolic)
    m.write(reg, lanes, out, flags, sym)


@handles("st")
def _st(m, op, lanes):
    dst, src = op.operands[0], op.operands[1]
    t, es, n = _elements(op)
    addr = A.addresses(m, op, dst, lanes)
    regs = src.elems if isinstance(src, ast.Vector) else (src,)
    all_vals = [m.read(r, lanes, t) for r in regs]
    for region, lz, offs in A.resolve(m, op, op.d.space, addr, lanes, es * n, True):
        if region == "kernel-param":
            raise Unsupported("store to a kernel parameter", op.span)
        pos = np.searchsorted(lanes, lz)
        image = data = None
        if region.space in (".global", ".shared") and region.shadow is not None:
            # the bytes each lane stores, and whether they come from tensor data (benign-race values)
            image = np.concatenate([mask(v[pos], 8 * es).astype("<u8").view(np.uint8).reshape(-1, 8)[:, :es]
                                    for v, _ in all_vals], axis=1)
            data = np.zeros(lz.size, bool)
            for _, f in all_vals:
                if f is not None:
                    data |= (f[pos] & DATA) != 0
        if m.may_spin:
            old = np.concatenate([A.load(m, region, lz, offs + k * es, es, seen=False)[0][:, None] for k in range(n)],
                                 axis=1)
        exprs = (lambda at, k, lz=lz: _exprs_at(m, regs[k], lz[at], t)) if m.symbolic else None
        same_warp = A.track(m, op, region, lz, offs, es * n, write=True, warp_uniform=True, image=image, data=data,
                            exprs=exprs) if region.space in (".global", ".shared") else None
        _sync_writes(m, op, region, lz, offs)
        for k, (v, f) in enumerate(all_vals):
            bits = v[pos]
            flags = f[pos] if f is not None else None
            if same_warp is not None and same_warp.size:
                _same_warp_values(m, op, region, lz, offs + k * es, same_warp, bits, flags, regs[k], t)
            if region.space == ".global" and flags is not None and (flags & 2).any():
                j = int(np.nonzero(flags & 2)[0][0])
                m.uninitialized("a value read from never-written shared/local memory is stored to "
                                f"global buffer `{region.name}`", op, lz[j], buffer=region.name)
            A.store(m, region, lz, offs + k * es, es, bits)
            m.set_memory_flags(region, lz, offs + k * es, es, flags)
            if m.symbolic and isinstance(regs[k], RegRef) and isinstance(m.sym[regs[k].index], LaneSym):
                ls = m.lane_sym(regs[k], lz)
                if ls is not None:
                    tensor_real.check_width(op, region, es)
                A.store_lsym(m, region, lz, offs + k * es, es, ls)
            elif m.symbolic:
                sym = m.sym_of(regs[k], lz)
                # pairs of 16-bit elements land as two elements; data of another width than a buffer's is refused
                if sym is None or getattr(m, "bit_terms", False) or \
                        not tensor_real.store_pairs(m, op, region, lz, offs + k * es, es, sym):
                    A.store_sym(m, region, lz, offs + k * es, es, sym)
        if m.may_spin:
            new = np.concatenate([A.load(m, region, lz, offs + k * es, es, seen=False)[0][:, None] for k in range(n)],
                                 axis=1)
            if (new != old).any():
                m.mem_epoch += 1  # memory changed: spinning threads may see something new
    _advance(m, lanes)


def _same_warp_values(m, op, region, lz, offs, pairs, bits, flags, reg, t):
    """Threads (a, b) of one warp store to the same address in one instruction: one write lands,
    so this is defined only if the values are equal. Concrete values compare by bits; tensor data
    by expressions (`volta check`, or the symbolic re-run of `volta races` the machine asks for).
    Tensor data equal over the reals is noted for the bits comparison (volta/exec/drivers/replica_bits.py)."""
    a, b = pairs[:, 0], pairs[:, 1]
    data = (flags & DATA) != 0 if flags is not None else np.zeros(lz.size, bool)
    differ, symbolic_pair = A.stored_values_differ(m, bits[a], bits[b], data[a], data[b])
    if differ.any():
        k = int(np.argmax(differ))
        words = None if m.structured else replicas.words(
            *(int(bits[i]).to_bytes(8, "little")[:_elements(op)[1]] for i in (a[k], b[k])))
        _nondeterministic(m, op, region, lz[a[k]], lz[b[k]], offs[a[k]],
                          "" if m.structured else " (on these inputs)", words)
    if not symbolic_pair.any():
        return
    if not m.symbolic:
        m.unproved_stores.append(op)   # decided by re-running symbolically (volta.session.races)
        return
    a, b = a[symbolic_pair], b[symbolic_pair]
    ea, eb = _exprs_at(m, reg, lz[a], t), _exprs_at(m, reg, lz[b], t)
    for k, (x, y) in enumerate(zip(ea, eb)):
        if x is not y and getattr(m, "bit_terms", False):  # volta.equiv.bitproof: equal bits by equal terms only
            raise Unsupported(f"threads of one warp store values to the same address of `{region.name}` in one "
                              f"instruction that are not the same function of the input bits (an fma-contracted "
                              f"butterfly does this): which lane's bits land is unspecified; `volta run --fp ieee` "
                              f"shows it on concrete inputs", op.span)
        equal = replicas.real_equal(m, x, y)
        if equal:
            continue
        if equal is None:
            raise Unsupported(f"threads of one warp store tensor data to the same address of `{region.name}` in "
                              f"one instruction, and whether the values are always equal was not decided", op.span)
        _nondeterministic(m, op, region, lz[a[k]], lz[b[k]], offs[a[k]], " (for some inputs)")
        return
    replicas.note(m, op)


def _nondeterministic(m, op, region, lane_a, lane_b, off, when, words=None):
    es = _elements(op)[1]
    m.report(F.NONDETERMINISTIC, f"nondeterministic write: lanes {int(m.laneid[lane_a])} and {int(m.laneid[lane_b])} "
             f"of warp {int(m.warp_in_cta[lane_a])} store different values to `{region.name}`[{int(off) // es}] in "
             f"one instruction{when}; which write lands is unspecified", op, [lane_a, lane_b],
             buffer=region.name, offset=int(off), bounds=region.size,
             details={"values": words} if words is not None else {})


def _exprs_at(m, reg, lanes, t):
    """Expressions of a stored register on a few lanes (LaneSym rows are built only for those lanes)."""
    cur = m.sym[reg.index] if isinstance(reg, RegRef) else None
    if isinstance(cur, LaneSym):
        bits, _ = m.read(reg, lanes, t)
        out = constants(bits, t, m.named)
        found, part = cur.restrict(np.unique(lanes))
        if part is not None:
            where = {int(lane): k for k, lane in enumerate(part.lanes)}
            exprs = part.exprs()
            for i, lane in enumerate(lanes):
                if int(lane) in where:
                    out[i] = exprs[where[int(lane)]]
        return out
    return m.read_sym(reg, lanes, t)


@handles("atom", "red")
def _atom(m, op, lanes):
    if op.op == "atom":
        dst, addr_op, srcs = op.operands[0], op.operands[1], op.operands[2:]
    else:
        dst, addr_op, srcs = None, op.operands[0], op.operands[1:]
    t, es, n = _elements(op)
    addr = A.addresses(m, op, addr_op, lanes)
    vals = [m.read(s, lanes, t) for s in srcs]
    exprs = m.read_sym(srcs[0], lanes, t) if m.symbolic else None   # over the reals: atomics_real.update
    kind = atomics_real.kind_of(op)
    clocks = m.clocks
    scope = memmodel.strength(op)
    acquire, release = op.d.has(".acquire") or op.d.has(".acq_rel"), op.d.has(".release") or op.d.has(".acq_rel")
    for region, lz, offs in A.resolve(m, op, op.d.space, addr, lanes, es, True):
        pos = np.searchsorted(lanes, lz)
        A.track(m, op, region, lz, offs, es, write=True, atomic=True)
        if region.space not in (".global", ".shared"):
            clocks = None
        region.stored = True   # a counter in a module variable: what atomics return depends on their order
        returned = atomics_real.update(m, op, region, lz, offs, es, t, exprs[pos]) if exprs is not None else None
        held = _data_flag(m, region, lz, offs, es)  # taint of what memory holds before this instruction
        # serialize lanes in order: each sees the previous ones' updates
        olds = np.zeros(lz.size, np.uint64)
        old_flags = np.zeros(lz.size, np.uint8)

        def changes(j):   # would lane j's update change memory if it went now (volta/exec/state/schedules.py)
            old = A.load(m, region, lz[j:j + 1], offs[j:j + 1], es, seen=False)[0]
            new = _atomic_value(op, kind, t, old, [v[pos[j:j + 1]] for v, _ in vals])
            return mask(new, 8 * es)[0] != mask(old, 8 * es)[0]

        for j in schedules.serial_order(m, op, region, lz, offs, changes):
            one = lz[j:j + 1]
            o = offs[j:j + 1]
            old, undef = A.load(m, region, one, o, es)
            olds[j] = old[0]
            if undef is not None:
                old_flags[j] = undef[0]
            args = [v[pos[j:j + 1]] for v, _ in vals]
            new = _atomic_value(op, kind, t, old, args)
            if clocks is not None:
                lane, key = int(one[0]), _loc_keys(m, region, one, o)[0]
                if op.op == "atom":
                    clocks.read(op, lane, key, int(m.cta[lane]), scope, acquire)
                clocks.write(op, lane, key, int(m.cta[lane]), scope, release, rmw=True)
            if mask(new, 8 * es)[0] != mask(old, 8 * es)[0]:
                m.mem_epoch += 1
            A.store(m, region, one, o, es, new)
        m.note_undefined_read(op, lz, old_flags)
        flags = _merge(*(f[pos] if f is not None else None for _, f in vals))
        old_taint = _merge(held, old_flags)   # an atomicAdd to a never-zeroed shared slot stays undefined
        if region.space == ".global" and old_flags.any():   # as a store of an undefined value to a global buffer
            j = int(np.nonzero(old_flags)[0][0])
            m.uninitialized(f"`{op.d.inst.opcode}` updates never-written bytes of global buffer `{region.name}` "
                            f"(nothing zeroed it first: a memset step, or an earlier launch)", op, lz[j],
                            buffer=region.name)
        # lanes updating one address in turn: the final value, and what later lanes read, carry all their taint
        same = np.unique(A.row_index(region, lz, m) * region.data.shape[1] + offs, return_inverse=True)[1].reshape(-1)
        m.set_memory_flags(region, lz, offs, es, _taint_per_address(same, flags if kind == ".exch" else
                                                                    _merge(flags, old_taint)))
        if dst is not None:
            m.write(dst, lz, olds, _taint_per_address(same, _merge(flags, old_taint)), returned)
    _advance(m, lanes)


def _taint_per_address(same, flags):
    """OR of `flags` over the lanes with equal `same` index, for each lane (None stays None)."""
    if flags is None:
        return None
    acc = np.zeros(same.size, np.uint8)
    np.bitwise_or.at(acc, same, flags)
    return acc[same]


def _atomic_value(op, kind, t, old, args):
    d = op.d
    if kind == ".add":
        return C.TABLE["add"](d, old, args[0])
    if kind == ".min":
        return C.TABLE["min"](d, old, args[0])
    if kind == ".max":
        return C.TABLE["max"](d, old, args[0])
    if kind in (".and", ".or", ".xor"):
        return {".and": old & args[0], ".or": old | args[0], ".xor": old ^ args[0]}[kind]
    if kind == ".exch":
        return args[0]
    if kind == ".cas":
        return np.where(old == args[0], args[1], old)
    if kind == ".inc":
        return np.where(old >= args[0], U64(0), old + U64(1))
    if kind == ".dec":
        return np.where((old == 0) | (old > args[0]), args[0], old - U64(1))
    raise Unsupported(f"atomic operation in `{op.d.inst.opcode}` is not modelled", op.span)


def _lane_ranges(lane_ids) -> str:
    """Lane ids as `lanes 0-7, 16`: which lanes of a warp take part in a collective."""
    ids, parts = sorted(int(x) for x in lane_ids), []
    for x in ids:
        if parts and parts[-1][1] == x - 1:
            parts[-1][1] = x
        else:
            parts.append([x, x])
    return "lanes " + ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in parts)


# ---- barriers ----------------------------------------------------------------------------

@handles("bar", "barrier")
def _bar(m, op, lanes):
    if op.d.has(".warp"):
        m.warp_sync(op, lanes)
        return
    if op.d.has(".arrive"):
        _advance(m, lanes)  # arrive without waiting (producer side)
        return
    m.status[lanes] = BAR


# ---- warp collectives ------------------------------------------------------------------------

@handles("shfl")
def _shfl(m, op, lanes):
    ops = op.operands
    dst = ops[0]
    a, fa = m.read(ops[1], lanes, ".b32")
    b, fb = m.read(ops[2], lanes, ".b32")
    c, fc = m.read(ops[3], lanes, ".b32")
    mk, fm = m.read(ops[4], lanes, ".b32") if len(ops) > 4 else (np.full(lanes.size, FULL_WARP_MASK, np.uint64), None)
    for f, what in ((fb, "source lane"), (fc, "clamp operand"), (fm, "member mask")):
        m.require_concrete(op, f, lanes, what)
    ready = m.collective_ready(op, lanes, mk)
    if ready is None:
        return
    lanes, sel = ready
    a, b, c = a[sel], b[sel], c[sel]
    fa = fa[sel] if fa is not None else None
    lid = m.laneid[lanes].astype(np.int64)
    bval = (b & U64(WARP_SIZE - 1)).astype(np.int64)
    clamp = (c & U64(WARP_SIZE - 1)).astype(np.int64)
    segmask = ((c >> U64(8)) & U64(WARP_SIZE - 1)).astype(np.int64)
    max_lane = (lid & segmask) | (clamp & ~segmask)
    min_lane = lid & segmask
    mode = next(w for w in (".up", ".down", ".bfly", ".idx") if w in op.d.mods)
    if mode == ".up":
        j = lid - bval
        ok = j >= max_lane
    elif mode == ".down":
        j = lid + bval
        ok = j <= max_lane
    elif mode == ".bfly":
        j = lid ^ bval
        ok = j <= max_lane
    else:
        j = min_lane | (bval & ~segmask)
        ok = j <= max_lane
    j = np.where(ok, j, lid)
    # source lane j of the same warp: its global lane index
    src_global = lanes - lid + j
    value_of = {int(g): k for k, g in enumerate(lanes)}
    idx = np.array([value_of.get(int(g), -1) for g in src_global]) if lanes.size < 64 else None
    if idx is None:
        lookup = np.full(m.L, -1, np.int64)
        lookup[lanes] = np.arange(lanes.size)
        idx = lookup[np.clip(src_global, 0, m.L - 1)]
    inactive = idx < 0
    if inactive.any():
        k = int(np.nonzero(inactive)[0][0])
        m.report(F.UNINITIALIZED, f"shfl.sync reads from a lane that is not taking part (undefined value): lane "
                 f"{int(lid[k])} reads lane {int(j[k])}, outside the lanes taking part "
                 f"({_lane_ranges(lid[lanes - lid == lanes[k] - lid[k]])}; membermask {int(mk[sel][k]):#010x})",
                 op, [lanes[k]])
    idx = np.where(inactive, np.arange(lanes.size), idx)
    result = a[idx]
    flags = fa[idx] if fa is not None else None
    d = dst.first if isinstance(dst, ast.Pair) else dst
    sym = None
    if m.symbolic:
        s_all = m.sym_of(ops[1], lanes)
        sym = s_all[idx] if s_all is not None else None
    m.write(d, lanes, result, flags, sym)
    if isinstance(dst, ast.Pair):
        m.write(dst.second, lanes, ok.astype(np.uint64))
    _advance(m, lanes)


@handles("vote")
def _vote(m, op, lanes):
    ops = op.operands
    p, fp = m.read(ops[1], lanes, ".pred")
    mk, fm = m.read(ops[2], lanes, ".b32") if len(ops) > 2 else (np.full(lanes.size, FULL_WARP_MASK, np.uint64), None)
    m.require_concrete(op, fp, lanes, "vote predicate")
    ready = m.collective_ready(op, lanes, mk)
    if ready is None:
        return
    lanes, sel = ready
    p = p[sel] != 0
    warps = m.gwarp[lanes]
    out = np.zeros(lanes.size, np.uint64)
    for w in np.unique(warps):
        s = warps == w
        ballot = np.bitwise_or.reduce(np.where(p[s], U64(1) << m.laneid[lanes[s]].astype(np.uint64), U64(0)))
        if op.d.has(".ballot"):
            out[s] = ballot
        elif op.d.has(".all"):
            out[s] = int(p[s].all())
        elif op.d.has(".any"):
            out[s] = int(p[s].any())
        else:  # .uni
            out[s] = int(p[s].all() or not p[s].any())
    m.write(ops[0], lanes, out)
    _advance(m, lanes)


@handles("match")
def _match(m, op, lanes):
    """`match.any.sync`: the member lanes holding the same value; `match.all.sync`: the member mask
    if all members agree (predicate true), else 0 (PTX ISA §9.7.13.5)."""
    ops = op.operands
    t = op.d.types[-1] if op.d.types else ".b32"
    v, fv = m.read(ops[1], lanes, t)
    mk, fm = m.read(ops[2], lanes, ".b32")
    m.require_concrete(op, fv, lanes, "matched value")
    m.require_concrete(op, fm, lanes, "member mask")
    ready = m.collective_ready(op, lanes, mk)
    if ready is None:
        return
    lanes, sel = ready
    v, mk = v[sel], mk[sel]
    warps = m.gwarp[lanes]
    bit = U64(1) << m.laneid[lanes].astype(np.uint64)
    out = np.zeros(lanes.size, np.uint64)
    agree = np.zeros(lanes.size, bool)
    for w in np.unique(warps):
        s = np.nonzero(warps == w)[0]
        members = s[(mk[s] & bit[s]) != 0]
        if op.d.has(".all"):
            same = np.unique(v[members]).size <= 1
            out[s] = np.where(same, mk[s], U64(0))
            agree[s] = same
        else:
            for k in s:
                out[k] = np.bitwise_or.reduce(np.where(v[members] == v[k], bit[members], U64(0)))
    dst = ops[0]
    if isinstance(dst, ast.Pair):
        m.write(dst.first, lanes, out)
        m.write(dst.second, lanes, agree.astype(np.uint64))
    else:
        m.write(dst, lanes, out)
    _advance(m, lanes)


@handles("redux")
def _redux(m, op, lanes):
    """§9.7.13.x redux.sync: each lane gets the reduction of `src` over the non-exited lanes of its membermask
    (.add truncated to 32 bits; .f32 min/max with .abs/.NaN, +0 > -0). Lanes of one warp that arrive together
    with different masks (two half-warps) reduce separately: each group of lanes sharing a mask is one reduction.
    A lane outside its own mask is undefined (PTX); volta check refuses it (redux_real.py)."""
    ops = op.operands
    t = op.d.types[-1]
    v, fv = m.read(ops[1], lanes, t)
    mk, _ = m.read(ops[2], lanes, ".b32")
    ready = m.collective_ready(op, lanes, mk)
    if ready is None:
        return
    lanes, sel = ready
    v, mk = v[sel], mk[sel] & U64(0xFFFFFFFF)
    fv = fv[sel] if fv is not None else None
    out = np.zeros(lanes.size, np.uint64)
    flags = np.zeros(lanes.size, np.uint8) if fv is not None else None
    for s in reduction_groups(m, lanes, mk):
        out[s] = _reduce_bits(op, t, v[s])
        if fv is not None:  # every member's result depends on every member's value
            flags[s] = np.bitwise_or.reduce(fv[s])
    m.write(ops[0], lanes, out, flags)
    _advance(m, lanes)


def _reduce_bits(op, t, v):
    """One redux.sync reduction of 32-bit lane values `v` (uint64 bits), as result bits."""
    if t == ".f32":
        bits = [int(b) & (0x7FFFFFFF if op.d.has(".abs") else 0xFFFFFFFF) for b in v]
        numbers = [b for b in bits if (b & 0x7FFFFFFF) <= 0x7F800000]
        if not numbers or (op.d.has(".NaN") and len(numbers) < len(bits)):
            return 0x7FFFFFFF   # the canonical NaN: all inputs NaN, or any with .NaN
        values = C.as_float(np.array(numbers, np.uint64), ".f32")
        key = {b: (float(x), 1 - (b >> 31)) for b, x in zip(numbers, values)}   # -0 < +0
        return (min if op.d.has(".min") else max)(numbers, key=key.__getitem__)
    vals = C.as_int(v, 32).astype(np.int64) if t == ".s32" else v.astype(np.int64)
    if op.d.has(".add"):
        r = vals.sum()
    elif op.d.has(".min"):
        r = vals.min()
    elif op.d.has(".max"):
        r = vals.max()
    elif op.d.has(".and"):
        r = np.bitwise_and.reduce(vals)
    elif op.d.has(".or"):
        r = np.bitwise_or.reduce(vals)
    else:
        r = np.bitwise_xor.reduce(vals)
    return int(r) & 0xFFFFFFFF
