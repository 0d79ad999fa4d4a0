"""Elementwise ops with torch's broadcasting and types: arithmetic, comparisons, math, activations.

Each activation is written the way torch's CPU kernel computes it (over the reals), from the kit's element
operations, so its expression is the one a kernel computing the same formula builds: relu is max(x, 0),
leaky_relu is `x > 0 ? x : x·slope`, sigmoid is 1/(1 + exp(-x)), silu is x/(1 + exp(-x)), softplus keeps
torch's threshold (`x·beta > threshold ? x : log(1 + exp(x·beta))/beta`), erf-GELU is
x·(1 + erf(x·sqrt(1/2)))/2 and tanh-GELU x·(1 + tanh(sqrt(2/pi)·(x + 0.044715·x³)))/2, hardsigmoid is
min(max(x + 3, 0), 6)/6. Constants that torch holds as float32 (0.044715, selu's alpha and scale, a
slope passed as a Python float) are their float32 values (`reals.f32`).
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np

from volta.kernelbench import dtypes as D
from volta.kernelbench import reals
from volta.kernelbench.failures import TorchError, unsupported
from volta.kernelbench.torchsym.core import (check_scalar, elementwise, float_type, is_tensor, new, operand,
                                             operands, result_type)

SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946
GELU_KAPPA = 0.044715


# ---------------------------------------------------------------- arithmetic

def add(input, other, *, alpha=1, out=None):
    if alpha != 1:
        return elementwise(lambda k, a, b, c: k.add(a, k.mul(b, c)), input, other, alpha, out=out,
                           dtype=result_type(input, other, alpha))
    return elementwise(lambda k, a, b: k.add(a, b), input, other, out=out)


def sub(input, other, *, alpha=1, out=None):
    if result_type(input, other).category == D.BOOL:
        raise TorchError("Subtraction, the `-` operator, with two bool tensors is not supported")
    if alpha != 1:
        return elementwise(lambda k, a, b, c: k.sub(a, k.mul(b, c)), input, other, alpha, out=out,
                           dtype=result_type(input, other, alpha))
    return elementwise(lambda k, a, b: k.sub(a, b), input, other, out=out)


def rsub(input, other, *, alpha=1):
    return sub(other, input, alpha=alpha)


def mul(input, other, *, out=None):
    if result_type(input, other).category == D.BOOL:
        return elementwise(lambda k, a, b: k.logical_and(a, b), input, other, out=out)
    return elementwise(lambda k, a, b: k.mul(a, b), input, other, out=out)


def div(input, other, *, rounding_mode=None, out=None):
    dtype = float_type(input, other)
    if rounding_mode is None:
        return elementwise(lambda k, a, b: k.div(a, b), input, other, dtype=dtype, out=out)
    rounder = {"trunc": "trunc", "floor": "floor"}.get(rounding_mode)
    if rounder is None:
        raise TorchError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
                         f"'{rounding_mode}'")
    whole = result_type(input, other)
    return elementwise(lambda k, a, b: getattr(k, rounder)(k.div(a, b)), input, other, dtype=dtype,
                       result=whole, out=out)


def floor_divide(input, other, *, out=None):
    return div(input, other, rounding_mode="floor", out=out)


def remainder(input, other, *, out=None):
    """Python's modulo: a - b·floor(a/b) (the sign of the divisor)."""
    return elementwise(lambda k, a, b: k.sub(a, k.mul(b, k.floor(k.div(a, b)))), input, other, out=out)


def fmod(input, other, *, out=None):
    """C's fmod: a - b·trunc(a/b) (the sign of the dividend)."""
    return elementwise(lambda k, a, b: k.sub(a, k.mul(b, k.trunc(k.div(a, b)))), input, other, out=out)


def pow(input, exponent, *, out=None):
    if is_tensor(exponent):
        if not is_tensor(input):
            base = Fraction(check_scalar(input, "torch.pow")).limit_denominator(1 << 60)
            if base > 0 and base.numerator & (base.numerator - 1) == 0 and base.denominator == 1:
                shift = base.numerator.bit_length() - 1          # 2**x, 4**x: exactly 2^(k·x)
                return elementwise(lambda k, e: k.exp2(k.mul(e, _const(k, shift))), exponent,
                                   dtype=float_type(exponent))
        dtype = float_type(input, exponent)
        return elementwise(lambda k, a, e: k.exp(k.mul(e, k.log(a))), input, exponent, dtype=dtype, out=out)
    value = check_scalar(exponent, "torch.pow")
    dtype = result_type(input, exponent)
    if Fraction(value).denominator != 1 and not dtype.is_floating_point:
        dtype = D.DEFAULT_FLOAT
    value = Fraction(value) if dtype.volta == "f64" or Fraction(value).denominator in (1, 2) \
        else reals.f32(value)
    return elementwise(lambda k, a: k.power(a, value), input, dtype=dtype, out=out)


def _const(kit, value):
    return kit.scalar(value, D.float64)


def neg(input, *, out=None):
    if input.dtype.category == D.BOOL:
        raise TorchError("Negation, the `-` operator, on a bool tensor is not supported")
    return elementwise(lambda k, a: k.neg(a), input, out=out)


def absolute(input, *, out=None):
    return elementwise(lambda k, a: k.abs(a), input, out=out)


def sign(input, *, out=None):
    return elementwise(lambda k, a: k.sign(a), input, out=out)


def positive(input):
    return input


# ---------------------------------------------------------------- comparisons and logic

def _compare(name):
    def compare(input, other, *, out=None):
        return elementwise(lambda k, a, b: getattr(k, name)(a, b), input, other, result=D.bool_, out=out)
    compare.__name__ = name
    return compare


lt, le, gt, ge, eq, ne = (_compare(n) for n in ("lt", "le", "gt", "ge", "eq", "ne"))


def _logical(name):
    def logical(input, other, *, out=None):
        return elementwise(lambda k, a, b: getattr(k, name)(a, b), input, other, dtype=D.bool_, out=out)
    logical.__name__ = name
    return logical


logical_and, logical_or, logical_xor = (_logical(n) for n in ("logical_and", "logical_or", "logical_xor"))


def logical_not(input, *, out=None):
    return elementwise(lambda k, a: k.logical_not(a), input, dtype=D.bool_, out=out)


def _bitwise(name, logical):
    def bitwise(input, other):
        if result_type(input, other).category != D.BOOL:
            raise unsupported(f"torch.{name} on integers", "bitwise integer operations are not modelled over "
                              "the reals")
        return logical(input, other)
    return bitwise


bitwise_and = _bitwise("bitwise_and", logical_and)
bitwise_or = _bitwise("bitwise_or", logical_or)
bitwise_xor = _bitwise("bitwise_xor", logical_xor)


def bitwise_not(input):
    if input.dtype.category != D.BOOL:
        raise unsupported("torch.bitwise_not on integers", "bitwise integer operations are not modelled")
    return logical_not(input)


def where(condition, input=None, other=None, *, out=None):
    if input is None and other is None:
        raise unsupported("torch.where(condition)", "its result's shape depends on the data")
    if not is_tensor(condition):
        raise TorchError("where expected condition to be a boolean tensor")
    if is_tensor(input) or is_tensor(other):
        dtype = result_type(input, other)
    else:
        dtype = D.promote_scalar(D.of_scalar(input), other)
    return _finish(select(condition, input, other, dtype), out)


def select(condition, input, other, dtype):
    """condition ? input : other elementwise, broadcast, in `dtype` (torch.where with the type given)."""
    session = condition.session
    kit = session.kit
    chosen = kit.cond(operand(condition, D.bool_, kit))
    a, b = operands(dtype, kit, input, other)
    try:
        shape = np.broadcast_shapes(chosen.shape, a.shape, b.shape)
    except ValueError:
        raise TorchError("where: the condition and the two values are not broadcastable") from None
    return new(np.broadcast_to(kit.where(chosen, a, b), shape), dtype, session)


def masked_fill(input, mask, value):
    if mask.dtype is not D.bool_:
        raise TorchError(f"masked_fill only supports boolean masks, but got mask with dtype {mask.dtype}")
    return select(mask, value, input, input.dtype)


def maximum(input, other, *, out=None):
    return elementwise(lambda k, a, b: k.maximum(a, b), input, other, out=out)


def minimum(input, other, *, out=None):
    return elementwise(lambda k, a, b: k.minimum(a, b), input, other, out=out)


def clamp(input, min=None, max=None, *, out=None):
    """min(max(x, lo), hi), torch's order: with lo > hi every element is hi."""
    if min is None and max is None:
        raise TorchError("torch.clamp: At least one of 'min' or 'max' must not be None")
    x = input
    if min is not None:
        x = elementwise(lambda k, a, b: k.maximum(a, b), x, min, dtype=result_type(input, min))
    if max is not None:
        x = elementwise(lambda k, a, b: k.minimum(a, b), x, max, dtype=result_type(x, max))
    return _finish(x, out)


def _finish(x, out):
    if out is None:
        return x
    out.copy_(x)
    return out


def clamp_min(input, min):
    return clamp(input, min=min)


def clamp_max(input, max):
    return clamp(input, max=max)


# ---------------------------------------------------------------- math

def _unary(name, make):
    def op(input, *, out=None):
        return elementwise(make, input, dtype=float_type(input), out=out)
    op.__name__ = name
    return op


exp = _unary("exp", lambda k, a: k.exp(a))
exp2 = _unary("exp2", lambda k, a: k.exp2(a))
expm1 = _unary("expm1", lambda k, a: k.sub(k.exp(a), _one(k)))
log = _unary("log", lambda k, a: k.log(a))
log2 = _unary("log2", lambda k, a: k.log2(a))
log10 = _unary("log10", lambda k, a: k.div(k.log2(a), k.log2(_lit(k, 10))))
log1p = _unary("log1p", lambda k, a: k.log(k.add(a, _one(k))))
sqrt = _unary("sqrt", lambda k, a: k.sqrt(a))
rsqrt = _unary("rsqrt", lambda k, a: k.rsqrt(a))
reciprocal = _unary("reciprocal", lambda k, a: k.div(_one(k), a))
sin = _unary("sin", lambda k, a: k.sin(a))
cos = _unary("cos", lambda k, a: k.cos(a))
tanh = _unary("tanh", lambda k, a: k.tanh(a))
erf = _unary("erf", lambda k, a: k.erf(a))
erfc = _unary("erfc", lambda k, a: k.sub(_one(k), k.erf(a)))
sigmoid = _unary("sigmoid", lambda k, a: _sigmoid(k, a))


def square(input, *, out=None):
    return elementwise(lambda k, a: k.mul(a, a), input, out=out)


def _rounding(name):
    def op(input, *, out=None):
        if not input.dtype.is_floating_point:
            return input.clone()
        return elementwise(lambda k, a: getattr(k, name)(a), input, out=out)
    op.__name__ = name
    return op


floor, ceil, trunc = _rounding("floor"), _rounding("ceil"), _rounding("trunc")


def round(input, *, decimals=0, out=None):
    if decimals:
        raise unsupported("torch.round(decimals=...)")
    return _rounding("round")(input, out=out)


def frac(input, *, out=None):
    return elementwise(lambda k, a: k.sub(a, k.trunc(a)), input, out=out)


def _one(k):
    return _lit(k, 1)


def _lit(k, value):
    return k.scalar(value, D.float32)


def _sigmoid(k, a):
    return k.div(_one(k), k.add(_one(k), k.exp(k.neg(a))))


# ---------------------------------------------------------------- activations

def _activation(name, make):
    """An activation f(x, **params) computed by make(kit, x, **params) in float (self for ints)."""
    def op(input, *args, inplace=False, **params):
        result = elementwise(lambda k, a: make(k, a, *args, **params), input, dtype=float_type(input))
        return input.copy_(result) if inplace else result
    op.__name__ = name
    return op


def _relu(k, a):
    return k.maximum(a, _lit(k, 0))


def _leaky_relu(k, a, negative_slope=0.01):
    return k.where(k.gt(a, _lit(k, 0)), a, k.mul(a, _lit(k, negative_slope)))


def _hardtanh(k, a, min_val=-1.0, max_val=1.0):
    return k.minimum(k.maximum(a, _lit(k, min_val)), _lit(k, max_val))


def _elu(k, a, alpha=1.0, scale=1.0, input_scale=1.0):
    negative = k.mul(_lit(k, alpha), k.sub(k.exp(k.mul(a, _lit(k, input_scale))), _one(k)))
    out = k.where(k.gt(a, _lit(k, 0)), a, negative)
    return out if scale == 1.0 else k.mul(_lit(k, scale), out)


def _selu(k, a):
    return _elu(k, a, SELU_ALPHA, SELU_SCALE)


def _celu(k, a, alpha=1.0):
    negative = k.mul(_lit(k, alpha), k.sub(k.exp(k.div(a, _lit(k, alpha))), _one(k)))
    return k.where(k.gt(a, _lit(k, 0)), a, negative)


def _gelu(k, a, approximate="none"):
    half_x = k.mul(a, _lit(k, 0.5))
    if approximate == "none":
        inner = k.erf(k.mul(a, k.scalar(reals.SQRT_HALF, D.float32) if k.symbolic else _lit(k, 0.5 ** 0.5)))
    elif approximate == "tanh":
        cube = k.mul(k.mul(a, a), a)
        scale = k.scalar(reals.SQRT_2_OVER_PI, D.float32) if k.symbolic else _lit(k, (2 / 3.141592653589793) ** 0.5)
        inner = k.tanh(k.mul(scale, k.add(a, k.mul(_lit(k, GELU_KAPPA), cube))))
    else:
        raise TorchError(f"approximate argument must be either none or tanh, got {approximate!r}")
    return k.mul(half_x, k.add(_one(k), inner))


def _silu(k, a):
    return k.div(a, k.add(_one(k), k.exp(k.neg(a))))


def _softplus(k, a, beta=1.0, threshold=20.0):
    scaled = k.mul(a, _lit(k, beta)) if beta != 1 else a
    soft = k.log(k.add(_one(k), k.exp(scaled)))
    if beta != 1:
        soft = k.div(soft, _lit(k, beta))
    return k.where(k.gt(scaled, _lit(k, threshold)), a, soft)


def _mish(k, a):
    return k.mul(a, k.tanh(k.log(k.add(_one(k), k.exp(a)))))


def _softsign(k, a):
    return k.div(a, k.add(_one(k), k.abs(a)))


def _hardsigmoid(k, a):
    return k.div(k.minimum(k.maximum(k.add(a, _lit(k, 3)), _lit(k, 0)), _lit(k, 6)), _lit(k, 6))


def _hardswish(k, a):
    return k.div(k.mul(a, k.minimum(k.maximum(k.add(a, _lit(k, 3)), _lit(k, 0)), _lit(k, 6))), _lit(k, 6))


def _logsigmoid(k, a):
    return k.neg(k.log(k.add(_one(k), k.exp(k.neg(a)))))


def _hardshrink(k, a, lambd=0.5):
    inside = k.logical_and(k.ge(a, _lit(k, -lambd)), k.le(a, _lit(k, lambd)))
    return k.where(inside, _lit(k, 0), a)


def _softshrink(k, a, lambd=0.5):
    lam = _lit(k, lambd)
    return k.where(k.gt(a, lam), k.sub(a, lam), k.where(k.lt(a, k.neg(lam)), k.add(a, lam), _lit(k, 0)))


def _threshold(k, a, threshold, value):
    return k.where(k.gt(a, _lit(k, threshold)), a, _lit(k, value))


relu = _activation("relu", _relu)
relu6 = _activation("relu6", lambda k, a: _hardtanh(k, a, 0.0, 6.0))
leaky_relu = _activation("leaky_relu", _leaky_relu)
hardtanh = _activation("hardtanh", _hardtanh)
elu = _activation("elu", _elu)
selu = _activation("selu", _selu)
celu = _activation("celu", _celu)
gelu = _activation("gelu", _gelu)
silu = _activation("silu", _silu)
softplus = _activation("softplus", _softplus)
mish = _activation("mish", _mish)
softsign = _activation("softsign", _softsign)
hardsigmoid = _activation("hardsigmoid", _hardsigmoid)
hardswish = _activation("hardswish", _hardswish)
logsigmoid = _activation("logsigmoid", _logsigmoid)
hardshrink = _activation("hardshrink", _hardshrink)
softshrink = _activation("softshrink", _softshrink)
threshold = _activation("threshold", _threshold)
tanhshrink = _activation("tanhshrink", lambda k, a: k.sub(a, k.tanh(a)))


def prelu(input, weight):
    """x > 0 ? x : w·x with one weight, or one per channel (dimension 1)."""
    if weight.numel() != 1:
        if input.ndim < 2 or input.shape[1] != weight.numel():
            raise TorchError("prelu: the number of weights must be 1 or the number of channels")
        weight = weight.reshape((1, weight.numel()) + (1,) * (input.ndim - 2))
    return elementwise(lambda k, a, w: k.where(k.gt(a, _lit(k, 0)), a, k.mul(w, a)), input, weight)


FUNCTIONS = {
    "add": add, "sub": sub, "subtract": sub, "rsub": rsub, "mul": mul, "multiply": mul, "div": div,
    "divide": div, "true_divide": div, "floor_divide": floor_divide, "remainder": remainder, "fmod": fmod,
    "pow": pow, "float_power": pow, "neg": neg, "negative": neg, "abs": absolute, "absolute": absolute,
    "sign": sign, "positive": positive,
    "lt": lt, "le": le, "gt": gt, "ge": ge, "eq": eq, "ne": ne, "less": lt, "less_equal": le, "greater": gt,
    "greater_equal": ge, "not_equal": ne,
    "logical_and": logical_and, "logical_or": logical_or, "logical_xor": logical_xor,
    "logical_not": logical_not, "bitwise_and": bitwise_and, "bitwise_or": bitwise_or,
    "bitwise_xor": bitwise_xor, "bitwise_not": bitwise_not,
    "where": where, "masked_fill": masked_fill, "maximum": maximum, "minimum": minimum, "fmax": maximum,
    "fmin": minimum, "clamp": clamp, "clip": clamp, "clamp_min": clamp_min, "clamp_max": clamp_max,
    "exp": exp, "exp2": exp2, "expm1": expm1, "log": log, "log2": log2, "log10": log10, "log1p": log1p,
    "sqrt": sqrt, "rsqrt": rsqrt, "reciprocal": reciprocal, "sin": sin, "cos": cos, "tanh": tanh,
    "erf": erf, "erfc": erfc, "sigmoid": sigmoid, "square": square, "floor": floor, "ceil": ceil,
    "trunc": trunc, "fix": trunc, "round": round, "frac": frac,
    "relu": relu, "relu6": relu6, "selu": selu, "celu": celu, "prelu": prelu,
}

# torch.nn.functional's activations (torch.* has a few of them too: relu, selu, celu, prelu above)
ACTIVATIONS = {
    "relu": relu, "relu6": relu6, "leaky_relu": leaky_relu, "hardtanh": hardtanh, "elu": elu, "selu": selu,
    "celu": celu, "gelu": gelu, "silu": silu, "softplus": softplus, "mish": mish, "softsign": softsign,
    "hardsigmoid": hardsigmoid, "hardswish": hardswish, "logsigmoid": logsigmoid, "hardshrink": hardshrink,
    "softshrink": softshrink, "threshold": threshold, "tanhshrink": tanhshrink, "sigmoid": sigmoid,
    "tanh": tanh, "prelu": prelu,
}
