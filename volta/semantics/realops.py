"""Float instructions over the reals (`--fp real`): one expression constructor per opcode.

The same opcodes as `compute.py`, in the symbolic value domain of `volta.symbolic.expr`:
rounding modifiers are ignored (exact real operations), conversions between float types are the
identity, `fma(a,b,c) = a·b + c`, `ex2` is 2^x, and everything outside + − × ÷ 2^x becomes an
atom (max, min, abs, sqrt, rsqrt, rcp.approx, tanh, sin, cos, lg2). An opcode missing here is
`Unsupported` when it meets symbolic data, never approximated.
"""
from __future__ import annotations

from volta.symbolic import expr as E

_CMP = {
    ".eq": E.eq, ".ne": E.ne, ".lt": E.lt, ".le": E.le, ".gt": E.gt, ".ge": E.ge,
    ".equ": E.eq, ".neu": E.ne, ".ltu": E.lt, ".leu": E.le, ".gtu": E.gt, ".geu": E.ge,
}


def _rcp(d, a):
    return E.rcp_approx(a) if d.has(".approx") else E.div(E.ONE, a)


def _rsqrt(d, a):
    return E.rsqrt(a)


def _sqrt(d, a):
    return E.sqrt(a)


def _div(d, a, b):
    return E.div(a, b)


def _abs(d, a):
    return E.absolute(a)


def _copysign(d, a, b):
    """copysign d, a, b: |b| with the sign of a (PTX order). The reals have no -0, so a = 0 counts as
    positive (libdevice erff/tanhf apply it to their argument x, a real input). A constant zero sign
    source may be -0.0 in the PTX (copysignf(v, -0.0f)): no meaning here (None), never a guess."""
    if a.op is E.CONST:
        return None if a.data == 0 else (E.absolute(b) if a.data > 0 else E.neg(E.absolute(b)))
    return E.select(E.lt(a, E.ZERO), E.neg(E.absolute(b)), E.absolute(b))


def _clamp01(d, value):
    if d.has(".sat"):
        return E.minimum(E.maximum(value, E.ZERO), E.ONE)
    return value


TABLE = {
    "add": lambda d, a, b: E.add(a, b),
    "sub": lambda d, a, b: E.sub(a, b),
    "mul": lambda d, a, b: E.mul(a, b),
    "fma": lambda d, a, b, c: E.fma(a, b, c),
    "mad": lambda d, a, b, c: E.fma(a, b, c),
    "div": _div,
    "neg": lambda d, a: E.neg(a),
    "abs": _abs,
    "min": lambda d, a, b, c=None: _relu(d, E.minimum(a, b) if c is None else E.minimum(E.minimum(a, b), c)),
    "max": lambda d, a, b, c=None: _relu(d, E.maximum(a, b) if c is None else E.maximum(E.maximum(a, b), c)),
    "sqrt": _sqrt,
    "rsqrt": _rsqrt,
    "rcp": _rcp,
    "ex2": lambda d, a: E.exp2(a),
    "lg2": lambda d, a: E.lg2(a),
    "tanh": lambda d, a: E.tanh(a),
    "sin": lambda d, a: E.sin(a),
    "cos": lambda d, a: E.cos(a),
    "mov": lambda d, a: a,
    "copysign": _copysign,
}


class Infinity:
    """±∞ as a constant (softmax starts its running max at -INFINITY). Only the operations where
    the extended reals have a clear value accept it; anything else is Unsupported."""

    __slots__ = ("sign",)

    def __init__(self, sign: int):
        self.sign = sign

    def __repr__(self) -> str:
        return "+inf" if self.sign > 0 else "-inf"


POS_INF, NEG_INF = Infinity(1), Infinity(-1)


def infinity(sign: int) -> Infinity:
    return POS_INF if sign > 0 else NEG_INF


def _relu(d, value):
    """`.relu` on min/max clamps the result at zero (three-input forms reduce left to right)."""
    return E.maximum(value, E.ZERO) if d.has(".relu") else value


def _extended(d, args):
    """The few operations on ±∞ that have an exact, data-independent value; None otherwise."""
    op = d.op
    inf = [a for a in args if isinstance(a, Infinity)]
    finite = [a for a in args if not isinstance(a, Infinity)]
    if op in ("max", "min") and len(args) == 2:
        a, b = args
        keep_other = (op == "max") == (inf[0].sign < 0)
        if len(inf) == 2:
            return infinity(max(a.sign, b.sign) if op == "max" else min(a.sign, b.sign))
        return finite[0] if keep_other else inf[0]
    if op in ("add", "sub") and len(inf) == 1:
        a, b = args
        if isinstance(a, Infinity):
            return a
        return infinity(b.sign if op == "add" else -b.sign)
    if op == "mul" and len(inf) == 1 and finite[0].op == E.CONST and finite[0].data != 0:
        return infinity(inf[0].sign * (1 if finite[0].data > 0 else -1))
    if op in ("fma", "mad") and len(inf) == 1 and isinstance(args[2], Infinity) is False:
        a, b, c = args
        other = b if isinstance(a, Infinity) else a
        if other.op == E.CONST and other.data != 0:
            return infinity(inf[0].sign * (1 if other.data > 0 else -1))
    if op in ("fma", "mad") and len(inf) == 2 and isinstance(args[2], Infinity):
        # ±inf·c + (same-signed inf) with c a nonzero constant: libdevice expf(-inf) reduces -inf this way
        a, b, c = args
        factor, other = (a, b) if isinstance(a, Infinity) else (b, a)
        if isinstance(other, E.Expr) and other.op == E.CONST and other.data != 0:
            sign = factor.sign * (1 if other.data > 0 else -1)
            if sign == c.sign:
                return infinity(sign)
    if op == "cvt" and d.has(".sat") and len(args) == 1:
        return E.ZERO if inf[0].sign < 0 else E.ONE   # saturation clamps ±inf to 0 / 1
    if op == "ex2" and inf[0].sign < 0:
        return E.ZERO
    if op == "mov":
        return args[0]
    if op == "neg":
        return infinity(-inf[0].sign)
    return None


def apply(d, args):
    """The real-valued result of a float instruction on expression arguments (None: no meaning)."""
    if any(isinstance(a, Infinity) for a in args):
        return _extended(d, args)
    fn = TABLE.get(d.op)
    if fn is None:
        return None
    return _clamp01(d, fn(d, *args))


def compare(d, a, b):
    """A `setp` comparison over the (extended) reals; NaN cannot occur."""
    if isinstance(a, Infinity) or isinstance(b, Infinity):
        x = a.sign if isinstance(a, Infinity) else 0
        y = b.sign if isinstance(b, Infinity) else 0
        if x == y:
            return None  # ∞ against ∞ (or both finite, impossible here): not decided here
        less = x < y
        result = {".lt": less, ".le": less, ".gt": not less, ".ge": not less, ".eq": False, ".ne": True,
                  ".ltu": less, ".leu": less, ".gtu": not less, ".geu": not less, ".equ": False, ".neu": True}
        return E.boolean(result[d.cmp]) if d.cmp in result else None
    fn = _CMP.get(d.cmp)
    return fn(a, b) if fn is not None else None


def combine(d, cond, other):
    if d.boolop is None or other is None:
        return cond
    return {".and": E.logical_and, ".or": E.logical_or}.get(d.boolop, lambda a, b: None)(cond, other)


# ---------------------------------------------------------------- full-precision expf: 2^n from bits
#
# libdevice's expf (nvcc without --use_fast_math) is, for sm_80 and sm_90 alike:
#     t = sat(x·0f3BBB989D + 0.5)                 cvt.sat.f32.f32: t ∈ [0, 1]
#     v = fma.rm(t, 252, 0f4B400001)              v ∈ [12582913, 12583165]
#     n = v + 0fCB40007F                          n = v − 12583039 ∈ [−126, 126]
#     f = x·0f3FB8AA3B − n + x·0f32A57060         (log2 e split into hi + lo)
#     s = bits(v) << 23  read as f32              2^n, built in the exponent field
#     expf(x) = 2^f · s                           over the reals: 2^(x·(hi+lo))
# Every f32 in [2^23, 2^24) is an integer, and such a v has bits 0x4B000000 + (v − 2^23), so
# `bits(v) << 23` (mod 2^32) is the f32 with biased exponent (v − 2^23) mod 512 and zero mantissa:
# exactly 2^(v − base − 127) with base = 2^23 + 512·j, provided v − base lies in [1, 254] (the
# normal range; 0 would give +0, 255 infinity, beyond that the sign bit). That condition is
# CHECKED here by interval bounds on v's expression (the .sat clamp bounds it); when the bounds
# do not prove it, the instruction is Unsupported, never assumed. Over the reals v is taken
# unrounded, like every other rounding in this mode; it cancels: 2^(x·c − n)·2^n = 2^(x·c)
# (rules `exp2-mul-fold` and `expf-idiom`, proofs/check_rules.py; the bit fact is checked there
# exhaustively by `check_exponent_field`).

F32_INT_LO, F32_INT_HI = 1 << 23, 1 << 24   # every f32 in [2^23, 2^24) is an integer


def bounds(e):
    """Certain real bounds (lo, hi) of an expression (None for unbounded); sound, not tight."""
    from fractions import Fraction
    memo = {}
    for n in E.postorder(e):
        op = n.op
        if op is E.CONST:
            r = (n.data, n.data)
        elif op in (E.ADD, E.MUL, E.MAX, E.MIN) and len(n.args) == 2:
            (a0, a1), (b0, b1) = memo[n.args[0]], memo[n.args[1]]
            if op is E.ADD:
                r = (None if a0 is None or b0 is None else a0 + b0,
                     None if a1 is None or b1 is None else a1 + b1)
            elif op is E.MUL:
                if None in (a0, a1, b0, b1):
                    r = (None, None)
                else:
                    ps = [a0 * b0, a0 * b1, a1 * b0, a1 * b1]
                    r = (min(ps), max(ps))
            elif op is E.MAX:   # max(a, b) >= each lower bound; <= the larger upper bound
                lo = a0 if b0 is None else b0 if a0 is None else max(a0, b0)
                r = (lo, None if a1 is None or b1 is None else max(a1, b1))
            else:
                hi = a1 if b1 is None else b1 if a1 is None else min(a1, b1)
                r = (None if a0 is None or b0 is None else min(a0, b0), hi)
        elif op is E.EXP2:
            r = (Fraction(0), None)
        else:
            r = (None, None)
        memo[n] = r
    return memo[e]


def exponent_field_base(lo, hi):
    """The base with `bits(v) << 23` = 2^(v − base − 127) for every integer f32 v in [lo, hi], or None."""
    if lo is None or hi is None or lo < F32_INT_LO or hi >= F32_INT_HI:
        return None
    base = F32_INT_LO + 512 * ((int(lo) - F32_INT_LO) // 512)
    if lo - base >= 1 and hi - base <= 254:
        return base
    return None


def exponent_field(v):
    """The real value of the f32 whose bits are `bits(v) << 23`, v an f32 expression: 2^(v − base − 127).
    None when the bounds of v do not prove the normal-exponent-range condition."""
    lo, hi = bounds(v)
    base = exponent_field_base(lo, hi)
    if base is None:
        return None
    return E.exp2(E.sub(v, E.const(base + 127)))
