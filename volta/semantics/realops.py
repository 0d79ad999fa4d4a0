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


def apply(d, args):
    """The real-valued result of a float instruction on expression arguments."""
    fn = TABLE.get(d.op)
    if fn is None:
        return None
    return _clamp01(d, fn(d, *args))


def compare(d, a, b):
    """A `setp` comparison over the reals (NaN cannot occur: every real is ordered)."""
    fn = _CMP.get(d.cmp)
    return fn(a, b) if fn is not None else None


def combine(d, cond, other):
    if d.boolop is None or other is None:
        return cond
    return {".and": E.logical_and, ".or": E.logical_or}.get(d.boolop, lambda a, b: None)(cond, other)
