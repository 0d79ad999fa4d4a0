"""Ops that move elements without arithmetic: cat/stack, flip/roll, tril/triu/diag, repeat/tile,
advanced indexing (get and set), gather/index_select, one_hot, and dtype conversions (`to`, `float()`...).

Indices must be known: an index tensor whose elements are constants (arange, a literal tensor, a mask
built from sizes) is followed; an index that depends on the inputs (`x[targets]`, a data-dependent mask)
is UNSUPPORTED, since the shape or the positions of the result would depend on the data.
"""
from __future__ import annotations

import numpy as np

from volta.kernelbench import dtypes as D
from volta.kernelbench.dtypes import DType
from volta.kernelbench.failures import TorchError, unsupported
from volta.kernelbench.tensor import SymTensor
from volta.kernelbench.torchsym.core import cast, dims_of, new, normalize_dim, operand, result_type


def concrete(index, what: str) -> np.ndarray:
    """The known integer (or bool) values of an index tensor, list or array."""
    if isinstance(index, SymTensor):
        kit = index.session.kit
        values = [kit.constant_value(v) for v in index.values()]
        if any(v is None for v in values):
            raise unsupported(what, "the index depends on the input data")
        kind = np.bool_ if index.dtype is D.bool_ else np.int64
        return np.array([bool(v) if kind is np.bool_ else int(v) for v in values], dtype=kind).reshape(index.shape)
    array = np.asarray(index)
    if array.dtype.kind not in "biu":
        raise TorchError("tensors used as indices must be long, int, byte or bool tensors")
    return array


def _numpy_key(key, what: str) -> tuple:
    if not isinstance(key, tuple):
        key = (key,)
    out = []
    for k in key:
        if isinstance(k, (SymTensor, list, np.ndarray)) or isinstance(k, bool):
            out.append(concrete(k, what) if not isinstance(k, bool) else np.array(k))
        elif isinstance(k, (int, np.integer, slice)) or k is None or k is Ellipsis:
            out.append(k)
        else:
            raise TorchError(f"invalid index of type {type(k).__name__}")
    return tuple(out)


def getitem_advanced(t: SymTensor, key) -> SymTensor:
    try:
        values = t.array()[_numpy_key(key, "indexing a tensor with a tensor")]
    except IndexError as error:
        raise TorchError(str(error)) from None
    return new(values, t.dtype, t.session)


def setitem_advanced(t: SymTensor, key, value) -> None:
    view = t.array()
    numpy_key = _numpy_key(key, "assigning through a tensor index")
    try:
        target_shape = view[numpy_key].shape
        view[numpy_key] = np.broadcast_to(elements_for(value, t.dtype, t.session.kit, target_shape), target_shape)
    except (IndexError, ValueError) as error:
        raise TorchError(str(error)) from None


def elements_for(src, dtype: DType, kit, shape) -> np.ndarray:
    """`src` (a tensor or a number) as elements of a `dtype` tensor, broadcastable to `shape`."""
    if not isinstance(src, SymTensor):
        return operand(src, dtype, kit)
    values = cast(src.array(), src.dtype, dtype, kit)
    try:
        if np.broadcast_shapes(values.shape, tuple(shape)) != tuple(shape):
            raise ValueError
    except ValueError:
        raise TorchError(f"the source of shape {list(src.shape)} does not broadcast to {list(shape)}") from None
    return values


def write_into(target: SymTensor, src) -> np.ndarray:
    """The elements `target.copy_(src)` writes (the tensor method table's `__elements_as__`)."""
    return elements_for(src, target.dtype, target.session.kit, target.shape)


def cat(tensors, dim=0, *, out=None):
    tensors = [t for t in tensors if not (t.ndim == 1 and t.shape[0] == 0)] or list(tensors)[:1]
    if not tensors:
        raise TorchError("torch.cat(): expected a non-empty list of Tensors")
    dtype = result_type(*tensors)
    d = normalize_dim(dim, tensors[0].ndim)
    kit = tensors[0].session.kit
    try:
        values = np.concatenate([operand(t, dtype, kit) for t in tensors], axis=d)
    except ValueError as error:
        raise TorchError(f"torch.cat(): {error}") from None
    result = new(values, dtype, tensors[0].session)
    return result if out is None else out.copy_(result)


def stack(tensors, dim=0, *, out=None):
    tensors = list(tensors)
    if not tensors:
        raise TorchError("stack expects a non-empty TensorList")
    if any(t.shape != tensors[0].shape for t in tensors):
        raise TorchError("stack expects each tensor to be equal size")
    d = normalize_dim(dim, tensors[0].ndim + 1)
    result = cat([t.unsqueeze(d) for t in tensors], d)
    return result if out is None else out.copy_(result)


def hstack(tensors):
    tensors = list(tensors)
    return cat(tensors, 0 if tensors[0].ndim == 1 else 1)


def vstack(tensors):
    return cat([t.reshape(1, -1) if t.ndim == 1 else t for t in tensors], 0)


def flip(input, dims):
    axes = dims_of(dims if isinstance(dims, (list, tuple)) else [dims], input.ndim)
    return new(np.flip(input.array(), axes), input.dtype, input.session)


def fliplr(input):
    return flip(input, [1])


def flipud(input):
    return flip(input, [0])


def roll(input, shifts, dims=None):
    if dims is None:
        return new(np.roll(input.values(), shifts), input.dtype, input.session).view(input.shape)
    return new(np.roll(input.array(), shifts, dims), input.dtype, input.session)


def _triangle(input, diagonal: int, upper: bool):
    if input.ndim < 2:
        raise TorchError("tril/triu: input tensor must have at least 2 dimensions")
    rows, cols = input.shape[-2:]
    keep = (np.triu if upper else np.tril)(np.ones((rows, cols), dtype=bool), diagonal)
    values = np.array(input.array(), copy=True)
    values[..., ~keep] = input.session.kit.scalar(0, input.dtype)
    return new(values, input.dtype, input.session)


def tril(input, diagonal=0):
    return _triangle(input, diagonal, upper=False)


def triu(input, diagonal=0):
    return _triangle(input, diagonal, upper=True)


def diag(input, diagonal=0):
    if input.ndim == 2:
        return input.diagonal(diagonal).clone()
    if input.ndim != 1:
        raise TorchError("diag(): Supports 1D or 2D tensors")
    n = input.shape[0] + abs(diagonal)
    kit = input.session.kit
    values = kit.full((n, n), kit.scalar(0, input.dtype))
    rows = np.arange(input.shape[0]) + max(-diagonal, 0)
    values[rows, rows + diagonal] = input.array()
    return new(values, input.dtype, input.session)


def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    if (offset, dim1, dim2) != (0, -2, -1):
        raise unsupported("torch.diag_embed with offset or dims")
    n = input.shape[-1]
    kit = input.session.kit
    values = kit.full(tuple(input.shape) + (n,), kit.scalar(0, input.dtype))
    i = np.arange(n)
    values[..., i, i] = input.array()
    return new(values, input.dtype, input.session)


def repeat(input, *sizes):
    sizes = tuple(sizes[0]) if len(sizes) == 1 and isinstance(sizes[0], (list, tuple)) else sizes
    if len(sizes) < input.ndim:
        raise TorchError("Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor")
    values = input.array().reshape((1,) * (len(sizes) - input.ndim) + tuple(input.shape))
    return new(np.tile(values, sizes), input.dtype, input.session)


def tile(input, dims):
    dims = tuple(dims)
    dims = (1,) * (input.ndim - len(dims)) + dims
    return repeat(input, dims)


def repeat_interleave(input, repeats, dim=None):
    repeats = concrete(repeats, "repeat_interleave") if isinstance(repeats, SymTensor) else repeats
    if dim is None:
        return new(np.repeat(input.values(), repeats), input.dtype, input.session)
    return new(np.repeat(input.array(), repeats, normalize_dim(dim, input.ndim)), input.dtype, input.session)


def gather(input, dim, index, *, sparse_grad=False):
    d = normalize_dim(dim, input.ndim)
    idx = concrete(index, "torch.gather")
    values = input.array()
    if idx.ndim != values.ndim:
        raise TorchError("Index tensor must have the same number of dimensions as input tensor")
    cut = tuple(slice(0, n) for n in idx.shape)
    cut = cut[:d] + (slice(None),) + cut[d + 1:]
    return new(np.take_along_axis(values[cut], idx, d), input.dtype, input.session)


def index_select(input, dim, index):
    d = normalize_dim(dim, input.ndim)
    return new(np.take(input.array(), concrete(index, "torch.index_select"), axis=d), input.dtype, input.session)


def masked_select(input, mask):
    return getitem_advanced(input.expand(np.broadcast_shapes(tuple(input.shape), tuple(mask.shape))),
                            mask.expand(np.broadcast_shapes(tuple(input.shape), tuple(mask.shape))))


def one_hot(tensor, num_classes=-1):
    """1 where the class equals the element, else 0: comparisons, so a symbolic class index is fine."""
    if num_classes < 0:
        known = concrete(tensor, "one_hot without num_classes")
        num_classes = int(known.max()) + 1 if known.size else 0
    kit = tensor.session.kit
    classes = kit.from_numbers(np.arange(num_classes))
    values = operand(tensor, D.int64, kit)[..., None]
    return new(kit.number(kit.eq(values, classes)), D.int64, tensor.session)


def movedim(input, source, destination):
    source = [source] if isinstance(source, int) else list(source)
    destination = [destination] if isinstance(destination, int) else list(destination)
    order = [d for d in range(input.ndim) if d not in [normalize_dim(s, input.ndim) for s in source]]
    for s, t in sorted(zip((normalize_dim(s, input.ndim) for s in source),
                           (normalize_dim(t, input.ndim) for t in destination)), key=lambda p: p[1]):
        order.insert(t, s)
    return input.permute(order)


def pad(input, pad, mode="constant", value=None):
    """F.pad: (left, right) pairs from the last dimension backwards; negative amounts crop."""
    if mode != "constant":
        raise unsupported(f"F.pad(mode={mode!r})")
    pad = [int(p) for p in pad]
    if len(pad) % 2 or len(pad) // 2 > input.ndim:
        raise TorchError("Padding length must be divisible by 2 and at most twice the number of dimensions")
    kit = input.session.kit
    values = input.array()
    widths = [(0, 0)] * input.ndim
    for i in range(len(pad) // 2):
        widths[input.ndim - 1 - i] = (pad[2 * i], pad[2 * i + 1])
    crop = tuple(slice(max(-lo, 0), n - max(-hi, 0)) for (lo, hi), n in zip(widths, input.shape))
    values = values[crop]
    grown = tuple(n + max(lo, 0) + max(hi, 0) for (lo, hi), n in zip(widths, values.shape))
    out = kit.full(grown, kit.scalar(0 if value is None else value, input.dtype))
    out[tuple(slice(max(lo, 0), max(lo, 0) + n) for (lo, _), n in zip(widths, values.shape))] = values
    return new(out, input.dtype, input.session)


# ---------------------------------------------------------------- dtype conversions

def to(input, *args, **kwargs):
    """Tensor.to(dtype) / to(device) / to(other) / to(device, dtype): only the dtype matters here."""
    dtype = kwargs.get("dtype")
    for a in args:
        if isinstance(a, DType):
            dtype = a
        elif isinstance(a, SymTensor):
            dtype = a.dtype
    if dtype is None or dtype is input.dtype:
        return input
    kit = input.session.kit
    return new(cast(input.array(), input.dtype, dtype, kit), dtype, input.session)


def type_as(input, other):
    return to(input, other.dtype)


def type_(input, dtype=None, non_blocking=False):
    if dtype is None:
        return f"torch.cuda.{input.dtype.torch_name.capitalize()}Tensor"
    if isinstance(dtype, str):
        raise unsupported("Tensor.type(str)")
    return to(input, dtype)


def _converter(dtype):
    def convert(input, memory_format=None):
        return to(input, dtype)
    return convert


def same(input, *args, **kwargs):
    return input


CONVERSIONS = {
    "to": to, "type_as": type_as, "type": type_, "float": _converter(D.float32), "double": _converter(D.float64),
    "half": _converter(D.float16), "bfloat16": _converter(D.bfloat16), "int": _converter(D.int32),
    "long": _converter(D.int64), "short": _converter(D.int16), "bool": _converter(D.bool_),
    "byte": _converter(D.uint8), "char": _converter(D.int8),
    "cuda": same, "cpu": same, "pin_memory": same, "share_memory_": same, "record_stream": same,
}

FUNCTIONS = {
    "cat": cat, "concat": cat, "concatenate": cat, "stack": stack, "hstack": hstack, "vstack": vstack,
    "flip": flip, "fliplr": fliplr, "flipud": flipud, "roll": roll, "tril": tril, "triu": triu, "diag": diag,
    "diag_embed": diag_embed, "tile": tile, "repeat_interleave": repeat_interleave, "gather": gather,
    "index_select": index_select, "masked_select": masked_select, "movedim": movedim, "moveaxis": movedim,
}

METHODS_ONLY = {"repeat": repeat, "__getitem_advanced__": getitem_advanced,
                "__setitem_advanced__": setitem_advanced, "__elements_as__": write_into}
