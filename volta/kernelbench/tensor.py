"""Symbolic tensors with torch's storage and view semantics.

A `Storage` is a flat 1-D numpy array of element values: Volta expressions (`volta.symbolic.expr`) in a
symbolic run — `E.var(name, i)` leaves for inputs and parameters, constants, and what ops build from them —
or float64/bool values in the dry run that chooses sizes (`elements.FloatKit`). An element never written
(`torch.empty`) holds `UNWRITTEN`.

A `SymTensor` is (storage, element offset, shape, strides in elements) as in torch: views (`view`/
`reshape` of viewable shapes, `transpose`, `permute`, slicing, `expand`, `unsqueeze`, ...) share the
storage; in-place writes (`x[...] = v`, `copy_`, `add_`, `out=`) write the storage, so every view sees
them; `contiguous()` copies only when the layout is not contiguous; `data_ptr()` is the storage's
address plus the offset. Everything that computes new values (arithmetic, reductions, nn ops) lives in
`torchsym` and reaches a tensor through its session's method table, so this module knows layouts, not
math.

For kernel outputs and other tensors whose storage another component fills: `tensor_on_storage`.
"""
from __future__ import annotations

import math
import weakref
from dataclasses import dataclass, field
from typing import Callable, Mapping

import numpy as np

from volta.kernelbench import dtypes as D
from volta.kernelbench.dtypes import DType
from volta.kernelbench.elements import UNWRITTEN, FloatKit, SymbolicKit
from volta.kernelbench.streams import MAIN, caller_line
from volta.kernelbench.failures import TorchError, unsupported

__all__ = ["Size", "Storage", "Session", "SymTensor", "UNWRITTEN", "tensor_on_storage", "from_array",
           "contiguous_strides"]


class Size(tuple):
    """torch.Size: a tuple of ints with numel()."""

    def numel(self) -> int:
        return math.prod(self)

    def __repr__(self) -> str:
        return f"torch.Size({list(self)})"

    def __getitem__(self, item):
        out = super().__getitem__(item)
        return Size(out) if isinstance(item, slice) else out


@dataclass(eq=False)
class Storage:
    """Flat element values of one allocation. `name` labels it (an input or parameter name, or a kernel
    buffer); `address` is a fake device address, unique within a session, for `data_ptr()`."""

    values: np.ndarray
    dtype: str                  # Volta dtype name: f32 f16 bf16 f64 s8 u8 s16 s32 s64 bool
    name: str = ""
    address: int = 0

    @property
    def size(self) -> int:
        return int(self.values.shape[0])


@dataclass(eq=False)
class Session:
    """What every tensor of one run shares: the element kit (symbolic or float), the method table that
    gives tensors their torch methods, and the allocator of fake addresses."""

    kit: SymbolicKit | FloatKit
    methods: Mapping[str, Callable] = field(default_factory=dict)
    next_address: int = 1 << 32
    run: object = None          # the torchsym Run using this session (for methods that draw random values)
    live: weakref.WeakSet = field(default_factory=weakref.WeakSet)   # every storage still referenced (graphs)
    precision: object = None    # torchsym.switches.Precision of the check: formats, switches, candidate's events

    def allocate(self, values: np.ndarray, dtype: str, name: str = "") -> Storage:
        streams = getattr(self.run, "streams", None)
        if streams is not None and streams.current != MAIN and values.shape[0] and values[0] is not UNWRITTEN:
            streams.enqueue(streams.current, "a torch op", *caller_line())   # work on a side stream
        if self.precision is not None:
            values = self.precision.made(dtype, values)
        address = self.next_address
        self.next_address += max(256, -(-values.shape[0] * D.BY_VOLTA[dtype].itemsize // 256) * 256)
        storage = Storage(values, dtype, name, address)
        self.live.add(storage)
        return storage


def contiguous_strides(shape) -> tuple:
    strides, step = [], 1
    for n in reversed(shape):
        strides.append(step)
        step *= max(n, 1)
    return tuple(reversed(strides))


def _dim(d: int, ndim: int) -> int:
    """A dimension index with negatives counted from the end, checked like torch."""
    n = max(ndim, 1)
    if not -n <= d < n:
        raise TorchError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {d})")
    return d % n


def _shape_args(args) -> tuple:
    """`f(2, 3)`, `f((2, 3))`, `f([2, 3])` and `f(torch.Size(...))` all mean the shape (2, 3)."""
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        args = tuple(args[0])
    return tuple(int(a) for a in args)


def _infer(shape: tuple, numel: int) -> tuple:
    """A view shape with at most one -1 filled in."""
    if shape.count(-1) > 1:
        raise TorchError("only one dimension can be inferred")
    if -1 in shape:
        rest = math.prod(s for s in shape if s != -1)
        if rest == 0 or numel % rest:
            raise TorchError(f"shape '{list(shape)}' is invalid for input of size {numel}")
        shape = tuple(numel // rest if s == -1 else s for s in shape)
    if math.prod(shape) != numel:
        raise TorchError(f"shape '{list(shape)}' is invalid for input of size {numel}")
    return shape


def _view_strides(old_shape: tuple, old_strides: tuple, new_shape: tuple) -> tuple | None:
    """Strides that show `old` as `new` without copying, or None (torch's computeStride)."""
    if math.prod(old_shape) == 0 or not old_shape:
        return contiguous_strides(new_shape)
    new_strides = [0] * len(new_shape)
    view_d = len(new_shape) - 1
    chunk_base = old_strides[-1]
    tensor_numel = view_numel = 1
    for tensor_d in range(len(old_shape) - 1, -1, -1):
        tensor_numel *= old_shape[tensor_d]
        if tensor_d == 0 or (old_shape[tensor_d - 1] != 1
                             and old_strides[tensor_d - 1] != tensor_numel * chunk_base):
            while view_d >= 0 and (view_numel < tensor_numel or new_shape[view_d] == 1):
                new_strides[view_d] = view_numel * chunk_base
                view_numel *= new_shape[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if tensor_d > 0:
                chunk_base = old_strides[tensor_d - 1]
                tensor_numel = view_numel = 1
    return tuple(new_strides) if view_d == -1 else None


class SymTensor:
    """A view of a Storage: element offset, shape and strides (in elements), as torch lays tensors out."""

    __array_ufunc__ = None          # numpy scalars defer to our operators instead of converting us

    def __init__(self, storage: Storage, offset: int, shape, strides, session: Session):
        self.storage = storage
        self.offset = int(offset)
        self._shape = Size(int(s) for s in shape)
        self._strides = tuple(int(s) for s in strides)
        self.session = session
        self.requires_grad = False

    # ------------------------------------------------------------ metadata
    @property
    def shape(self) -> Size:
        return self._shape

    @property
    def dtype(self) -> DType:
        return D.BY_VOLTA[self.storage.dtype]

    @property
    def ndim(self) -> int:
        return len(self._shape)

    @property
    def device(self):
        return self.session.methods["device"]

    is_cuda = True
    is_leaf = True
    grad = None
    is_sparse = False
    is_quantized = False

    def size(self, dim: int | None = None):
        return self._shape if dim is None else self._shape[_dim(dim, self.ndim)]

    def dim(self) -> int:
        return self.ndim

    def ndimension(self) -> int:
        return self.ndim

    def numel(self) -> int:
        return self._shape.numel()

    nelement = numel

    def stride(self, dim: int | None = None):
        return self._strides if dim is None else self._strides[_dim(dim, self.ndim)]

    def storage_offset(self) -> int:
        return self.offset

    def element_size(self) -> int:
        return self.dtype.itemsize

    def data_ptr(self) -> int:
        return self.storage.address + self.offset * self.dtype.itemsize

    def is_contiguous(self, memory_format=None) -> bool:
        if self.numel() == 0:
            return True
        expected = 1
        for n, s in zip(reversed(self._shape), reversed(self._strides)):
            if n != 1 and s != expected:
                return False
            expected *= n
        return True

    def __len__(self) -> int:
        if not self._shape:
            raise TypeError("len() of a 0-d tensor")
        return self._shape[0]

    def __repr__(self) -> str:
        return f"SymTensor(shape={list(self._shape)}, dtype={self.dtype!r}, storage={self.storage.name!r})"

    # ------------------------------------------------------------ element access
    def array(self) -> np.ndarray:
        """The elements as an ndarray of this tensor's shape that shares the storage (writes go through)."""
        values = self.storage.values
        item = values.itemsize
        base = values[self.offset:] if self.offset < values.shape[0] else values[:0]
        if self.numel() == 0:
            return np.empty(self._shape, dtype=values.dtype)
        return np.lib.stride_tricks.as_strided(base, self._shape, tuple(s * item for s in self._strides))

    def values(self) -> np.ndarray:
        """The elements in row-major order, as a new flat array."""
        return np.array(self.array(), copy=True).reshape(-1)

    def write(self, values) -> None:
        """Write values (broadcast to this shape) into the storage through this view."""
        target = self.array()
        if self.session.precision is not None:
            values = self.session.precision.made(self.storage.dtype, values)
        target[...] = np.broadcast_to(values, self._shape)

    # ------------------------------------------------------------ views
    def _view(self, shape, strides, offset: int | None = None) -> "SymTensor":
        return SymTensor(self.storage, self.offset if offset is None else offset, shape, strides, self.session)

    def as_strided(self, size, stride, storage_offset: int | None = None) -> "SymTensor":
        return self._view(tuple(size), tuple(stride), storage_offset)

    def view(self, *shape) -> "SymTensor":
        if len(shape) == 1 and isinstance(shape[0], DType):
            if shape[0] is self.dtype:
                return self._view(self._shape, self._strides)
            raise unsupported("Tensor.view(dtype)", "reinterpreting element bits is not modelled over the reals")
        shape = _infer(_shape_args(shape), self.numel())
        strides = _view_strides(self._shape, self._strides, shape)
        if strides is None:
            raise TorchError("view size is not compatible with input tensor's size and stride (at least one "
                             "dimension spans across two contiguous subspaces). Use .reshape(...) instead.")
        return self._view(shape, strides)

    def reshape(self, *shape) -> "SymTensor":
        shape = _infer(_shape_args(shape), self.numel())
        strides = _view_strides(self._shape, self._strides, shape)
        if strides is None:
            return self.contiguous().view(shape)
        return self._view(shape, strides)

    def view_as(self, other: "SymTensor") -> "SymTensor":
        return self.view(other.shape)

    def reshape_as(self, other: "SymTensor") -> "SymTensor":
        return self.reshape(other.shape)

    def contiguous(self, memory_format=None) -> "SymTensor":
        return self if self.is_contiguous() else self.clone()

    def clone(self, memory_format=None) -> "SymTensor":
        return from_array(self.array(), self.dtype, self.session)

    def detach(self) -> "SymTensor":
        return self._view(self._shape, self._strides)

    @property
    def data(self) -> "SymTensor":
        return self.detach()

    def requires_grad_(self, flag: bool = True) -> "SymTensor":
        self.requires_grad = flag
        return self

    def permute(self, *dims) -> "SymTensor":
        dims = tuple(_dim(d, self.ndim) for d in _shape_args(dims))
        if sorted(dims) != list(range(self.ndim)):
            raise TorchError(f"permute: dims {list(dims)} are not a permutation of {self.ndim} dimensions")
        return self._view([self._shape[d] for d in dims], [self._strides[d] for d in dims])

    def transpose(self, d0: int, d1: int) -> "SymTensor":
        if self.ndim == 0:
            return self._view((), ())
        order = list(range(self.ndim))
        a, b = _dim(d0, self.ndim), _dim(d1, self.ndim)
        order[a], order[b] = order[b], order[a]
        return self.permute(order)

    swapaxes = swapdims = transpose

    def t(self) -> "SymTensor":
        if self.ndim > 2:
            raise TorchError(f"t() expects a tensor with <= 2 dimensions, but self is {self.ndim}D")
        return self.transpose(0, 1) if self.ndim == 2 else self._view(self._shape, self._strides)

    @property
    def T(self) -> "SymTensor":
        return self.permute(tuple(reversed(range(self.ndim))))

    @property
    def mT(self) -> "SymTensor":
        return self.transpose(-2, -1)

    def expand(self, *sizes) -> "SymTensor":
        sizes = _shape_args(sizes)
        if len(sizes) < self.ndim:
            raise TorchError(f"expand: the number of sizes provided ({len(sizes)}) must be greater or equal to "
                             f"the number of dimensions in the tensor ({self.ndim})")
        lead = len(sizes) - self.ndim
        shape, strides = [], []
        for i, n in enumerate(sizes):
            if i < lead:
                if n < 0:
                    raise TorchError("expand: -1 is not allowed in a leading, non-existing dimension")
                shape.append(n)
                strides.append(0)
                continue
            have, stride = self._shape[i - lead], self._strides[i - lead]
            if n == -1 or n == have:
                shape.append(have)
                strides.append(stride)
            elif have == 1:
                shape.append(n)
                strides.append(0)
            else:
                raise TorchError(f"The expanded size of the tensor ({n}) must match the existing size ({have}) "
                                 f"at non-singleton dimension {i}")
        return self._view(shape, strides)

    def expand_as(self, other: "SymTensor") -> "SymTensor":
        return self.expand(other.shape)

    def broadcast_to(self, *shape) -> "SymTensor":
        return self.expand(*shape)

    def unsqueeze(self, dim: int) -> "SymTensor":
        d = _dim(dim, self.ndim + 1)
        stride = self._strides[d] * self._shape[d] if d < self.ndim else 1
        return self._view(self._shape[:d] + (1,) + self._shape[d:], self._strides[:d] + (stride,) + self._strides[d:])

    def squeeze(self, dim=None) -> "SymTensor":
        if dim is None:
            dims = {d for d, n in enumerate(self._shape) if n == 1}
        else:
            dims = {_dim(d, self.ndim) for d in (dim if isinstance(dim, (tuple, list)) else (dim,))}
            dims = {d for d in dims if self.ndim and self._shape[d] == 1}
        keep = [d for d in range(self.ndim) if d not in dims]
        return self._view([self._shape[d] for d in keep], [self._strides[d] for d in keep])

    def flatten(self, start_dim: int = 0, end_dim: int = -1) -> "SymTensor":
        if self.ndim == 0:
            return self.reshape(1)
        a, b = _dim(start_dim, self.ndim), _dim(end_dim, self.ndim)
        if a > b:
            raise TorchError("flatten() has invalid args: start_dim cannot come after end_dim")
        return self.reshape(self._shape[:a] + (math.prod(self._shape[a:b + 1]),) + self._shape[b + 1:])

    def unflatten(self, dim: int, sizes) -> "SymTensor":
        d = _dim(dim, self.ndim)
        inner = _infer(tuple(sizes), self._shape[d])
        return self.view(self._shape[:d] + inner + self._shape[d + 1:])

    def narrow(self, dim: int, start: int, length: int) -> "SymTensor":
        d = _dim(dim, self.ndim)
        start = int(start) + (self._shape[d] if start < 0 else 0)
        if start < 0 or length < 0 or start + length > self._shape[d]:
            raise TorchError(f"narrow: start ({start}) + length ({length}) exceeds dimension size "
                             f"({self._shape[d]})")
        shape = list(self._shape)
        shape[d] = length
        return self._view(shape, self._strides, self.offset + start * self._strides[d])

    def select(self, dim: int, index: int) -> "SymTensor":
        d = _dim(dim, self.ndim)
        n = self._shape[d]
        if not -n <= index < n:
            raise IndexError(f"select(): index {index} out of range for tensor of size {list(self._shape)} "
                             f"at dimension {d}")
        index %= n
        return self._view(self._shape[:d] + self._shape[d + 1:], self._strides[:d] + self._strides[d + 1:],
                          self.offset + index * self._strides[d])

    def unbind(self, dim: int = 0) -> tuple:
        d = _dim(dim, self.ndim)
        return tuple(self.select(d, i) for i in range(self._shape[d]))

    def split(self, split_size, dim: int = 0) -> tuple:
        d = _dim(dim, self.ndim)
        n = self._shape[d]
        if isinstance(split_size, (list, tuple)):
            sizes = list(split_size)
            if sum(sizes) != n:
                raise TorchError(f"split_with_sizes expects split_sizes to sum exactly to {n}")
        else:
            step = max(int(split_size), 1)
            sizes = [min(step, n - i) for i in range(0, n, step)] or [0]
        out, start = [], 0
        for s in sizes:
            out.append(self.narrow(d, start, s))
            start += s
        return tuple(out)

    def chunk(self, chunks: int, dim: int = 0) -> tuple:
        n = self._shape[_dim(dim, self.ndim)]
        return self.split(-(-n // chunks) if n else 1, dim)

    def unfold(self, dimension: int, size: int, step: int) -> "SymTensor":
        d = _dim(dimension, self.ndim)
        count = (self._shape[d] - size) // step + 1
        if count < 0 or size > self._shape[d]:
            raise TorchError(f"unfold: size {size} exceeds dimension {d} of size {self._shape[d]}")
        shape = self._shape[:d] + (count,) + self._shape[d + 1:] + (size,)
        strides = self._strides[:d] + (self._strides[d] * step,) + self._strides[d + 1:] + (self._strides[d],)
        return self._view(shape, strides)

    def diagonal(self, offset: int = 0, dim1: int = 0, dim2: int = 1) -> "SymTensor":
        a, b = _dim(dim1, self.ndim), _dim(dim2, self.ndim)
        n = max(0, min(self._shape[a] - max(-offset, 0), self._shape[b] - max(offset, 0)))
        start = self.offset + (offset * self._strides[b] if offset >= 0 else -offset * self._strides[a])
        keep = [d for d in range(self.ndim) if d not in (a, b)]
        return self._view([self._shape[d] for d in keep] + [n],
                          [self._strides[d] for d in keep] + [self._strides[a] + self._strides[b]], start)

    # ------------------------------------------------------------ indexing
    def __getitem__(self, key) -> "SymTensor":
        view = _basic_index(self, key)
        return view if view is not None else self.session.methods["__getitem_advanced__"](self, key)

    def __setitem__(self, key, value) -> None:
        view = _basic_index(self, key)
        if view is None:
            self.session.methods["__setitem_advanced__"](self, key, value)
        else:
            view.copy_(value)

    def copy_(self, src, non_blocking: bool = False) -> "SymTensor":
        """Write `src` (a tensor or a number, broadcast to this shape, cast to this dtype) into the storage."""
        self.write(self.session.methods["__elements_as__"](self, src))
        return self

    def fill_(self, value) -> "SymTensor":
        return self.copy_(value)

    def zero_(self) -> "SymTensor":
        return self.copy_(0)

    # ------------------------------------------------------------ everything else: the session's methods
    def __getattr__(self, name: str):
        if name.startswith("__") or name in ("session", "storage", "_shape", "_strides", "offset"):
            raise AttributeError(name)
        method = self.session.methods.get(name)
        if method is None:
            raise unsupported(f"Tensor.{name}")
        return method.__get__(self)

    def __hash__(self) -> int:
        return id(self)

    def __iter__(self):
        if not self._shape:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def __bool__(self) -> bool:
        return self.session.methods["__bool__"](self)

    def __float__(self) -> float:
        return float(self.session.methods["item"](self))

    def __int__(self) -> int:
        return int(self.session.methods["item"](self))

    def __index__(self) -> int:
        if self.dtype.is_floating_point:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.session.methods["item"](self))


def _method(name: str):
    def call(self, *args):
        return self.session.methods[name](self, *args)
    call.__name__ = name
    return call


# Python's operators look methods up on the type, so each one is a class attribute dispatching by name.
for _dunder in ("add", "radd", "sub", "rsub", "mul", "rmul", "truediv", "rtruediv", "floordiv", "rfloordiv",
                "mod", "rmod", "pow", "rpow", "matmul", "rmatmul", "neg", "pos", "abs", "invert", "and", "rand",
                "or", "ror", "xor", "rxor", "lt", "le", "gt", "ge", "eq", "ne", "iadd", "isub", "imul",
                "itruediv", "ifloordiv", "imod", "ipow", "iand", "ior", "ixor", "imatmul"):
    setattr(SymTensor, f"__{_dunder}__", _method(f"__{_dunder}__"))


def _basic_index(t: SymTensor, key) -> SymTensor | None:
    """The view `t[key]` for ints, slices, None and Ellipsis; None when the key needs advanced indexing."""
    if not isinstance(key, tuple):
        key = (key,)
    if any(isinstance(k, (SymTensor, list, np.ndarray)) or isinstance(k, bool) for k in key):
        return None
    consumed = sum(1 for k in key if k is not None and k is not Ellipsis)
    if consumed > t.ndim:
        raise IndexError(f"too many indices for tensor of dimension {t.ndim}")
    if key.count(Ellipsis) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if Ellipsis in key:
        at = key.index(Ellipsis)
        key = key[:at] + (slice(None),) * (t.ndim - consumed) + key[at + 1:]
    shape, strides, offset, d = [], [], t.offset, 0
    for k in key:
        if k is None:
            shape.append(1)
            strides.append(t._strides[d] * t._shape[d] if d < t.ndim else 1)
            continue
        n, s = t._shape[d], t._strides[d]
        if isinstance(k, slice):
            start, stop, step = k.indices(n)
            if step <= 0:
                raise TorchError("step must be greater than zero")
            length = len(range(start, stop, step))
            offset += start * s
            shape.append(length)
            strides.append(s * step)
        else:
            i = int(k)
            if not -n <= i < n:
                raise IndexError(f"index {i} is out of bounds for dimension {d} with size {n}")
            offset += (i % n) * s
        d += 1
    shape += t._shape[d:]
    strides += t._strides[d:]
    return SymTensor(t.storage, offset, shape, strides, t.session)


def from_array(values: np.ndarray, dtype: DType, session: Session, name: str = "") -> SymTensor:
    """A new contiguous tensor holding a copy of `values` (an ndarray of element values, any shape)."""
    values = np.asarray(values)
    flat = np.array(values, dtype=values.dtype, copy=True).reshape(-1)
    storage = session.allocate(flat, dtype.volta, name)
    return SymTensor(storage, 0, values.shape, contiguous_strides(values.shape), session)


def tensor_on_storage(storage: Storage, shape, session: Session, strides=None, offset: int = 0) -> SymTensor:
    """A tensor over a given storage (a kernel's output buffer, say): row-major unless strides are given.
    The storage is shared, not copied; its `values` must be a 1-D array of element values of the session's
    kind (object arrays of expressions in a symbolic run)."""
    shape = tuple(int(s) for s in shape)
    strides = contiguous_strides(shape) if strides is None else tuple(strides)
    if shape and math.prod(shape) and offset + sum((n - 1) * s for n, s in zip(shape, strides)) >= storage.size:
        raise ValueError(f"a {list(shape)} view at offset {offset} exceeds a storage of {storage.size} elements")
    return SymTensor(storage, offset, shape, strides, session)
