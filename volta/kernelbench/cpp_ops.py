"""Torch ops that a candidate's C++ host code called (`torch::matmul(a, b)`, `x + y`, `out.sum(1, true)`),
replayed in trace order with the stand-in torch's own functions, so they mean exactly what the reference's
ops mean.

The stand-in headers record each op with the shape and dtype torch gives its result (`runtime/aten.cpp`);
here its inputs become tensors over the run's storages, the stand-in computes the values, and they fill the
result's storage. `copy_` writes through the destination view (in-place ops are recorded as the op then a
copy). A result whose shape differs from the one host code saw is a bug in one of the two models of torch:
refused, never papered over.
"""
from __future__ import annotations

import numpy as np

from volta.errors import Unsupported
from volta.kernelbench import dtypes as D
from volta.kernelbench.memory import TORCH_TO_VOLTA, DeviceMemory
from volta.kernelbench.tensor import SymTensor, tensor_on_storage
from volta.kernelbench.torchsym import linalg, pointwise, reduction, shape


def view(ref, memory: DeviceMemory, session) -> SymTensor:
    """The tensor a recorded reference (host.trace.TensorRef) names, over its storage."""
    storage = memory.by_base.get(ref.base)
    if storage is None:
        raise Unsupported(f"host code returned or used a tensor at {ref.base:#x}, whose storage this run never saw")
    if storage.dtype != TORCH_TO_VOLTA[ref.dtype]:
        raise Unsupported(f"host code views a {D.BY_VOLTA[storage.dtype].torch_name} storage as {ref.dtype} "
                          f"(a reinterpretation of bits, not modelled)")
    return tensor_on_storage(storage, ref.sizes, session, ref.strides, ref.offset)


def _reduce(fn, t: SymTensor, ints: tuple):
    dims, keepdim = tuple(ints[:-1]), bool(ints[-1])
    if not dims:
        dims = tuple(range(t.ndim))
    return fn(t, dims, keepdim)


def _spread(fn, t: SymTensor, ints: tuple):
    """var/std, recorded as the reduced dims, the correction (1 for unbiased), then keepdim."""
    correction = ints[-2]
    return _reduce(lambda x, d, k: fn(x, d, keepdim=k, correction=correction), t, ints[:-2] + ints[-1:])


# op name (as runtime/aten.cpp records it) -> fn(inputs, scalars, ints)
OPS = {
    "add": lambda x, s, i: x[0] + (x[1] if s[0] == 1 else x[1] * s[0]),
    "add_scalar": lambda x, s, i: x[0] + s[0],
    "mul": lambda x, s, i: x[0] * x[1],
    "mul_scalar": lambda x, s, i: x[0] * s[0],
    "div": lambda x, s, i: x[0] / x[1],
    "div_scalar": lambda x, s, i: x[0] / s[0],
    "neg": lambda x, s, i: -x[0],
    "relu": lambda x, s, i: pointwise.relu(x[0]),
    "sigmoid": lambda x, s, i: pointwise.sigmoid(x[0]),
    "tanh": lambda x, s, i: pointwise.tanh(x[0]),
    "exp": lambda x, s, i: x[0].exp(),
    "log": lambda x, s, i: x[0].log(),
    "sqrt": lambda x, s, i: x[0].sqrt(),
    "rsqrt": lambda x, s, i: x[0].rsqrt(),
    "abs": lambda x, s, i: x[0].abs(),
    "square": lambda x, s, i: x[0] * x[0],
    "reciprocal": lambda x, s, i: x[0].reciprocal(),
    "pow_scalar": lambda x, s, i: x[0] ** s[0],
    "clamp": lambda x, s, i: x[0].clamp(s[0] if i[0] else None, s[1] if i[1] else None),
    "sum": lambda x, s, i: _reduce(lambda t, d, k: t.sum(d, keepdim=k), x[0], i),
    "mean": lambda x, s, i: _reduce(lambda t, d, k: t.mean(d, keepdim=k), x[0], i),
    "var": lambda x, s, i: _spread(reduction.var, x[0], i),
    "std": lambda x, s, i: _spread(reduction.std, x[0], i),
    "amax": lambda x, s, i: _reduce(lambda t, d, k: t.amax(d, keepdim=k), x[0], i),
    "amin": lambda x, s, i: _reduce(lambda t, d, k: t.amin(d, keepdim=k), x[0], i),
    "softmax": lambda x, s, i: x[0].softmax(i[0]),
    "log_softmax": lambda x, s, i: x[0].log_softmax(i[0]),
    "matmul": lambda x, s, i: x[0].matmul(x[1]),
    "addmm": lambda x, s, i: linalg.addmm(x[0], x[1], x[2], beta=s[0], alpha=s[1]),
    "linear": lambda x, s, i: linalg.linear(x[0], x[1], x[2] if len(x) > 2 else None),
    "gelu": lambda x, s, i: pointwise.gelu(x[0]),
    "gelu_tanh": lambda x, s, i: pointwise.gelu(x[0], approximate="tanh"),
    "cat": lambda x, s, i: shape.cat(list(x), i[0]),
    "clone": lambda x, s, i: x[0].clone(),
    "to": lambda x, s, i: x[0].clone(),
}


def execute(op, memory: DeviceMemory, session, new_storage) -> None:
    """Replay one recorded op (host.trace.Op): compute its result and fill the result's storage (made with
    `new_storage(values, volta dtype)` at the address host code holds), or write through `copy_`'s target."""
    inputs = [view(r, memory, session) for r in op.inputs]
    if op.op == "copy_":
        inputs[0].copy_(inputs[1])
        return
    fn = OPS.get(op.op)
    if fn is None:
        raise Unsupported(f"host code called the torch op `{op.op}`, which Volta does not replay")
    result = fn(inputs, op.scalars, op.ints)
    out = op.out
    if tuple(result.shape) != tuple(out.sizes):
        raise Unsupported(f"the torch op `{op.op}` from host code gives shape {list(result.shape)} in the stand-in "
                          f"and {list(out.sizes)} in the host headers (a modelling bug: nothing is claimed)")
    want = D.TORCH_NAMES[out.dtype]
    if result.dtype is not want:
        result = result.to(want)
    values = np.array(result.values(), dtype=object).reshape(-1)
    memory.add(out.base, new_storage(values, want.volta), None)
