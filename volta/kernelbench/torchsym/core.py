"""What every op of the torch stand-in shares: operands as element arrays, dtypes, results as tensors.

An op receives tensors and Python scalars. `operands` turns them into numpy arrays of element values for
the op's computation type (bools become 0/1 numbers where an op computes with numbers; scalars become
constants rounded as torch rounds them), `new` wraps a result array as a fresh contiguous tensor, and
`finish` honours `out=`. Casts between dtypes are over the reals: float widths are the identity, float to
integer truncates, anything to bool is `!= 0`.
"""
from __future__ import annotations

import math
import numbers
from typing import Callable

import numpy as np

from volta.kernelbench import dtypes as D
from volta.kernelbench.dtypes import DType
from volta.kernelbench.failures import TorchError, unsupported
from volta.kernelbench.tensor import Session, SymTensor, from_array

Tensor = SymTensor


def is_tensor(x) -> bool:
    return isinstance(x, SymTensor)


def session_of(*xs) -> Session:
    for x in xs:
        if isinstance(x, SymTensor):
            return x.session
        if isinstance(x, (list, tuple)):
            for y in x:
                if isinstance(y, SymTensor):
                    return y.session
    raise TorchError("expected at least one tensor argument")


def check_scalar(x, what: str):
    if isinstance(x, (numbers.Number, np.number, np.bool_)):
        return x
    raise unsupported(what, f"argument of type {type(x).__name__} is not a tensor or a number")


def result_type(*xs) -> DType:
    """torch.result_type over tensors and Python scalars."""
    tensors = [x for x in xs if isinstance(x, SymTensor)]
    if not tensors:
        raise TorchError("expected at least one tensor argument")
    # zero-dimensional tensors only lift the category, like scalars, when dimensioned tensors are present
    dimensioned = [t for t in tensors if t.ndim] or tensors
    dtype = dimensioned[0].dtype
    for t in dimensioned[1:]:
        dtype = D.promote(dtype, t.dtype)
    chosen = {id(t) for t in dimensioned}
    for t in tensors:
        if id(t) not in chosen and t.dtype.category > dtype.category:
            dtype = D.promote(dtype, t.dtype) if t.dtype.category == D.FLOAT else t.dtype
    for x in xs:
        if not isinstance(x, SymTensor) and x is not None:
            dtype = D.promote_scalar(dtype, x)
    return dtype


def cast(values: np.ndarray, source: DType, target: DType, kit) -> np.ndarray:
    """Element values of a `source` tensor as a `target` tensor's, over the reals."""
    if source is target or (source.category == target.category == D.FLOAT):
        return values
    if target.category == D.BOOL:
        return kit.cond(values)
    if source.category == D.BOOL:
        return kit.number(values)
    if target.category == D.INT and source.category == D.FLOAT:
        return kit.trunc(values)
    return values


def operand(x, dtype: DType, kit) -> np.ndarray:
    """The elements of a tensor or scalar as an array for a computation in `dtype` (broadcastable)."""
    if isinstance(x, SymTensor):
        return cast(x.array(), x.dtype, dtype, kit)
    value = kit.scalar(check_scalar(x, "a scalar operand"), dtype)
    if dtype.category == D.BOOL and not kit.symbolic:
        value = bool(value)
    out = np.empty((), dtype=object if kit.symbolic else (np.bool_ if isinstance(value, bool) else np.float64))
    out[()] = value
    return out


def operands(dtype: DType, kit, *xs) -> list[np.ndarray]:
    return [operand(x, dtype, kit) for x in xs]


def new(values, dtype: DType, session: Session) -> SymTensor:
    return from_array(np.asarray(values), dtype, session)


def finish(result: SymTensor, out: SymTensor | None) -> SymTensor:
    """Honour `out=`: write the result into `out` (whose shape must match, as torch resizes only empty outs)."""
    if out is None:
        return result
    if tuple(out.shape) != tuple(result.shape):
        if out.numel() != 0:
            raise TorchError(f"out= tensor of shape {list(out.shape)} does not match the result shape "
                             f"{list(result.shape)}")
        raise unsupported("out= with an empty tensor", "resizing an out= tensor is not modelled")
    out.copy_(result)
    return out


def elementwise(fn: Callable, *xs, dtype: DType | None = None, result: DType | None = None,
                out: SymTensor | None = None) -> SymTensor:
    """Apply `fn(kit, *arrays)` to broadcast operands computed in `dtype` (default: the promoted type);
    the result has dtype `result` (default: the computation type)."""
    session = session_of(*xs)
    kit = session.kit
    dtype = dtype or result_type(*xs)
    arrays = operands(dtype, kit, *xs)
    try:
        np.broadcast_shapes(*(a.shape for a in arrays))
    except ValueError:
        shapes = " and ".join(str(list(x.shape)) for x in xs if isinstance(x, SymTensor))
        raise TorchError(f"the shapes {shapes} are not broadcastable") from None
    values = fn(kit, *arrays)
    return finish(new(values, result or dtype, session), out)


def float_type(*xs) -> DType:
    """The computation type of an op that always computes in floating point (sqrt of an int tensor...)."""
    dtype = result_type(*xs)
    return dtype if dtype.is_floating_point else D.DEFAULT_FLOAT


def dims_of(dim, ndim: int) -> tuple[int, ...]:
    """A reduction's `dim` argument (None, int, or a sequence) as sorted non-negative dims."""
    if dim is None:
        return tuple(range(ndim))
    if isinstance(dim, (list, tuple)):
        if not dim:
            return tuple(range(ndim))
        return tuple(sorted({normalize_dim(d, ndim) for d in dim}))
    return (normalize_dim(dim, ndim),)


def normalize_dim(d: int, ndim: int) -> int:
    n = max(ndim, 1)
    d = int(d)
    if not -n <= d < n:
        raise TorchError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {d})")
    return d % n


def keep_dims(shape: tuple, dims: tuple, keepdim: bool) -> tuple:
    if keepdim:
        return tuple(1 if d in dims else n for d, n in enumerate(shape))
    return tuple(n for d, n in enumerate(shape) if d not in dims)


def move_to_end(a: np.ndarray, dims: tuple) -> np.ndarray:
    """The array with `dims` moved to the end and merged into one axis (what a reduction runs along)."""
    rest = [d for d in range(a.ndim) if d not in dims]
    moved = a.transpose(rest + list(dims))
    return moved.reshape(tuple(a.shape[d] for d in rest) + (math.prod(a.shape[d] for d in dims),))
