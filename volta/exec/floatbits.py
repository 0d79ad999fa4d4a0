"""Integer instructions on the bits of a float, over the reals (`volta check`).

`mov.b32 %r, %f` puts a float's bits into an integer register; over the reals the register then carries
the float's real value (what a `mov.b32 %f, %r` back must give). Integer arithmetic on it is therefore
not integer arithmetic on that value: `__float_as_int(x) + (1 << 23)` is 2x, not x + 8388608. This module
knows, statically per program, which integer registers may hold float bits, and

- reads the exponent/mantissa split of libdevice's logf, log2f and log1pf as floor_log2 and 2^-k
  (`realops.exponent_shift`, `realops.scaled_bits`: each condition checked per value, else Unsupported);
- reads `setp` of such bits against a constant as a comparison of the real value (`realops.bits_compare`);
- refuses every other integer instruction on float bits, and a float read of bits that integer
  arithmetic on tensor data produced (the real number they stand for is not followed).

Each step of the split is accepted only where its result register has that one writer and is read only
by the next step, so the tags `BitsMinus`/`ExponentShift` never reach anything else.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from volta.errors import Unsupported
from volta.exec import tensor_real
from volta.exec.operands import exponent_field_idiom
from volta.exec.tensor_real import is_pair
from volta.ir import cfg as CFG
from volta.ir.program import RegRef
from volta.ptx import ast
from volta.semantics import realops
from volta.semantics.bits import width
from volta.symbolic import expr as E

_FLOAT_REGS = frozenset({".f32", ".f64", ".f16", ".bf16"})
_TRANSPARENT = frozenset({"mov", "selp", "shfl"})   # move bits unchanged (shfl: lane exchange)
_LOADS = frozenset({"ld", "ldu"})                   # memory does not say which kind of bits it holds
_EXP_MASK = 0xFF800000
_INT_ROUNDINGS = frozenset({".rni", ".rzi", ".rmi", ".rpi"})


@dataclass
class Plan:
    """What the program does with float bits: registers that may hold them, the idiom step (a role) of
    each recognized instruction, and registers integer arithmetic may have filled."""

    bits: set = field(default_factory=set)         # integer registers that may hold a float's bits
    int_data: set = field(default_factory=set)     # integer registers some integer arithmetic writes
    roles: dict = field(default_factory=dict)      # op index -> "bits-minus" | "exponent-shift" | ...
    origin: dict = field(default_factory=dict)     # bits register -> the mov that first put bits there
    loaded: set = field(default_factory=set)       # integer registers a load writes (scalar or vector), or a
    #                                                bit move (mov/selp/shfl) copies from one
    odd_loaded: set = field(default_factory=set)   # those a load other than 32 bits into a 32-bit register may fill
    float_rint: bool = False                       # the program rounds floats to integral floats (cvt.rni.f32.f32)
    mixed: set = field(default_factory=set)        # bits registers some writer may fill with a plain integer


_PLANS: dict = {}


def plan(prog) -> Plan:
    hit = _PLANS.get(id(prog))
    if hit is not None and hit[0] is prog:
        return hit[1]
    p = _build(prog)
    _PLANS[id(prog)] = (prog, p)   # the program is kept alive, so its id is not reused
    return p


def _is_float(o) -> bool:
    return isinstance(o, RegRef) and o.type in _FLOAT_REGS


def _is_int(o) -> bool:
    return isinstance(o, RegRef) and o.type not in _FLOAT_REGS and o.type != ".pred"


def _float_result(op) -> bool:
    """A float instruction (its result type is a float), whatever its registers are declared as: Triton
    writes `add.f32 %r31, %r29, %r30` on .b32 registers. Such a register holds a float's bits."""
    return bool(op.d.types) and op.d.types[0] in _FLOAT_REGS and op.op not in _TRANSPARENT

def _float_source(op) -> bool:
    """A cvt that reads its source as a float (`cvt.rzi.s32.f32 %r2, %r1` on Triton's .b32 registers): the
    register's bits are read as the float they are, not as an integer."""
    return op.op == "cvt" and len(op.d.types) == 2 and op.d.types[-1] in _FLOAT_REGS


def _sources(op):
    out = []
    for o in op.operands[1:]:
        if isinstance(o, ast.Vector):
            out.extend(e for e in o.elems if isinstance(e, RegRef))
        elif isinstance(o, RegRef):
            out.append(o)
    return out


def _dests(op):
    """The registers an instruction writes into its first operand (a register, a pair, or a vector)."""
    head = op.operands[0] if op.operands else None
    if isinstance(head, ast.Vector):
        return [e for e in head.elems if isinstance(e, RegRef)]
    d = _dest(op)
    return [d] if d is not None else []


def _dest(op):
    head = op.operands[0] if op.operands else None
    if isinstance(head, ast.Pair):
        head = head.first
    return head if isinstance(head, RegRef) else None


def _imm(o):
    return o.value & 0xFFFFFFFF if isinstance(o, ast.Imm) else None


def _build(prog) -> Plan:
    p = Plan()
    writers: dict = {}
    readers: dict = {}
    for op in prog.ops:
        r, w = CFG.uses(op)
        for i in w:
            writers.setdefault(i, []).append(op)
        for i in r:
            readers.setdefault(i, []).append(op)
    # registers holding float bits: moved from a float register or from such a register (fixpoint)
    changed = True
    while changed:
        changed = False
        for op in prog.ops:
            dst = _dest(op)
            if _is_int(dst) and dst.index not in p.bits and _float_result(op):
                p.bits.add(dst.index)
                p.origin[dst.index] = op
                changed = True
                continue
            if op.op not in _TRANSPARENT or not _is_int(dst) or dst.index in p.bits:
                continue
            src = _sources(op)
            hit = next((s for s in src if _is_float(s) or s.index in p.bits), None)
            if hit is not None:
                p.bits.add(dst.index)
                p.origin[dst.index] = p.origin.get(hit.index, op)
                changed = True
    for op in prog.ops:
        if op.op in _LOADS and op.d.types:
            for r in _dests(op):
                if _is_int(r):
                    p.loaded.add(r.index)
                    if width(op.d.types[0]) != 32 or width(r.type) != 32:
                        p.odd_loaded.add(r.index)
        elif op.op == "cvt" and op.d.types and op.d.types[0] in _FLOAT_REGS and op.d.rounding in _INT_ROUNDINGS:
            p.float_rint = True
    changed = True
    while changed:   # a loaded value moved on unchanged is still a loaded value
        changed = False
        for op in prog.ops:
            dst = _dest(op)
            if op.op not in _TRANSPARENT or not _is_int(dst):
                continue
            src = [s.index for s in _sources(op)]
            for marks in (p.loaded, p.odd_loaded):
                if dst.index not in marks and any(i in marks for i in src):
                    marks.add(dst.index)
                    changed = True
    # a bits register with a writer that is not a pure bit move (an immediate, integer arithmetic, a load,
    # or a move from such a register) may hold an integer on some path: never read as a float's value
    changed = True
    while changed:
        changed = False
        for i in p.bits - p.mixed:
            if any(not _moves_bits(w, p) for w in writers.get(i, [])):
                p.mixed.add(i)
                changed = True
    _recognize(prog, p, writers, readers)
    for op in prog.ops:
        dst = _dest(op)
        if not _is_int(dst) or op.op in _LOADS or op.index in p.roles or _float_result(op):
            continue
        if op.op == "shl" and exponent_field_idiom(prog, op):
            continue
        if op.op in _TRANSPARENT and all(_is_float(s) or s.index in p.bits for s in _sources(op)):
            continue
        p.int_data.add(dst.index)
    changed = True
    while changed:   # moved on from integer arithmetic
        changed = False
        for op in prog.ops:
            dst = _dest(op)
            if (op.op in _TRANSPARENT and _is_int(dst) and dst.index not in p.int_data
                    and any(s.index in p.int_data for s in _sources(op))):
                p.int_data.add(dst.index)
                changed = True
    return p


def _moves_bits(op, p: Plan) -> bool:
    """op copies float bits unchanged: a transparent op all of whose data operands are float registers or
    registers holding only float bits (selp's predicate aside)."""
    if _float_result(op):
        return True
    if op.op not in _TRANSPARENT:
        return False
    data = op.operands[1:3] if op.op == "selp" else op.operands[1:2] if op.op == "shfl" else op.operands[1:]
    regs = []
    for o in data:
        regs.extend(o.elems if isinstance(o, ast.Vector) else [o])
    return all(isinstance(o, RegRef) and (_is_float(o) or (o.index in p.bits and o.index not in p.mixed))
               for o in regs)


def _only(writers, readers, reg, writer, reading) -> bool:
    """reg has `writer` as its one writer and every reader passes `reading`."""
    return writers.get(reg) == [writer] and all(reading(r) for r in readers.get(reg, []))


def _recognize(prog, p: Plan, writers, readers) -> None:
    """Roles of the exponent split's steps (see volta.semantics.realops), each checked against its uses."""
    def is_mask_and(op, reg):
        if op.op != "and" or len(op.operands) != 3:
            return False
        a, b = op.operands[1], op.operands[2]
        return (op.op == "and" and op.d.types == (".b32",) and
                ((isinstance(a, RegRef) and a.index == reg and _imm(b) == _EXP_MASK) or
                 (isinstance(b, RegRef) and b.index == reg and _imm(a) == _EXP_MASK)))

    def is_split_sub(op, reg):
        b = op.operands[2] if len(op.operands) == 3 else None
        w = op.operands[1]
        return (op.op == "sub" and op.d.types in ((".s32",), (".u32",)) and isinstance(b, RegRef)
                and b.index == reg and isinstance(w, RegRef) and w.index in p.bits and w.index not in p.mixed
                and _is_int(op.operands[0]))

    def is_to_float(op, reg):
        return (op.op == "cvt" and len(op.d.types) == 2 and op.d.types[0] == ".f32"
                and op.d.types[1] in (".s32", ".u32") and isinstance(op.operands[1], RegRef)
                and op.operands[1].index == reg)

    def is_float_mov(op, reg):
        return (op.op == "mov" and _is_float(op.operands[0]) and op.operands[0].type == ".f32"
                and isinstance(op.operands[1], RegRef) and op.operands[1].index == reg)

    for op in prog.ops:
        dst = _dest(op)
        if op.op not in ("add", "sub") or op.d.types not in ((".s32",), (".u32",)) or dst is None:
            continue
        src = op.operands[1] if len(op.operands) == 3 else None
        if not isinstance(src, RegRef) or src.index not in p.bits or src.index in p.mixed:
            continue
        k = _imm(op.operands[2])
        if k is None:
            continue
        if not _only(writers, readers, dst.index, op, lambda r: is_mask_and(r, dst.index)):
            continue
        shifts = [r for r in readers.get(dst.index, [])]
        ok = True
        for a in shifts:
            s = _dest(a)
            if s is None or not _only(writers, readers, s.index, a,
                                      lambda r: is_split_sub(r, s.index) or is_to_float(r, s.index)):
                ok = False
                break
            for r in readers.get(s.index, []):
                if r.op == "sub":
                    m = _dest(r)
                    if m is None or not _only(writers, readers, m.index, r, lambda q: is_float_mov(q, m.index)):
                        ok = False
        if not ok or not shifts:
            continue
        p.roles[op.index] = "bits-minus"
        for a in shifts:
            p.roles[a.index] = "exponent-shift"
            for r in readers.get(_dest(a).index, []):
                p.roles[r.index] = "scaled-bits" if r.op == "sub" else "exponent-to-float"


# ---- execution (machine._real_compute calls this for data lanes) -------------------------------------

def real_compute(m, op, dl, srcs):
    """The real values an instruction on float bits computes on the data lanes `dl`; None when op is
    not about float bits (the caller's general path applies). Raises Unsupported for bit manipulation
    outside the recognized idioms."""
    if op.op not in _TRANSPARENT and not _float_result(op):
        tensor_real.refuse_pairs(m, op, dl, srcs)   # integer arithmetic on a register holding two halves
    p = plan(m.prog)
    role = p.roles.get(op.index)
    if role is not None:
        return _ROLES[role](m, op, dl, srcs)
    if _float_result(op) or _float_source(op):
        return None   # float arithmetic (or a cvt from a float) on whatever registers: the ordinary real path
    if op.op in _TRANSPARENT:
        dst = op.operands[0]
        if op.op == "mov" and _is_float(dst) and len(srcs) == 1 and _is_int(srcs[0]) \
                and srcs[0].index in p.int_data:
            raise Unsupported(f"`{op.d.inst.opcode}` reads as a float the bits that integer arithmetic on tensor "
                              f"data produced; the real number they stand for is not followed", op.span)
        return None
    hit = next((s for s in srcs if isinstance(s, RegRef) and s.index in p.bits), None)
    punned = next((s for s in srcs if isinstance(s, RegRef) and s.index in p.loaded
                   and _holds_float_data(m, s, dl)), None)
    if punned is not None:
        raise Unsupported(f"`{op.d.inst.opcode}` does integer arithmetic on {punned.name}, which an integer load "
                          f"filled from float data: that is arithmetic on a float's bits, with no real-number "
                          f"meaning here", op.span)
    if hit is not None:
        first = p.origin.get(hit.index)
        where = f" (put there by `{first.d.inst.opcode}` at line {first.span.line})" if first is not None else ""
        raise Unsupported(f"`{op.d.inst.opcode}` does integer arithmetic on the bits of a float{where}; outside "
                          f"the recognized libdevice idioms (logf's exponent split, expf's 2^n) that has no "
                          f"real-number meaning here", op.span)
    return None


def _holds_float_data(m, reg, dl) -> bool:
    """Does the register hold, on some data lane, a value of a float input (loaded through an integer
    type: its bits, not an integer)? Integer-valued expressions (rounded, constant) do not count; a fraction
    (tensor data folded to a constant, x * 0.0f + 2.5f, stored and loaded) is no integer's value."""
    floats = {r.name for r in m.memory.regions
              if r is not None and getattr(r, "dtype", None) and r.dtype.startswith(("f", "bf"))}
    if not floats:
        return False
    for e in m.read_sym(reg, dl, reg.type):
        if isinstance(e, E.Expr) and e.op is E.CONST and e.data.denominator != 1:
            return True
        if not isinstance(e, E.Expr) or e.op in (E.CONST, E.RINT, E.FLOOR_LOG2):
            continue
        if any(leaf.op is E.VAR and leaf.data[0] in floats for leaf in E.leaves(e)):
            return True
    return False


def compare(m, op, x, y, data=(True, True)):
    """`setp` over the reals: bits of a float against a constant (`setp.lt.u32 bits(v), 0x7F800000`),
    refused for any other comparison of float bits; otherwise the ordinary real comparison."""
    p = plan(m.prog)
    a, b = op.operands[1], op.operands[2]
    as_int = op.d.types[-1] not in _FLOAT_REGS   # an integer comparison may read a loaded float's bits
    in_a = isinstance(a, RegRef) and (a.index in p.bits or as_int and _loaded_bits(m, op, p, a, x, data[0]))
    in_b = isinstance(b, RegRef) and (b.index in p.bits or as_int and _loaded_bits(m, op, p, b, y, data[1]))
    if (in_a and a.index in p.mixed) or (in_b and b.index in p.mixed):
        raise Unsupported(f"`{op.d.inst.opcode}` compares a register that holds a float's bits on some paths and "
                          f"an integer on others; not modelled over the reals", op.span)
    t = op.d.types[-1]
    if not (in_a or in_b) or t in (".f32", ".f64", ".f16", ".bf16"):
        return realops.compare(op.d, x, y)
    const = _imm(b) if in_a else _imm(a)
    v = x if in_a else y
    if (in_a and in_b) or const is None or t not in (".s32", ".u32", ".b32") or not isinstance(v, realops.E.Expr):
        raise Unsupported(f"`{op.d.inst.opcode}` compares the bits of a float other than against a constant; "
                          f"not modelled over the reals", op.span)
    cond = realops.bits_compare(op.d.cmp, t == ".s32", v, const, in_a)
    if cond is None:
        raise Unsupported(f"`{op.d.inst.opcode}` compares the bits of a float for (in)equality; not modelled "
                          f"over the reals", op.span)
    return cond


def _loaded_bits(m, op, p: Plan, reg, value, is_data=True) -> bool:
    """Does an integer comparison read `reg` as the bits of a float that a load brought in (`((int*)x)[i] < 0`,
    signbit)? Then its value over the reals is the float's, and comparing that value as the integer would be
    another function. Only 32-bit loads into 32-bit registers are read as an f32's bits; a rounded value
    (cvt.rni) may be an integer stored as one or an integral float stored as bits: refused when the program
    makes the latter. A constant that tensor data folded to (`x * 0.0f + 2.5f` stored, then loaded as an int)
    has no leaves to tell: a fraction is a float's value, an integer either, refused."""
    E = realops.E
    if reg.index not in p.loaded or not isinstance(value, E.Expr):
        return False
    if value.op is E.CONST:
        if not is_data or m.input_values is not None or not _float_regions(m):
            return False   # a concrete register (the number its bits are), a replay's constant, or no float data
        if value.data.denominator == 1:
            raise Unsupported(f"`{op.d.inst.opcode}` compares {reg.name}, which a load filled with a constant computed "
                              f"from tensor data, as an integer: whether those are a float's bits or an integer's "
                              f"is not known here", op.span)
        if reg.index in p.odd_loaded:
            raise Unsupported(f"`{op.d.inst.opcode}` compares {reg.name}, which a load filled from float data, as an "
                              f"integer at a width not modelled over the reals", op.span)
        return True   # not an integer: a float's value, so its bits
    floats = _float_regions(m)
    if not any(leaf.op is E.SYM or leaf.data[0] in floats for leaf in E.leaves(value)):
        return False    # integer data (an integer input, a constant)
    if value.op in (E.RINT, E.FLOOR_LOG2) and not (value.op is E.RINT and p.float_rint):
        return False    # an integer made from float data (cvt.rzi.s32.f32), moved through memory
    if any(is_pair(n) for n in E.postorder(value)):
        raise Unsupported(f"`{op.d.inst.opcode}` compares {reg.name}, which holds two 16-bit floats, as one integer: "
                          f"the bits of a pair are not modelled over the reals", op.span)
    if reg.index in p.odd_loaded or value.op is E.RINT:
        raise Unsupported(f"`{op.d.inst.opcode}` compares {reg.name}, which a load filled from float data, as an "
                          f"integer: the bits of a float (or of a value rounded to an integral float) read at this "
                          f"width are not modelled over the reals", op.span)
    return True


def holds_float_bits(m, reg) -> bool:
    """Is `reg` an integer register that holds a float's bits in this program (moved from a float register)?"""
    return isinstance(reg, RegRef) and _is_int(reg) and reg.index in plan(m.prog).bits


def float_valued(m, value) -> bool:
    """Is `value`, found in an integer register or read at an integer type, a float's value, i.e. its bits
    (a float input or symbol leaf, not under a rounding to an integer)? Integer inputs, constants and rounded
    values (cvt.rzi.s32.f32) are integers."""
    E = realops.E
    if not isinstance(value, E.Expr):
        return False
    floats = _float_regions(m)
    stack, seen = [value], set()
    while stack:   # a float leaf reached without passing a rounding to an integer
        n = stack.pop()
        if n in seen or n.op in (E.CONST, E.RINT, E.FLOOR_LOG2):
            continue
        seen.add(n)
        if n.op is E.SYM or (n.op is E.VAR and n.data[0] in floats):
            return True
        stack.extend(n.args)
    return False


def _float_regions(m) -> set:
    return {r.name for r in m.memory.regions
            if r is not None and getattr(r, "dtype", None) and r.dtype.startswith(("f", "bf"))}


def _each(values, op, what):
    out = []
    for v in values:
        if isinstance(v, str):
            raise Unsupported(f"`{op.d.inst.opcode}` ({what}): {v}", op.span)
        out.append(v)
    return out


def _bits_minus(m, op, dl, srcs):
    k = _imm(op.operands[2])
    c_bits = (-k) & 0xFFFFFFFF if op.op == "add" else k
    vals = m.read_sym(srcs[0], dl, ".f32")
    if not realops.positive_normal(c_bits):
        raise Unsupported(f"`{op.d.inst.opcode}` subtracts 0x{c_bits:08X} from the bits of a float: not a positive "
                          f"normal f32, so the exponent split is not libdevice's", op.span)
    out = []
    for v in vals:
        _real_arg(v, op)
        out.append(realops.BitsMinus(v, c_bits))
    return out


def _real_arg(v, op):
    if not isinstance(v, realops.E.Expr):
        raise Unsupported(f"`{op.d.inst.opcode}` splits the bits of a value with no real meaning ({v!r})", op.span)
    return True


def _exponent_shift(m, op, dl, srcs):
    reg = next(s for s in srcs if isinstance(s, RegRef))
    tags = m.read_sym(reg, dl, ".b32")
    out = []
    for t in tags:
        out.append(t if isinstance(t, realops.NoValue) else realops.exponent_shift(t.v, t.c_bits))
    note(m, op, "exponent field read as floor(log2(v/c)); checked: v is a normal float wherever it is positive "
                "(its lower bound), v <= 0 leaves the result undefined (libdevice selects NaN/-inf there)")
    return _each(out, op, "the exponent split of libdevice's logf")


def _scaled_bits(m, op, dl, srcs):
    shifts = m.read_sym(srcs[1], dl, ".b32")
    ws = m.read_sym(srcs[0], dl, ".f32")
    out = []
    for w, s in zip(ws, shifts):
        if isinstance(s, realops.NoValue):
            out.append(s)
            continue
        _real_arg(w, op)
        out.append(realops.scaled_bits(w, s))
    note(m, op, "bits(w) - k<<23 read as w*2^-k; checked: the exponent field stays in [1, 254] for every k")
    return _each(out, op, "the mantissa of libdevice's logf")


def _exponent_to_float(m, op, dl, srcs):
    return [s if isinstance(s, realops.NoValue) else realops.exponent_as_float(s)
            for s in m.read_sym(srcs[0], dl, ".b32")]


_ROLES = {"bits-minus": _bits_minus, "exponent-shift": _exponent_shift, "scaled-bits": _scaled_bits,
          "exponent-to-float": _exponent_to_float}


def note(m, op, text):
    """What the real semantics relied on, once per instruction (the report's notes)."""
    line = f"{op.span.file}:{op.span.line}: `{op.d.inst.opcode}` {text}"
    notes = m.__dict__.setdefault("real_notes", [])
    if line not in notes:
        notes.append(line)
