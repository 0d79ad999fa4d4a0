"""Integer tensor data over the reals (`volta check`): which instructions read a value, not a residue.

An integer register holding data carries a polynomial over the integers whose value is congruent to the
register's bits modulo 2^w. add, sub, mul.lo, mad.lo, neg, selp and a cvt to a narrower (or equal) width keep
that: they are ring operations modulo 2^w, so identity of two polynomials still implies identity of the bits.
The instructions in `READS_VALUE` read the number the bits stand for in their type instead: comparisons, min,
max, abs, sign or zero extension (a cvt to a wider type, mul.wide/mad.wide, a narrow load into a wider
register), saturation. They agree with the polynomial only where its value lies in the type's range, so each
such operand is CHECKED by interval bounds over the input buffers' element ranges (`s32`: [-2^31, 2^31 - 1],
`u8`: [0, 255], ...) and refused where the bounds do not prove it: `max(a + 1, b + 1)` is not `max(a, b) + 1`
at a = INT_MAX, `(unsigned)a < 10u` is not `a < 10` for a < 0, `(long)(a + b)` is not `(long)a + b` when the
s32 sum wraps. A constant operand (an input replayed concretely) is wrapped into the range, as the machine
reads it.
"""
from __future__ import annotations

from fractions import Fraction

from volta.errors import Unsupported
from volta.semantics.bits import is_float, width
from volta.symbolic import expr as E

# the instructions whose integer operands are read as numbers of their type: opcode -> operand positions
READS_VALUE = {"min": (0, 1, 2), "max": (0, 1, 2), "abs": (0,)}   # setp: dispatch._integer_operands


def type_range(t: str) -> tuple[int, int] | None:
    """[lo, hi] of an integer type (.bN as unsigned), None for other types."""
    if not t or is_float(t) or t == ".pred" or t.endswith("x2"):
        return None
    w = width(t)
    return (-(1 << (w - 1)), (1 << (w - 1)) - 1) if t.startswith(".s") else (0, (1 << w) - 1)


def bounds(m, e):
    """Certain bounds (lo, hi) of an integer expression, input elements within their dtype's range; None
    for an unbounded side. Sound, not tight."""
    memo = m.__dict__.setdefault("_int_bounds", {})
    hit = memo.get(e)
    if hit is not None:
        return hit
    for n in E.postorder(e, memo):
        op = n.op
        if op is E.CONST:
            r = (n.data, n.data)
        elif op is E.VAR:
            r = E.integer_range(n, m.integers) or (None, None)
        elif op in (E.ADD, E.MUL, E.MAX, E.MIN):
            r = memo[n.args[0]]
            for a in n.args[1:]:
                r = _combine(op, r, memo[a])
        elif op is E.ABS:
            lo, hi = memo[n.args[0]]
            big = None if lo is None or hi is None else max(-lo, hi)
            r = (Fraction(0) if lo is None or hi is None or lo < 0 < hi else min(abs(lo), abs(hi)), big)
        elif op is E.SELECT:
            (a0, a1), (b0, b1) = memo[n.args[1]], memo[n.args[2]]
            r = (None if a0 is None or b0 is None else min(a0, b0), None if a1 is None or b1 is None else max(a1, b1))
        else:
            r = (None, None)
        memo[n] = r
    return memo[e]


def _combine(op, a, b):
    (a0, a1), (b0, b1) = a, b
    if op is E.ADD:
        return (None if a0 is None or b0 is None else a0 + b0, None if a1 is None or b1 is None else a1 + b1)
    if op is E.MUL:
        if None in (a0, a1, b0, b1):
            return (None, None)
        ps = [a0 * b0, a0 * b1, a1 * b0, a1 * b1]
        return (min(ps), max(ps))
    if op is E.MAX:
        lo = a0 if b0 is None else b0 if a0 is None else max(a0, b0)
        return (lo, None if a1 is None or b1 is None else max(a1, b1))
    hi = a1 if b1 is None else b1 if a1 is None else min(a1, b1)
    return (None if a0 is None or b0 is None else min(a0, b0), hi)


def _wrap(value: Fraction, lo: int, hi: int) -> Fraction:
    span = hi - lo + 1
    return Fraction((int(value) - lo) % span + lo)


def in_range(m, op, values, t: str, what: str = "an operand"):
    """The values of integer operands read as numbers of type t: constants wrapped into t's range, data
    expressions checked to lie in it (Unsupported where the bounds do not prove it). Values that are not
    integers of a type (float-bit idioms, NaN markers: `_integer_data`) are returned as they are."""
    rng = type_range(t)
    if rng is None:
        return values
    lo, hi = rng
    out = list(values)
    for k, v in enumerate(out):
        if not isinstance(v, E.Expr):
            continue
        if v.op is E.CONST:
            if v.data.denominator == 1 and not lo <= v.data <= hi:
                out[k] = E.const(_wrap(v.data, lo, hi))
            continue
        if not _integer_data(m, v):
            continue
        b0, b1 = bounds(m, v)
        if b0 is None or b1 is None or b0 < lo or b1 > hi:
            shown = f"[{b0 if b0 is not None else '-inf'}, {b1 if b1 is not None else 'inf'}]"
            raise Unsupported(f"`{op.d.inst.opcode}` reads {what} as a {t[1:]} number, but that integer data "
                              f"(bounds {shown}) is not proved to lie in {t[1:]}'s range [{lo}, {hi}]: where it "
                              f"wraps, the value the instruction reads is not the one the integer polynomial "
                              f"stands for" + _range_hint(v, m.integers), op.span)
    return out


def _range_hint(e, integers) -> str:
    """When the bounds come from integer input buffers: how to declare the values they hold."""
    names = sorted({leaf.data[0] for leaf in E.postorder(e, {}) if leaf.op is E.VAR and E.is_integer_leaf(leaf, integers)})
    if not names:
        return ""
    return (f"; if {', '.join(f'`{n}`' for n in names)} holds values in a known range (token ids, indices), declare "
            f"it: `--buffer {names[0]}=DTYPE[N]:in:range=LO..HI` (in a manifest, `\"DTYPE[N]:in:range=LO..HI\"`)")


def _integer_data(m, e) -> bool:
    """Does e read an integer input, or a float rounded to an integer (cvt.rzi.s32.f32 and the like)? Other
    values in integer registers (float-bit idioms, volta/exec/handlers/floatbits.py) are not integers of a type."""
    memo = m.__dict__.setdefault("_int_data", {})
    hit = memo.get(e)
    if hit is None:
        for n in E.postorder(e, memo):
            memo[n] = n.op is E.RINT or E.is_integer_leaf(n, m.integers) or any(memo[c] for c in n.args)
        hit = memo[e]
    return hit


def clamp(value, t: str):
    """A value clamped to t's range (integer .sat)."""
    lo, hi = type_range(t)
    return E.minimum(E.maximum(value, E.const(lo)), E.const(hi))


def wider(dst: str, src: str) -> bool:
    """Does cvt from src to dst extend (read src's number rather than its residue)?"""
    return width(dst) > width(src)
