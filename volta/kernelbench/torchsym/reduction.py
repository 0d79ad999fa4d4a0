"""Reductions and scans: sum, mean, prod, max/min (with indices), argmax/argmin, var/std, logsumexp,
norms, softmax/log_softmax, cumsum/cumprod, all/any.

The reduced dimensions are moved to the end and merged (`core.move_to_end`), then reduced by the kit
left to right. Over the reals the order of a sum does not matter; Volta's normal forms compare sums as
sets of terms. Indices (argmax/argmin and the indices of max/min) are built from selects over
comparisons, scanning in order with a strict comparison so the first extreme wins, as torch documents:
`idx = x_i > best ? i : idx; best = x_i > best ? x_i : best`. softmax is exp(x - max)/sum(exp(x - max))
and logsumexp is max + log(sum(exp(x - max))), torch's CPU formulas; variance is the two-pass
sum((x - mean)²)/(N - correction).
"""
from __future__ import annotations

import math
from collections import namedtuple

import numpy as np

from volta.kernelbench import dtypes as D
from volta.kernelbench.failures import TorchError, unsupported
from volta.kernelbench.torchsym.core import dims_of, keep_dims, move_to_end, new, normalize_dim, operand
from volta.kernelbench.torchsym.pointwise import maximum, minimum

MinMax = namedtuple("MinMax", ["values", "indices"])


def _accumulate_type(dtype, requested=None):
    if requested is not None:
        return requested
    return dtype if dtype.is_floating_point else D.int64


def _reduce(input, dim, keepdim, name: str, dtype) -> object:
    """Reduce `input` over `dim` with the kit's `name` reducer; result in `dtype`."""
    kit = input.session.kit
    dims = dims_of(dim, input.ndim)
    values = operand(input, dtype, kit)
    merged = move_to_end(values, dims)
    reduced = kit.reduce(name, merged, merged.ndim - 1)
    return new(np.reshape(reduced, keep_dims(input.shape, dims, keepdim)), dtype, input.session)


def _count(input, dim) -> int:
    return math.prod(input.shape[d] for d in dims_of(dim, input.ndim))


def sum(input, dim=None, keepdim=False, *, dtype=None, out=None):
    result = _reduce(input, dim, keepdim, "add", _accumulate_type(input.dtype, dtype))
    return _out(result, out)


def _out(result, out):
    if out is None:
        return result
    out.copy_(result)
    return out


def mean(input, dim=None, keepdim=False, *, dtype=None, out=None):
    dtype = dtype or input.dtype
    if not dtype.is_floating_point:
        raise TorchError(f"mean(): could not infer output dtype. Input dtype must be either a floating point "
                         f"or complex dtype. Got: {input.dtype.torch_name.capitalize()}")
    total = _reduce(input, dim, keepdim, "add", dtype)
    return _out(total / _count(input, dim), out)


def prod(input, dim=None, keepdim=False, *, dtype=None):
    return _reduce(input, dim, keepdim, "mul", _accumulate_type(input.dtype, dtype))


def amax(input, dim=(), keepdim=False):
    return _reduce(input, dim if dim != () else None, keepdim, "max", input.dtype)


def amin(input, dim=(), keepdim=False):
    return _reduce(input, dim if dim != () else None, keepdim, "min", input.dtype)


def _extreme_index(input, dim, keepdim, name: str):
    """The index of the first largest (`max`) or smallest (`min`) element along `dim` (None: flattened)."""
    kit = input.session.kit
    if dim is None:
        flat = input.reshape(-1)
        return _extreme_index(flat, 0, False, name).reshape((1,) * input.ndim if keepdim else ())
    d = normalize_dim(dim, input.ndim)
    values = move_to_end(operand(input, input.dtype, kit), (d,)) if input.ndim else \
        operand(input, input.dtype, kit).reshape(1)
    n = values.shape[-1]
    if n == 0:
        raise TorchError(f"arg{name}(): Expected reduction dim {d} to have non-zero size.")
    better = kit.gt if name == "max" else kit.lt
    best = values[..., 0]
    index = kit.full(best.shape, kit.scalar(0, D.int64))
    for i in range(1, n):
        candidate = values[..., i]
        wins = better(candidate, best)
        index = kit.where(wins, kit.scalar(i, D.int64), index)
        best = kit.where(wins, candidate, best)
    shape = keep_dims(input.shape, (d,), keepdim) if input.ndim else ()
    return new(np.reshape(index, shape), D.int64, input.session)


def argmax(input, dim=None, keepdim=False):
    return _extreme_index(input, dim, keepdim, "max")


def argmin(input, dim=None, keepdim=False):
    return _extreme_index(input, dim, keepdim, "min")


def _max_min(name, pairwise):
    def op(input, dim=None, keepdim=False, *, out=None):
        if dim is None:
            return _reduce(input, None, False, name, input.dtype)
        if not isinstance(dim, (int, np.integer)):
            return pairwise(input, dim)        # torch.max(a, b): elementwise
        values = _reduce(input, dim, keepdim, name, input.dtype)
        return MinMax(values, _extreme_index(input, dim, keepdim, name))
    op.__name__ = name
    return op


max = _max_min("max", maximum)
min = _max_min("min", minimum)


def aminmax(input, *, dim=None, keepdim=False):
    return namedtuple("aminmax", ["min", "max"])(amin(input, dim if dim is not None else (), keepdim),
                                                 amax(input, dim if dim is not None else (), keepdim))


def _correction(unbiased, correction) -> int:
    if correction is not None:
        return int(correction)
    return 1 if unbiased in (None, True) else 0


def var(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    if isinstance(dim, bool):                    # torch.var(x, False): the old `unbiased` positional
        dim, unbiased = None, dim
    n = _count(input, dim)
    centered = input - mean(input, dim, keepdim=True)
    total = sum(centered * centered, dim, keepdim)
    return total / (n - _correction(unbiased, correction))


def std(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    return var(input, dim, unbiased, keepdim, correction=correction).sqrt()


def var_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    return var(input, dim, unbiased, keepdim, correction=correction), mean(input, dim, keepdim)


def std_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    return std(input, dim, unbiased, keepdim, correction=correction), mean(input, dim, keepdim)


def logsumexp(input, dim, keepdim=False):
    top = amax(input, dim, keepdim=True)
    result = (input - top).exp().sum(dim, keepdim=True).log() + top
    return result if keepdim else result.squeeze(dims_of(dim, input.ndim))


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    x = input if dtype is None else input.to(dtype)
    d = _softmax_dim(x, dim)
    shifted = (x - amax(x, d, keepdim=True)).exp()
    return shifted / sum(shifted, d, keepdim=True)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    x = input if dtype is None else input.to(dtype)
    d = _softmax_dim(x, dim)
    shifted = x - amax(x, d, keepdim=True)
    return shifted - shifted.exp().sum(d, keepdim=True).log()


def _softmax_dim(x, dim) -> int:
    if dim is None:                   # torch's legacy choice for an implicit dim
        return 0 if x.ndim in (0, 1, 3) else 1
    return normalize_dim(dim, x.ndim)


def norm(input, p="fro", dim=None, keepdim=False, dtype=None):
    if isinstance(p, str):
        if p == "fro":
            p = 2
        else:
            raise unsupported(f"torch.norm(p={p!r})")
    return vector_norm(input, p, dim, keepdim)


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None):
    if ord == 2:
        return sum(x * x, dim, keepdim).sqrt()
    if ord == 1:
        return sum(x.abs(), dim, keepdim)
    if ord == math.inf:
        return amax(x.abs(), dim if dim is not None else (), keepdim)
    if ord == -math.inf:
        return amin(x.abs(), dim if dim is not None else (), keepdim)
    if ord == 0:
        return sum((x != 0).to(x.dtype), dim, keepdim)
    return sum(x.abs() ** ord, dim, keepdim) ** (1 / ord)


def _scan(name: str):
    def scan(input, dim, *, dtype=None, out=None):
        kit = input.session.kit
        dtype = _accumulate_type(input.dtype, dtype)
        d = normalize_dim(dim, input.ndim)
        values = operand(input, dtype, kit)
        if input.ndim == 0:
            return _out(new(values, dtype, input.session), out)
        return _out(new(kit.accumulate(name, values, d), dtype, input.session), out)
    scan.__name__ = "cum" + name
    return scan


cumsum = _scan("add")
cumprod = _scan("mul")


def _cum_extreme(name: str):
    def scan(input, dim):
        kit = input.session.kit
        d = normalize_dim(dim, input.ndim)
        values = np.moveaxis(operand(input, input.dtype, kit), d, -1)
        better = kit.ge if name == "max" else kit.le        # torch's cummax keeps the last of equal extremes
        best, index = values[..., 0], kit.full(values.shape[:-1], kit.scalar(0, D.int64))
        bests, indices = [best], [index]
        for i in range(1, values.shape[-1]):
            wins = better(values[..., i], best)
            index = kit.where(wins, kit.scalar(i, D.int64), index)
            best = kit.where(wins, values[..., i], best)
            bests.append(best)
            indices.append(index)
        session = input.session
        return MinMax(new(np.moveaxis(np.stack(bests, -1), -1, d), input.dtype, session),
                      new(np.moveaxis(np.stack(indices, -1), -1, d), D.int64, session))
    scan.__name__ = "cum" + name
    return scan


cummax = _cum_extreme("max")
cummin = _cum_extreme("min")


def all(input, dim=None, keepdim=False):
    return _reduce(input, dim, keepdim, "and", D.bool_)


def any(input, dim=None, keepdim=False):
    return _reduce(input, dim, keepdim, "or", D.bool_)


def count_nonzero(input, dim=None):
    return sum(input != 0, dim)


FUNCTIONS = {
    "sum": sum, "mean": mean, "prod": prod, "amax": amax, "amin": amin, "argmax": argmax, "argmin": argmin,
    "max": max, "min": min, "aminmax": aminmax, "var": var, "std": std, "var_mean": var_mean,
    "std_mean": std_mean, "logsumexp": logsumexp, "softmax": softmax, "log_softmax": log_softmax,
    "norm": norm, "cumsum": cumsum, "cumprod": cumprod, "cummax": cummax, "cummin": cummin, "all": all,
    "any": any, "count_nonzero": count_nonzero,
}
