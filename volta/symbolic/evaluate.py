"""Concrete evaluation of expression DAGs: exact (Fractions) and float64.

Exact evaluation is what a counterexample rests on, so it never rounds: where the value is
irrational (2^(1/3), sqrt 2, tanh 1) it raises `Inexact`; where the real semantics is undefined
(x/0, sqrt of a negative) it raises `Undefined`. Both walk the DAG iteratively with a memo, so
shared subterms are computed once and 100k-deep chains do not hit the recursion limit.
"""
from __future__ import annotations

import math
from fractions import Fraction
from typing import Callable, Mapping

from volta.symbolic import expr as E
from volta.symbolic.constants import BaseValue, is_named
from volta.symbolic.expr import Expr, exact_lg2, exact_sqrt, postorder


class EvalError(Exception):
    """Evaluation did not produce an exact real value."""


class Inexact(EvalError):
    """The exact value exists but is not rational (or needs an uninterpreted function)."""


class Undefined(EvalError):
    """The real semantics is undefined here: division by zero, sqrt/lg2 outside the domain."""


Env = Mapping[Expr, object]


def _leaf(node: Expr, env: Env):
    if node.op is E.CONST or node.op is E.BOOL:
        return node.data
    try:
        return env[node]
    except KeyError:
        if is_named(node):   # log2 e, π: a constant, irrational (volta/symbolic/constants.py)
            return BaseValue(node.data)
        raise KeyError(f"no value for {node!r}") from None


def _exact_exp2(x: Fraction) -> Fraction:
    if Fraction(x).denominator != 1:
        raise Inexact(f"2^({x}) is irrational")
    n = int(x)
    if abs(n) > 100_000:
        raise Inexact(f"2^({n}) is too large to evaluate")
    return 1 << n if n >= 0 else Fraction(1, 1 << -n)


def _exact_sqrt(x: Fraction) -> Fraction:
    if x < 0:
        raise Undefined(f"sqrt({x})")
    r = exact_sqrt(Fraction(x))
    if r is None:
        raise Inexact(f"sqrt({x}) is irrational")
    return r


def _exact_div(x: Fraction, y: Fraction) -> Fraction:
    if y == 0:
        raise Undefined("division by zero")
    return Fraction(x) / y


def _exact_rsqrt(x: Fraction) -> Fraction:
    if x <= 0:
        raise Undefined(f"rsqrt({x})")
    return 1 / _exact_sqrt(x)


def _exact_lg2(x: Fraction) -> Fraction:
    if x <= 0:
        raise Undefined(f"lg2({x})")
    k = exact_lg2(Fraction(x))
    if k is None:
        raise Inexact(f"lg2({x}) is irrational")
    return Fraction(k)


def _exact_floor_log2(x: Fraction) -> int:
    k = E.exact_floor_log2(Fraction(x))
    if k is None:
        raise Undefined(f"floor_log2({x})")
    return k


def _only_at_zero(name: str, at_zero: int) -> Callable:
    def f(x):
        if x == 0:
            return Fraction(at_zero)
        raise Inexact(f"{name}({x}) is irrational")
    return f


_EXACT: dict[Op, Callable] = {
    E.ADD: lambda a, b: a + b,
    E.MUL: lambda a, b: a * b,
    E.DIV: _exact_div,
    E.EXP2: _exact_exp2,
    E.MAX: max,
    E.MIN: min,
    E.ABS: abs,
    E.SELECT: lambda c, a, b: a if c else b,
    E.SQRT: _exact_sqrt,
    E.RSQRT: _exact_rsqrt,
    E.RCP_APPROX: lambda x: _exact_div(Fraction(1), x),  # the ideal real value
    E.TANH: _only_at_zero("tanh", 0),
    E.SIN: _only_at_zero("sin", 0),
    E.COS: _only_at_zero("cos", 1),
    E.LG2: _exact_lg2,
    E.FLOOR_LOG2: _exact_floor_log2,
    E.RINT: lambda x, mode: E.exact_rint(x, mode),
    E.LT: lambda a, b: a < b,
    E.LE: lambda a, b: a <= b,
    E.EQ: lambda a, b: a == b,
    E.NE: lambda a, b: a != b,
    E.AND: lambda a, b: a and b,
    E.OR: lambda a, b: a or b,
    E.NOT: lambda a: not a,
}


def _float_div(x: float, y: float) -> float:
    try:
        return x / y
    except ZeroDivisionError:
        if x == 0 or math.isnan(x):
            return math.nan
        return math.copysign(math.inf, x) * math.copysign(1.0, y)


def _float_exp2(x: float) -> float:
    try:
        return 2.0 ** x
    except OverflowError:
        return math.inf


def _guard(f: Callable, lo: float) -> Callable:
    return lambda x: f(x) if x >= lo else math.nan


def _float_max(a: float, b: float) -> float:
    return a if a >= b or math.isnan(b) else b


def _float_min(a: float, b: float) -> float:
    return a if a <= b or math.isnan(b) else b


_FLOAT: dict[Op, Callable] = {
    **_EXACT,
    E.DIV: _float_div,
    E.EXP2: _float_exp2,
    E.MAX: _float_max,
    E.MIN: _float_min,
    E.SQRT: _guard(math.sqrt, 0.0),
    E.RSQRT: lambda x: _float_div(1.0, math.sqrt(x)) if x >= 0 else math.nan,
    E.RCP_APPROX: lambda x: _float_div(1.0, x),
    E.TANH: math.tanh,
    E.SIN: math.sin,
    E.COS: math.cos,
    E.LG2: lambda x: math.log2(x) if x > 0 else (-math.inf if x == 0 else math.nan),
    E.FLOOR_LOG2: lambda x: float(math.frexp(x)[1] - 1) if 0 < x < math.inf else math.nan,
    E.RINT: lambda x, mode: float(E.exact_rint(Fraction(x), mode)) if math.isfinite(x) else x,
}


def _run(root: Expr, env: Env, table: dict, coerce: Callable, funcs: Mapping[str, Callable],
         memo: dict | None):
    memo = {} if memo is None else memo
    CALL, BOOL, RINT = E.CALL, E.BOOL, E.RINT
    for node in postorder(root, memo):
        args = node.args
        op = node.op
        if op is CALL:
            if node.data not in funcs:
                raise Inexact(f"uninterpreted function {node.data}")
            memo[node] = coerce(funcs[node.data](*[memo[c] for c in args]))
        elif op is RINT:
            memo[node] = table[op](memo[args[0]], node.data)
        elif not args:
            value = _leaf(node, env)
            memo[node] = value if op is BOOL else coerce(value)
        elif len(args) == 2:
            memo[node] = table[op](memo[args[0]], memo[args[1]])
        else:
            memo[node] = table[op](*[memo[c] for c in args])
    return memo[root]


def _rational(value) -> int | Fraction:
    """Whole numbers as int: int arithmetic is ten times faster than Fraction's."""
    if type(value) is int:
        return value
    if type(value) is BaseValue:
        raise Inexact(f"{value.name} is irrational")
    value = Fraction(value)
    return value.numerator if value.denominator == 1 else value


def evaluate(root: Expr, env: Env, funcs: Mapping[str, Callable] = {},
             memo: dict | None = None) -> Fraction | bool:
    """Exact value of root; raises Inexact or Undefined. Pass `memo` to share work across roots."""
    if not isinstance(root, Expr):   # ±inf or NaN from the machine (realops.NON_REAL): no real value
        raise Undefined(f"{root!r} is not a real number")
    value = _run(root, env, _EXACT, _rational, funcs, memo)
    return value if type(value) is bool else Fraction(value)


def evaluate_float(root: Expr, env: Env, funcs: Mapping[str, Callable] = {},
                   memo: dict | None = None) -> float | bool:
    """float64 value of root with IEEE-style inf/nan instead of exceptions."""
    return _run(root, env, _FLOAT, float, funcs, memo)


def try_evaluate(root: Expr, env: Env, funcs: Mapping[str, Callable] = {},
                 memo: dict | None = None) -> Fraction | bool | EvalError:
    """Like evaluate, but the failure is returned (as a value) instead of raised."""
    try:
        return evaluate(root, env, funcs, memo)
    except EvalError as e:
        return e
