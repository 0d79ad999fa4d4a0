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
    "min": lambda d, a, b: E.minimum(a, b),
    "max": lambda d, a, b: E.maximum(a, b),
    "sqrt": _sqrt,
    "rsqrt": _rsqrt,
    "rcp": _rcp,
    "ex2": lambda d, a: E.exp2(a),
    "lg2": lambda d, a: E.lg2(a),
    "tanh": lambda d, a: E.tanh(a),
    "sin": lambda d, a: E.sin(a),
    "cos": lambda d, a: E.cos(a),
    "mov": lambda d, a: a,
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
