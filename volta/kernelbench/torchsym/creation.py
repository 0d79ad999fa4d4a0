"""Tensor factories of the stand-in: constants (zeros, ones, full, arange, tensor, eye...), uninitialized
tensors (`empty`: every element UNWRITTEN), and random tensors.

A random tensor (rand, randn, randint, their `_like` forms, a parameter's initial value) is a *source*:
its elements are fresh leaves `E.var("rand#K", i)` with a provisional name, recorded in the `Run` in
creation order, which `problem.py` renames after `get_inputs()` and the model's constructor (inputs take
`forward`'s parameter names, parameters their qualified names). Random numbers in `forward` (dropout,
`torch.rand` in the computation) are UNSUPPORTED: a reference must be a function of its inputs.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from volta.kernelbench import dtypes as D
from volta.kernelbench.dtypes import DType
from volta.kernelbench.failures import TorchError, unsupported
from volta.kernelbench.streams import Ordering
from volta.kernelbench.tensor import Session, Size, Storage, SymTensor, contiguous_strides, from_array


@dataclass(frozen=True)
class Source:
    """A random tensor's storage, the order it was made in, and what made it."""

    storage: Storage
    order: int
    kind: str                           # "rand", "randn", "randint", "param"
    value_range: tuple | None = None    # [low, high] of an integer source (randint's high - 1)


@dataclass(eq=False)
class Run:
    """One execution of problem (or candidate) code on the stand-in: the session of its tensors, whether
    random tensors may be made now, the sources made so far, and the `load_inline` hook."""

    session: Session
    random_allowed: bool = True
    sources: list[Source] = field(default_factory=list)
    load_inline: Callable | None = None
    streams: Ordering = field(default_factory=Ordering)    # its work's order across streams (streams.py)
    paths: object = None                # paths.Oracle: how the machine answers timing and device queries

    @property
    def kit(self):
        return self.session.kit

    def source(self, shape, dtype: DType, kind: str, value_range=None, what: str = "torch.rand") -> SymTensor:
        """A new random tensor: fresh leaves under a provisional name."""
        if not self.random_allowed:
            raise unsupported(what, "random numbers in forward are not modelled (a reference must be a "
                              "function of its inputs and parameters)")
        shape = _shape(shape)
        name = f"rand#{len(self.sources)}"
        values = self.kit.leaves(name, math.prod(shape))
        if not self.kit.symbolic and kind == "randint":
            lo, hi = value_range
            values = self.kit.rng.integers(lo, hi + 1, values.shape[0]).astype(np.float64)
        if not self.kit.symbolic and dtype is D.bool_:
            values = values > 0
        storage = self.session.allocate(values, dtype.volta, name)
        self.sources.append(Source(storage, len(self.sources), kind, value_range))
        return SymTensor(storage, 0, shape, contiguous_strides(shape), self.session)


def _shape(args) -> tuple:
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        args = tuple(args[0])
    try:
        return tuple(int(a) for a in args)
    except TypeError:
        raise TorchError(f"a tensor size must be a sequence of ints, got {args!r}") from None


def _dtype(dtype, default: DType = D.DEFAULT_FLOAT) -> DType:
    if dtype is None:
        return default
    if not isinstance(dtype, DType):
        raise TorchError(f"expected a torch dtype, got {dtype!r}")
    return dtype


class Factories:
    """The torch.* functions that make tensors, bound to one Run."""

    def __init__(self, run: Run):
        self.run = run

    # ------------------------------------------------------------ constants
    def full(self, size, fill_value, *, dtype=None, **_ignored):
        dtype = _dtype(dtype, D.of_scalar(fill_value))
        shape = _shape((size,))
        kit = self.run.kit
        values = kit.full(math.prod(shape), kit.scalar(fill_value, dtype))
        return from_array(values.reshape(shape), dtype, self.run.session)

    def zeros(self, *size, dtype=None, out=None, **_ignored):
        return self.full(_shape(size), 0, dtype=_dtype(dtype))

    def ones(self, *size, dtype=None, out=None, **_ignored):
        return self.full(_shape(size), 1, dtype=_dtype(dtype))

    def empty(self, *size, dtype=None, **_ignored):
        shape = _shape(size)
        values = self.run.kit.unwritten(math.prod(shape))
        return from_array(values.reshape(shape), _dtype(dtype), self.run.session)

    def legacy(self, *args, device=None, **_ignored):
        """`torch.Tensor(...)`, torch's legacy constructor: sizes (ints or a torch.Size) make an uninitialized
        float32 tensor, as torch.empty; no argument an empty one; a sequence its float32 data; a float32
        tensor is returned as it is (torch aliases it; another dtype is torch's TypeError)."""
        if len(args) == 1 and isinstance(args[0], SymTensor):
            if args[0].dtype is not D.float32:
                raise TorchError(f"expected Float (got {args[0].dtype})")   # (torch's TypeError)
            return args[0]
        if len(args) == 1 and isinstance(args[0], Size):
            args = tuple(args[0])
        if all(isinstance(a, (int, np.integer)) and not isinstance(a, bool) for a in args):
            return self.empty(*args, dtype=D.float32) if args else self.empty(0, dtype=D.float32)
        if len(args) == 1 and isinstance(args[0], (list, tuple, np.ndarray)):
            return self.tensor(args[0], dtype=D.float32)
        raise TorchError(f"torch.Tensor(): arguments {args!r} are neither sizes nor one sequence of numbers")

    def empty_strided(self, size, stride, *, dtype=None, **_ignored):
        size, stride = tuple(size), tuple(stride)
        extent = 1 + sum((n - 1) * s for n, s in zip(size, stride)) if all(size) else 0
        dtype = _dtype(dtype)
        storage = self.run.session.allocate(self.run.kit.unwritten(extent), dtype.volta)
        return SymTensor(storage, 0, size, stride, self.run.session)

    def arange(self, start, end=None, step=1, *, dtype=None, **_ignored):
        if end is None:
            start, end = 0, start
        if step == 0:
            raise TorchError("step must be nonzero")
        count = max(0, math.ceil((Fraction(end) - Fraction(start)) / Fraction(step)))
        integral = all(isinstance(v, (int, np.integer)) for v in (start, end, step))
        dtype = _dtype(dtype, D.int64 if integral else D.DEFAULT_FLOAT)
        numbers = [Fraction(start) + i * Fraction(step) for i in range(count)]
        return self.tensor_from_numbers(numbers, dtype, (count,))

    def linspace(self, start, end, steps, *, dtype=None, **_ignored):
        dtype = _dtype(dtype)
        if steps == 1:
            numbers = [start]
        else:
            step = (float(end) - float(start)) / (steps - 1)
            half = steps // 2      # torch fills the second half from the end, as its kernel does
            numbers = [start + i * step if i < half else end - (steps - 1 - i) * step for i in range(steps)]
        return self.tensor_from_numbers(numbers, dtype, (steps,))

    def eye(self, n, m=None, *, dtype=None, **_ignored):
        m = n if m is None else m
        return self.tensor_from_numbers(np.eye(n, m).reshape(-1).tolist(), _dtype(dtype), (n, m))

    def tensor_from_numbers(self, numbers, dtype: DType, shape) -> SymTensor:
        kit = self.run.kit
        values = np.empty(len(numbers), dtype=object if kit.symbolic else np.float64)
        values[:] = [kit.scalar(v, dtype) for v in numbers] if kit.symbolic else \
            [float(kit.scalar(v, dtype)) for v in numbers]
        if not kit.symbolic and dtype is D.bool_:
            values = values != 0
        return from_array(values.reshape(shape), dtype, self.run.session)

    def tensor(self, data, *, dtype=None, device=None, requires_grad=False, **_ignored):
        if isinstance(data, SymTensor):
            return data.clone() if dtype is None else data.to(dtype)
        array = np.asarray(data)
        if array.dtype == object:
            raise unsupported("torch.tensor of tensors or mixed data")
        default = D.bool_ if array.dtype == np.bool_ else (D.DEFAULT_INT if array.dtype.kind in "iu"
                                                           else D.DEFAULT_FLOAT)
        dtype = _dtype(dtype, default)
        flat = [bool(v) if dtype is D.bool_ else v.item() for v in array.reshape(-1)]
        return self.tensor_from_numbers(flat, dtype, array.shape)

    def as_tensor(self, data, dtype=None, device=None):
        if isinstance(data, SymTensor):
            return data if dtype is None or dtype is data.dtype else data.to(dtype)
        return self.tensor(data, dtype=dtype)

    def scalar_tensor(self, value, *, dtype=None, **_ignored):
        return self.full((), value, dtype=_dtype(dtype))

    # ------------------------------------------------------------ like
    def zeros_like(self, input, *, dtype=None, **_ignored):
        return self.full(input.shape, 0, dtype=dtype or input.dtype)

    def ones_like(self, input, *, dtype=None, **_ignored):
        return self.full(input.shape, 1, dtype=dtype or input.dtype)

    def full_like(self, input, fill_value, *, dtype=None, **_ignored):
        return self.full(input.shape, fill_value, dtype=dtype or input.dtype)

    def empty_like(self, input, *, dtype=None, **_ignored):
        return self.empty(input.shape, dtype=dtype or input.dtype)

    # ------------------------------------------------------------ random
    def rand(self, *size, dtype=None, generator=None, **_ignored):
        return self.run.source(_shape(size), _dtype(dtype), "rand", what="torch.rand")

    def randn(self, *size, dtype=None, generator=None, **_ignored):
        return self.run.source(_shape(size), _dtype(dtype), "randn", what="torch.randn")

    def randint(self, low, high=None, size=None, *, dtype=None, generator=None, **_ignored):
        if size is None:
            low, high, size = 0, low, high
        if high <= low:
            raise TorchError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
        return self.run.source(_shape((size,)), _dtype(dtype, D.int64), "randint", (int(low), int(high) - 1),
                               what="torch.randint")

    def rand_like(self, input, *, dtype=None, **_ignored):
        return self.rand(input.shape, dtype=dtype or input.dtype)

    def randn_like(self, input, *, dtype=None, **_ignored):
        return self.randn(input.shape, dtype=dtype or input.dtype)

    def randint_like(self, input, low, high=None, *, dtype=None, **_ignored):
        if high is None:
            low, high = 0, low
        return self.randint(low, high, input.shape, dtype=dtype or input.dtype)

    def bernoulli(self, input, p=None, **_ignored):
        raise unsupported("torch.bernoulli", "random numbers are not modelled")

    def randperm(self, n, **_ignored):
        raise unsupported("torch.randperm", "a random permutation's shape of positions is not modelled")

    def functions(self) -> dict:
        names = ("full", "zeros", "ones", "empty", "empty_strided", "arange", "linspace", "eye", "tensor",
                 "as_tensor", "scalar_tensor", "zeros_like", "ones_like", "full_like", "empty_like", "rand",
                 "randn", "randint", "rand_like", "randn_like", "randint_like", "bernoulli", "randperm")
        table = {name: getattr(self, name) for name in names}
        table["from_numpy"] = self.as_tensor
        table["range"] = lambda start, end, step=1, **k: self.arange(start, end + step, step, **k)
        return table


def _new_factory(kind: str):
    """Tensor.new_zeros/new_ones/new_full/new_empty/new_tensor: same session and dtype as self."""
    def make(self, *args, dtype=None, **_ignored):
        factories = Factories(Run(self.session))
        dtype = dtype or self.dtype
        if kind == "full":
            size, value = args
            return factories.full(size, value, dtype=dtype)
        if kind == "tensor":
            return factories.tensor(args[0], dtype=dtype)
        return getattr(factories, kind)(*args, dtype=dtype)
    return make


TENSOR_METHODS = {f"new_{kind}": _new_factory(kind) for kind in ("zeros", "ones", "full", "empty", "tensor")}


class TensorType(type):
    """The metaclass of the stand-in's `torch.Tensor` (`tensor_class`): every stand-in tensor is an instance
    and SymTensor a subclass, as `isinstance(t, torch.Tensor)` and `issubclass` expect, and calling the class
    itself is the legacy constructor of its run. A candidate's subclass of it is an ordinary class."""

    def __instancecheck__(cls, obj) -> bool:
        return isinstance(obj, SymTensor) if "legacy" in vars(cls) else super().__instancecheck__(obj)

    def __subclasscheck__(cls, sub) -> bool:
        if "legacy" in vars(cls):
            return isinstance(sub, type) and issubclass(sub, SymTensor)
        return super().__subclasscheck__(sub)

    def __setattr__(cls, name, value) -> None:
        """`torch.Tensor.relu = f` changes every tensor, as in torch (the run's class holds no methods)."""
        super().__setattr__(name, value) if "legacy" not in vars(cls) else setattr(SymTensor, name, value)

    def __delattr__(cls, name) -> None:
        super().__delattr__(name) if "legacy" not in vars(cls) else delattr(SymTensor, name)

    def __call__(cls, *args, **kwargs):
        legacy = vars(cls).get("legacy")
        return legacy(*args, **kwargs) if legacy is not None else super().__call__(*args, **kwargs)


def tensor_class(factories: Factories) -> type:
    """`torch.Tensor` for one run: a SymTensor subclass whose call is `factories.legacy`."""
    return TensorType("Tensor", (SymTensor,), {"legacy": staticmethod(factories.legacy),
                                               "__module__": "torch", "__qualname__": "Tensor"})
