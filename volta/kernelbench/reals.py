"""The real functions a reference computes, built from Volta's expression operators: the one place.

A reference and a kernel meet only when both sides build the same expression, so every nonlinear
function the torch stand-in needs is constructed here, the way the kernel side reads CUDA:
- exp(x) is `2^(x·L)` with L = log2 e the positive symbol `log2(e)` that `--define-fn NAME=exp` uses
  (volta/exec/handlers/dispatch.py); `expf` and `__expf` are 2^(x·c) with c a float near log2 e, so they meet this
  form wherever the kernel side reads their constant as L. log(x) is `lg2(x)/L`, its inverse.
- tanh is the TANH atom (`tanh.approx.f32` over the reals); sqrt and rsqrt the SQRT/RSQRT atoms.
- erf has no Volta operator: it is the uninterpreted `erf(x)` (`E.call("erf", x)`); a kernel meets it only
  if the kernel side reads libdevice's `erff` as that same call.
- Irrational constants are the exact expressions of volta/symbolic/constants.py's named constants (1/sqrt 2,
  sqrt(2/pi) with pi the symbol `π`): the values the kernel side reads a rounded literal as.
- Python scalars that torch applies to a float32 tensor are rounded to float32 first (torch computes an
  f32 op in f32, converting its scalar arguments), so `leaky_relu(x, 0.01)` multiplies by the rational
  value of `0.01f`, the constant a kernel writes.

`FLOAT_ENV` and `FLOAT_FUNCTIONS` give the symbols and uninterpreted functions their float values for
`volta.symbolic.evaluate.evaluate_float`, so tests can evaluate a reference's outputs at concrete inputs.
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from volta.symbolic import expr as E
from volta.symbolic.constants import LOG2E, PI, TABLE
from volta.symbolic.expr import Expr

NAMED = {c.name: c.value for c in TABLE}
SQRT_HALF = NAMED["1/sqrt 2"]                # erf-GELU's argument scale
SQRT_2_OVER_PI = NAMED["sqrt(2/pi)"]         # tanh-GELU's argument scale

FLOAT_ENV = {LOG2E: math.log2(math.e), PI: math.pi}
FLOAT_FUNCTIONS = {"erf": math.erf}


def exp(x) -> Expr:
    return E.exp2(E.mul(x, LOG2E))


def log(x) -> Expr:
    """Natural log: lg2(x)/L (undefined for x <= 0, like lg2)."""
    return E.div(E.lg2(x), LOG2E)


def erf(x) -> Expr:
    x = E.const(x) if not isinstance(x, Expr) else x
    if x.op is E.CONST and x.data == 0:
        return E.ZERO
    return E.call("erf", x)


def tanh(x) -> Expr:
    return E.tanh(x)


def sigmoid(x) -> Expr:
    """1/(1 + exp(-x)), the form `1.f/(1.f + expf(-x))` builds."""
    return E.div(1, E.add(1, exp(E.neg(x))))


def power(x, exponent) -> Expr:
    """x ** exponent for a constant exponent: products for integers, sqrt/rsqrt for halves, else exp/log."""
    e = Fraction(exponent)
    if e.denominator == 1:
        n = abs(int(e))
        result = E.ONE
        base = x
        while n:                       # square-and-multiply: x**8 is three products
            if n & 1:
                result = E.mul(result, base)
            n >>= 1
            if n:
                base = E.mul(base, base)
        return E.div(1, result) if e < 0 else result
    if e.denominator == 2:
        whole = power(x, abs(e) - Fraction(1, 2))
        return E.mul(whole, E.sqrt(x)) if e > 0 else E.div(E.rsqrt(x), whole)
    return exp(E.mul(E.const(e), log(x)))


def f32(value) -> Fraction:
    """A Python number as the float32 torch converts it to, exactly."""
    return Fraction(float(np.float32(value)))


def f64(value) -> Fraction:
    return Fraction(float(value))
