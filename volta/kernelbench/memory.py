"""Device memory of a candidate run: fake device addresses mapped to storages, and the byte-level operations
host code asks for (cudaMemset, device-to-device copies, uploads of host data) applied to element values.

Every tensor's storage gets a fake address in its own 4 GiB slot (the parent's storages from `PARENT_BASE`,
allocations made by host code from `RUNTIME_BASE`, as `host/runtime/runtime.h` lays them out), so an address
in a launch's argument bytes names one storage and a byte offset into it. Element values are what the stand-in
torch keeps (`Storage.values`: Volta expressions, `UNWRITTEN` where nothing wrote); byte operations are
modelled only where they move whole elements (a memset of a byte pattern that is one value per element, a copy
between storages of one dtype), and refused (UNSUPPORTED) where they would reinterpret bits.
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np

from volta.errors import Unsupported
from volta.symbolic import expr as E

PARENT_BASE = 0x1000_0000_0000_0000
RUNTIME_BASE = 0x2000_0000_0000_0000
SLOT_SHIFT = 32

ITEMSIZE = {"f32": 4, "f16": 2, "bf16": 2, "f64": 8, "s8": 1, "u8": 1, "s16": 2, "s32": 4, "s64": 8, "bool": 1}
TORCH_TO_VOLTA = {"float32": "f32", "float16": "f16", "bfloat16": "bf16", "float64": "f64", "int8": "s8",
                  "uint8": "u8", "int16": "s16", "int32": "s32", "int64": "s64", "bool": "bool"}
VOLTA_TO_TORCH = {v: k for k, v in TORCH_TO_VOLTA.items()}
_NUMPY = {"f32": np.float32, "f16": np.float16, "f64": np.float64, "s8": np.int8, "u8": np.uint8,
          "s16": np.int16, "s32": np.int32, "s64": np.int64, "bool": np.uint8}


class DeviceMemory:
    """Storages by fake address, and a name for each (the buffer name its launches use).

    Storages are known by `id`; an id names one object only while that object lives, so the memory holds every
    storage it ever knew (`_held`): a storage replaced at its base and dropped by everyone else cannot hand its
    id, and with it its base and name, to a later storage (a replay's launch found its buffer under an old name)."""

    def __init__(self):
        self.by_base: dict = {}        # base -> storage
        self._base: dict = {}          # id(storage) -> base
        self._names: dict = {}         # id(storage) -> buffer name
        self._held: dict = {}          # id(storage) -> storage: alive as long as the memory, so its id stays its own
        self._parent_slots = 0
        self.freed: set = set()

    def address(self, storage) -> int:
        """The fake device address of a storage the parent made (assigned on first use)."""
        base = self._base.get(id(storage))
        if base is None:
            base = PARENT_BASE + (self._parent_slots << SLOT_SHIFT)
            self._parent_slots += 1
            self.add(base, storage)
        return base

    def add(self, base: int, storage, label: str | None = None) -> None:
        self.by_base[base] = storage
        self._held[id(storage)] = storage
        self._base[id(storage)] = base
        if label is not None:
            self._names[id(storage)] = label

    def locate(self, address: int):
        """(storage, byte offset) of an address inside a known storage's slot, or None."""
        base = address & ~((1 << SLOT_SHIFT) - 1)
        storage = self.by_base.get(base)
        if storage is None:
            return None
        return storage, address - base

    def changed(self, since: dict) -> list:
        """Every storage whose dtype or elements (as objects) are not what `since` (base -> (dtype, elements))
        holds for its base, as plain data (base, dtype, label or None, elements); `since` is brought up to date.
        A replay elsewhere keeps its memory in step with `overlay` (`isolation/replay.py`)."""
        out = []
        for base, s in self.by_base.items():
            old = since.get(base)
            if old is None or old[0] != s.dtype or len(old[1]) != s.size or any(
                    a is not b for a, b in zip(old[1], s.values)):
                elements = list(s.values)
                since[base] = (s.dtype, elements)
                out.append((base, s.dtype, self._names.get(id(s)), elements))
        return out

    def overlay(self, state: list, allocate) -> None:
        """The storages of `state` (`changed`) put in at their bases, each made by `allocate(values, dtype)`."""
        for base, dtype, label, elements in state:
            values = np.empty(len(elements), object)
            values[:] = elements
            self.add(base, allocate(values, dtype), label)

    def name(self, storage) -> str:
        """The buffer name for a storage in launches and findings: the name of the input leaves it still
        holds (an input's, a parameter's, or a copy's of one), else its own name or `tensor#k`, made unique."""
        name = self._names.get(id(storage))
        if name is None:
            own = leaf_name(storage) or getattr(storage, "name", "") or ""
            taken = set(self._names.values())
            name = own if own and own not in taken else f"{own or 'tensor'}#{len(self._names)}"
            self._held[id(storage)] = storage
            self._names[id(storage)] = name
        return name


def leaf_name(storage) -> str | None:
    """n when every element is still the input leaf E.var(n, i) (a pristine input, parameter or copy)."""
    values = storage.values
    if storage.size == 0:
        return None
    first = values[0]
    if not (isinstance(first, E.Expr) and first.op is E.VAR and first.data[1] == 0):
        return None
    name = first.data[0]
    for i in range(storage.size):
        v = values[i]
        if not (isinstance(v, E.Expr) and v.op is E.VAR and v.data == (name, i)):
            return None
    return name


def itemsize(storage) -> int:
    return ITEMSIZE[storage.dtype]


def constant(value: Fraction | int, dtype: str):
    """An element value for a number: an exact constant (integers for integer dtypes)."""
    return E.const(Fraction(value))


def decode(data: bytes, dtype: str) -> list:
    """Little-endian element bytes as element values (exact constants); NaN/inf have no real value."""
    if dtype == "bf16":
        words = np.frombuffer(data, np.uint16).astype(np.uint32) << 16
        numbers = words.view(np.float32).astype(np.float64)
    else:
        numbers = np.frombuffer(data, _NUMPY[dtype])
    out = []
    for v in numbers.tolist():
        if isinstance(v, float) and not np.isfinite(v):
            raise Unsupported(f"host code wrote {v} into a {VOLTA_TO_TORCH[dtype]} tensor's bytes; infinities and "
                              f"NaN have no real value (Volta compares over the reals)")
        out.append(constant(Fraction(v), dtype))
    return out


def _elements(memory: DeviceMemory, address: int, nbytes: int, what: str):
    """(storage, first element, count) for a byte range that covers whole elements of one storage."""
    found = memory.locate(address)
    if found is None:
        raise Unsupported(f"{what} at address {address:#x}, which is in no tensor or allocation this run knows")
    storage, offset = found
    size = itemsize(storage)
    if offset % size or nbytes % size:
        raise Unsupported(f"{what} of bytes {offset}..{offset + nbytes} of `{memory.name(storage)}` "
                          f"({VOLTA_TO_TORCH[storage.dtype]}) covers part of an element; only whole elements "
                          f"are modelled")
    first, count = offset // size, nbytes // size
    if first + count > storage.size:
        raise Unsupported(f"{what} of {nbytes} bytes at byte {offset} of `{memory.name(storage)}` runs past its "
                          f"{storage.size * size} bytes (out of bounds on a GPU)")
    return storage, first, count


def memset(memory: DeviceMemory, dst: int, value: int, nbytes: int) -> None:
    storage, first, count = _elements(memory, dst, nbytes, "cudaMemset")
    element = decode(bytes([value]) * itemsize(storage), storage.dtype)[0]
    storage.values[first:first + count] = [element] * count


def upload(memory: DeviceMemory, dst: int, data: bytes) -> None:
    storage, first, count = _elements(memory, dst, len(data), "a copy from the host")
    storage.values[first:first + count] = decode(data, storage.dtype)


def copy(memory: DeviceMemory, dst: int, src: int, nbytes: int) -> None:
    d, df, count = _elements(memory, dst, nbytes, "a device-to-device copy")
    s, sf, _ = _elements(memory, src, nbytes, "a device-to-device copy")
    if d.dtype != s.dtype:
        raise Unsupported(f"a device-to-device copy from `{memory.name(s)}` ({VOLTA_TO_TORCH[s.dtype]}) to "
                          f"`{memory.name(d)}` ({VOLTA_TO_TORCH[d.dtype]}) reinterprets bits, which is not modelled")
    d.values[df:df + count] = s.values[sf:sf + count].copy()
