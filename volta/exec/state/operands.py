"""Operands as the machine reads them, outside the Machine class: concrete bits as exact real constants (with the
named-constant reading of float literals: log2 e, pi, ...), predicate bits as TRUE/FALSE, float bits as per-lane
rational constants (LanePolys), the type each source operand is read as, the select of a data-dependent choice,
and the static reading of libdevice's exponent-field idiom.

Pure functions of bits, types and the program: the instruction handlers (volta/exec/handlers/dispatch.py,
tensor_real.py, ifconvert.py, the fast paths) call them without importing the machine.
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np

from volta.errors import Unsupported
from volta.ir.program import Program, RegRef
from volta.ptx import ast
from volta.semantics import realops
from volta.semantics.bits import as_float, as_int, is_float, mask, signed, width
from volta.symbolic import constants as named_constants
from volta.symbolic import expr as E
from volta.symbolic.lanepoly import CoefficientOverflow, LanePoly


def source_types(op) -> list:
    """The type each source operand of a register instruction is read as (shift amounts .u32, selp's
    predicate, cvt's source type; otherwise the instruction type)."""
    d = op.d
    t = d.types[-1] if d.types else None
    out = []
    for i, _ in enumerate(op.operands[1:]):
        if d.op in ("shl", "shr", "shf", "bfe", "bfi") and i >= 1:
            out.append(".u32")
        elif d.op == "selp" and i == 2:
            out.append(".pred")
        else:
            out.append(t)   # for cvt, types[-1] is the source type
    return out


def lane_bits_constants(bits, t):
    """Float bits of type t (.f32/.f64) as a LanePoly of per-lane constants; None for inf/NaN or
    constants whose common denominator leaves int64."""
    lanes = np.asarray(bits)
    unique, inverse = np.unique(bits, return_inverse=True)
    values = as_float(unique, t)
    if not np.isfinite(values).all():
        return None
    try:
        if unique.size == 1:
            return LanePoly.constant(Fraction(float(values[0])), lanes.size)
        uniq = LanePoly.lane_constants([Fraction(float(v)) for v in values])
    except CoefficientOverflow:   # (1e30f, 3e-39f: the per-lane expressions carry them exactly)
        return None
    if not uniq.groups:
        return LanePoly.constant(0, lanes.size)
    (idx, coef), = uniq.groups[()]
    return LanePoly(lanes.size, {(): [(idx, coef[:, inverse.reshape(-1)])]}, uniq.den, uniq.bound)


_IDIOMS: dict = {}   # id(prog) -> (prog, {op index: bool}): a few programs, kept alive while cached


def exponent_field_idiom(prog, op) -> bool:
    """`shl.b32 r, s, 23` where s is only ever written by `mov.b32 s, f` from an .f32 register and r is
    only ever read by `mov.b32 g, r` into an .f32 register: the bits being shifted are a float's, and the
    result is used only as a float (libdevice expf). Static, over the whole program: every shl of the
    program is classified in one pass over its instructions (a pass per shl cost seconds on unrolled loops)."""
    hit = _IDIOMS.get(id(prog))
    if hit is None or hit[0] is not prog:
        if len(_IDIOMS) > 32:
            _IDIOMS.clear()
        hit = _IDIOMS[id(prog)] = (prog, _exponent_field_idioms(prog))
    return hit[1].get(op.index, False) if prog.ops[op.index] is op else False


def _exponent_field_idioms(prog) -> dict:
    def regs(o):
        if isinstance(o, RegRef):
            return {o.index}
        if isinstance(o, ast.Vector):
            return {e.index for e in o.elems if isinstance(e, RegRef)}
        return set()

    writers: dict = {}   # register -> [(op index, a mov.b32 from an .f32 register)]
    readers: dict = {}   # register -> [(op index, a mov.b32 into an .f32 register)]
    for other in prog.ops:
        if not other.operands:
            continue
        head, rest = other.operands[0], other.operands[1:]
        written = regs(head) if other.op not in ("st", "red") else set()
        read = set().union(*(regs(x) for x in rest)) if rest else set()
        if other.op in ("st", "red"):
            read |= regs(head)
        for x in (head, *rest):
            if isinstance(x, ast.Address) and isinstance(x.base, RegRef):
                read.add(x.base.index)
        float_mov = (other.op == "mov" and other.d.types == (".b32",) and len(other.operands) == 2
                     and isinstance(head, RegRef) and isinstance(rest[0], RegRef))
        for r in written:
            writers.setdefault(r, []).append((other.index, float_mov and rest[0].type == ".f32"))
        for r in read:
            readers.setdefault(r, []).append((other.index, float_mov and head.type == ".f32"))
    out = {}
    for op in prog.ops:
        if not (op.op == "shl" and op.d.types == (".b32",) and len(op.operands) == 3
                and isinstance(op.operands[0], RegRef) and isinstance(op.operands[1], RegRef)
                and isinstance(op.operands[2], ast.Imm) and op.operands[2].value == 23):
            continue
        dst, src = op.operands[0].index, op.operands[1].index
        out[op.index] = (all(ok for i, ok in writers.get(src, ()) if i != op.index)
                         and not any(i != op.index for i, _ in writers.get(dst, ()))
                         and all(ok for i, ok in readers.get(dst, ()) if i != op.index))
    return out


def select_real(c, a, b, op, m=None):
    v = realops.choose(c, a, b)
    if v is None and m is not None:   # libdevice's overflow arm (expm1f's +inf): volta/exec/state/overflow_real.py
        from volta.exec.state.overflow_real import overflow_select  # start-up: z3, only when an arm is infinite

        v = overflow_select(m, op, c, a, b)
    if v is None:
        raise Unsupported("a data-dependent choice involving an infinite value (or one with no real value) is "
                          "not modelled (an infinite arm is read as the other arm only where z3 proves that arm's "
                          "real value overflows the type there: volta/exec/state/overflow_real.py)", op.span)
    return v


def constants(bits, t, named=None):
    """Concrete lane bits as exact real constants of type t (NaN/inf have no real value): an object array.
    With `named` (the machine's `named` reading, volta/symbolic/constants.py), a word that is the correctly
    rounded value of log2 e, π, √2, … is that constant.

    Each distinct bit pattern is converted once (lanes mostly share a few values)."""
    bits = np.asarray(bits)
    unique, inverse = np.unique(bits, return_inverse=True)
    if t is not None and is_float(t) and t not in (".f16x2", ".bf16x2"):
        values = as_float(unique, t)
        made = []
        for v, word in zip(values, unique.tolist()):
            if np.isinf(v):
                made.append(realops.infinity(1 if v > 0 else -1))
            elif np.isnan(v):
                raise Unsupported(f"a concrete {t} NaN (not a real number) meets symbolic data")
            else:
                c = named.value(t, word) if named is not None else None
                made.append(E.const(float(v)) if c is None else c)
    else:
        w = width(t) if t else 64
        ints = as_int(unique, w) if t is not None and signed(t) else mask(unique, w)
        made = [E.const(int(v)) for v in ints]
    return object_array(made)[inverse.reshape(-1)]


def named_reading(spec, progs) -> named_constants.Reading | None:
    """How one side of `volta check` reads float literals: RN(log2 e) as log2 e (volta/symbolic/constants.py), one
    reading for its launch sequence `progs`; None with --exact-constants (every literal the rational it is)."""
    return None if spec.exact_constants else reading_of(progs)


def reading_of(progs) -> named_constants.Reading:
    """The named-constant reading of a launch sequence's programs (what `named_reading` gives without
    --exact-constants; the KernelBench and Triton launches read their literals so too)."""
    return named_constants.reading(set().union(*(float_literals(p) for p in progs)))


def float_literals(prog: Program) -> set:
    """(type, word) of every float literal of `prog`, as its named-constant reading needs them (a lo word of a
    hi/lo split reads as 0 only beside its hi word: volta/symbolic/constants.py)."""
    literals = set()
    for op in prog.ops:
        for o in op.operands:
            if isinstance(o, ast.FloatImm):
                value = float(o.text) if o.bits is None else None
                if o.width == 32 or value is not None:
                    literals.add((".f32", o.bits if value is None else _word(np.float32(value), np.uint32)))
                if o.width == 64 or value is not None:
                    literals.add((".f64", o.bits if value is None else _word(np.float64(value), np.uint64)))
    return literals


def _word(value, kind) -> int:
    return int(np.array([value]).view(kind)[0])


def booleans(bits):
    """Predicate lane bits as TRUE/FALSE expressions."""
    return np.where(np.asarray(bits) != 0, E.TRUE, E.FALSE).astype(object)


def object_array(items) -> np.ndarray:
    out = np.empty(len(items), dtype=object)
    out[:] = items
    return out
