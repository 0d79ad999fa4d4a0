"""`.approx` instructions: ex2, lg2, rcp, rsqrt, sqrt, sin, cos, tanh, div.approx and div.full.

NVIDIA documents only error bounds for these (PTX ISA: ex2.approx.f32 ~2 ulp, rcp.approx ~1 ulp, ...). For f32
ex2, lg2, rcp, rsqrt, sqrt, tanh and the two divisions, and for f16/bf16 ex2 and tanh, volta gives what an
H200's special-function unit computes, bit for bit (volta/numerics/mufu.py: measured tables and reduction
rules). Everywhere else (f32 sin and cos, f64, and the operands those rules leave: infinities, NaN, zeros)
the documented choice: evaluate the function in float64 (Python's libm) on the exact operand and round that to
the destination format with round-to-nearest-even, honouring `.ftz`. Every op name in `APPROX_OPS` marks a
result that depended on a model of hardware no document specifies; an equivalence verdict resting on one must
say so.
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from volta.errors import UsageError
import volta.numerics.mufu as mufu
from volta.numerics.formats import Rnd, get_format
from volta.numerics.scalar import Num, read, write


def _div(a: float, b: float) -> float:
    if b == 0:
        if a == 0 or math.isnan(a):
            return math.nan
        return math.copysign(math.inf, a) * math.copysign(1.0, b)
    return a / b


def _rsqrt(x: float) -> float:
    if x == 0:
        return math.copysign(math.inf, x)
    return math.nan if x < 0 else 1.0 / math.sqrt(x)


def _lg2(x: float) -> float:
    if x == 0:
        return -math.inf
    return math.nan if x < 0 else math.log2(x)


def _trig(fn):
    return lambda x: math.nan if math.isinf(x) else fn(x)


def _ex2(x: float) -> float:
    try:
        return math.exp2(x)
    except OverflowError:
        return math.inf


UNARY = {
    "ex2": _ex2, "lg2": _lg2, "rcp": lambda x: _div(1.0, x), "rsqrt": _rsqrt,
    "sqrt": lambda x: math.nan if x < 0 else math.sqrt(x) if x > 0 else x,
    "sin": _trig(math.sin), "cos": _trig(math.cos), "tanh": math.tanh,
}
BINARY = {"div": _div, "div.full": _div}
APPROX_OPS = frozenset(UNARY) | frozenset(BINARY)


def _as_float(x: Num) -> float:
    if x.kind == "nan":
        return math.nan
    if x.kind == "inf":
        return -math.inf if x.neg else math.inf
    v = float(x.mag)
    return -v if x.neg else v


def _to_num(v: float) -> Num:
    if math.isnan(v):
        return Num("nan", False)
    if math.isinf(v):
        return Num("inf", v < 0)
    return Num("num", math.copysign(1.0, v) < 0, Fraction(abs(v)))


def approx(op: str, *words: int, fmt="f32", ftz: bool = False, sat: bool = False) -> int:
    """op.approx{.ftz}.fmt of one operand word (two for div): the measured unit where it decides, else
    RN(float64 libm value); see the module docstring. op in APPROX_OPS."""
    if (op, fmt) in mufu.OPS16 and not sat:
        return int(mufu.evaluate16(op, fmt, np.array([words[0]]))[0])
    if fmt == "f32" and op in mufu.OPS and not sat:  # the measured unit, where its rules decide
        hw, decided = mufu.evaluate(op, *(np.array([w], np.uint32) for w in words), ftz=ftz)
        if decided[0]:
            return int(hw[0])
    return libm_rn(op, *words, fmt=fmt, ftz=ftz, sat=sat)


def libm_rn(op: str, *words: int, fmt="f32", ftz: bool = False, sat: bool = False) -> int:
    """The documented choice where nothing was measured: RN of the float64 libm value of the exact operand."""
    fmt = get_format(fmt)
    fn = UNARY.get(op) or BINARY.get(op)
    if fn is None:
        raise UsageError(f"no approximate semantics for {op!r} (have: {', '.join(sorted(APPROX_OPS))})")
    args = [_as_float(read(w, fmt, ftz)) for w in words]
    if len(args) != (1 if op in UNARY else 2):
        raise UsageError(f"{op}.approx takes {1 if op in UNARY else 2} operand(s)")
    return write(_to_num(fn(*args)), fmt, Rnd.RN, ftz, sat)
