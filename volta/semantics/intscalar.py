"""Integer register arithmetic on one Python int per operand, for the one-thread executor
(volta/exec/fast/onethread.py): the lane arrays of `compute.TABLE` cost microseconds per call on one lane.

Only the forms that dominate index arithmetic are here (add/sub, mul/mad .lo/.wide, shl/shr, and/or/xor/not,
setp comparisons, integer cvt); `scalar_op` answers None for anything else (modifiers such as .sat, .cc,
.hi), and the executor then calls `compute.TABLE` on one-element arrays. Operands are raw 64-bit register
bits, exactly as `Machine.read` gives them to the table; results are the bits the table returns.
tests/semantics/test_intscalar.py checks every form against `compute.TABLE` on random operands.
"""
from __future__ import annotations

from volta.semantics.bits import is_float, signed, width

M64 = (1 << 64) - 1


def _s(v: int, w: int) -> int:
    """The low w bits of v as a signed number."""
    v &= (1 << w) - 1
    return v - (1 << w) if v >> (w - 1) else v


def _addsub(w, sub):
    m = (1 << w) - 1
    if sub:
        return lambda a, b: (a - b) & m
    return lambda a, b: (a + b) & m


def _product(w, sgn, wide):
    """mul.lo / mul.wide of two w-bit operands (mod 2^w, or the full 2w-bit product)."""
    out = (1 << (2 * w if wide else w)) - 1
    if sgn:
        return lambda a, b: (_s(a, w) * _s(b, w)) & out
    m = (1 << w) - 1
    return lambda a, b: ((a & m) * (b & m)) & out


def _shl(w):
    m = (1 << w) - 1
    return lambda a, b: 0 if (b & 0xFFFFFFFF) >= w else (a << (b & 0xFFFFFFFF)) & m


def _shr(w, sgn):
    m = (1 << w) - 1
    if sgn:
        return lambda a, b: (_s(a, w) >> min(b & 0xFFFFFFFF, w)) & m
    return lambda a, b: 0 if (b & 0xFFFFFFFF) >= w else (a & m) >> (b & 0xFFFFFFFF)


_COMPARE = {".eq": lambda x, y: x == y, ".ne": lambda x, y: x != y, ".lt": lambda x, y: x < y,
            ".le": lambda x, y: x <= y, ".gt": lambda x, y: x > y, ".ge": lambda x, y: x >= y,
            ".lo": lambda x, y: x < y, ".ls": lambda x, y: x <= y, ".hi": lambda x, y: x > y,
            ".hs": lambda x, y: x >= y}


def compare(d):
    """setp's comparison of two integer operands as a function of their raw bits (None: not integer)."""
    t = d.types[-1] if d.types else None
    if t is None or is_float(t) or t == ".pred" or d.cmp not in _COMPARE:
        return None
    w, cmp = width(t), _COMPARE[d.cmp]
    if signed(t):
        return lambda a, b: cmp(_s(a, w), _s(b, w))
    m = (1 << w) - 1
    return lambda a, b: cmp(a & m, b & m)


def scalar_op(d):
    """fn(*operand bits) -> result bits for the integer instruction `d`, or None when it is not covered here."""
    t = d.types[-1] if d.types else None
    if t is None or is_float(t) or t == ".pred" or d.has(".sat", ".cc", ".hi", ".relu"):
        return None
    op = d.op
    if op == "cvt":
        return _convert(d)
    w = width(t)
    if w not in (16, 32, 64):
        return None
    if op in ("add", "sub"):
        return _addsub(w, op == "sub")
    if op == "mul" and not (w == 64 and d.has(".wide")):
        return _product(w, signed(t), d.has(".wide"))
    if op == "mad" and not (w == 64 and d.has(".wide")):
        p = _product(w, signed(t), d.has(".wide"))
        m = (1 << (2 * w if d.has(".wide") else w)) - 1
        return lambda a, b, c: (p(a, b) + c) & m
    if op == "shl":
        return _shl(w)
    if op == "shr":
        return _shr(w, signed(t))
    if op in ("and", "or", "xor"):
        m = (1 << w) - 1
        return {"and": lambda a, b: a & b & m, "or": lambda a, b: (a | b) & m,
                "xor": lambda a, b: (a ^ b) & m}[op]
    if op == "not":
        m = (1 << w) - 1
        return lambda a: ~a & m
    return None


def _convert(d):
    """cvt between integer types: sign extension or truncation (no .sat)."""
    if len(d.types) != 2 or is_float(d.types[0]) or d.types[0] == ".pred" or d.rounding is not None:
        return None
    sw, dw = width(d.types[1]), width(d.types[0])
    if sw not in (8, 16, 32, 64) or dw not in (8, 16, 32, 64):
        return None
    dm = (1 << dw) - 1
    if signed(d.types[1]):
        return lambda a: _s(a, sw) & dm
    sm = (1 << sw) - 1
    return lambda a: a & sm & dm
