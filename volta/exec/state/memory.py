"""Memory of one launch: every buffer and variable is its own region with its own bounds.

Regions sit far apart in each state space's address range, so an index that runs past one
array lands in no region and is reported as out of bounds with the array's name, instead of
silently reading its neighbour. Shared regions also get distinct, 1024-byte aligned places in the low
18 bits of their addresses (`Region.low`), as variables have in a CTA's shared window: a wgmma matrix
descriptor keeps only those bits (PTX ISA §9.7.15.5.1.2.2, `(addr & 0x3FFFF) >> 4`), and they say
which variable it names (`Memory.shared_at`) and where the swizzle patterns of §9.7.15.5.1.2 start. Storage is bytes; loads/stores use typed views (aligned).
Memory holds values and knows nothing of threads: race tracking lives in `shadow.py`.

Memory follows what a launch touches, not what it declares: byte arrays start as zero pages (the
kernel maps them on first write), and an array whose empty value is not zero (the expression stored
at each offset, None when concrete) is a `PagedArray` allocated a page at a time.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

REGION_SHIFT = {".global": 40, ".shared": 24, ".local": 24, ".param": 24, ".const": 40}
SHARED_WINDOW = 1 << 18  # the address bits a wgmma matrix descriptor keeps (matrix-descriptor-encode)
SHARED_ALIGN = 1024  # shared regions start at this alignment in the window (the 128-byte swizzle's repeat)
GENERIC_SHARED = 1 << 56  # generic address of shared-window offset 0
GENERIC_LOCAL = 1 << 57
GENERIC_PARAM = 1 << 58
KERNEL_PARAM_BASE = 1 << 59  # kernel parameters are addressable read-only in the param space


@dataclass
class Region:
    rid: int
    name: str
    space: str  # '.global', '.shared', '.local', '.param', '.const'
    size: int  # bytes
    copies: int  # 1 (global/const), number of CTAs (shared), number of threads (local/param)
    data: np.ndarray = field(repr=False, default=None)
    written: np.ndarray = field(repr=False, default=None)  # per byte, for uninitialized reads
    role: str = "inout"
    dtype: str | None = None
    shadow: object = field(repr=False, default=None)
    flags: np.ndarray = field(repr=False, default=None)  # per byte: DATA/UNDEF of stored values
    sym: np.ndarray = field(repr=False, default=None)  # symbolic mode: expression stored at each offset
    symsize: np.ndarray = field(repr=False, default=None)
    kwritten: np.ndarray = field(repr=False, default=None)  # symbolic mode: bytes the kernel wrote
    cover: np.ndarray = field(repr=False, default=None)  # symbolic mode: per byte, its part in a stored expression
    leaves: np.ndarray = field(repr=False, default=None)  # symbolic mode: input element expressions
    lsref: np.ndarray = field(repr=False, default=None)   # symbolic mode: LaneSym stored per byte (slot + 1)
    lsrow: np.ndarray = field(repr=False, default=None)   # ... and its row
    lslist: list = field(repr=False, default=None)        # ... the stored LaneSyms
    stored: bool = False  # some instruction of the launch wrote it (a module variable's bytes became data)
    read_only: bool = False  # no instruction of the launch can write it (volta/ir/written.py): reads never race
    low: int = 0  # shared regions: where the region starts in the CTA's shared window (the address's low bits)
    zero_start: bool = False  # an out buffer started at zero (--out-init zeros): `written` says what a read saw
    formats_made: frozenset | None = None  # 16-bit float formats launches so far made (None: not known)

    def __post_init__(self):
        padded = max(16, (self.size + 15) // 16 * 16)
        if self.data is None:
            self.data = np.zeros((self.copies, padded), dtype=np.uint8)
        if self.space in (".shared", ".local"):
            self.written = np.zeros((self.copies, padded), dtype=bool)

    @property
    def base(self) -> int:
        return (self.rid << REGION_SHIFT[self.space]) | self.low

    def flat(self) -> np.ndarray:
        return self.data.reshape(-1)


class PagedArray:
    """A (copies, stride) array of `fill` that allocates PAGE-element pages on first write, for the
    indexing forms regions use: `a[rows, offs]` with ints or arrays (read and write), `a.shape`, and
    `get`/`put` by flat index. Pages live side by side in one compact array, so a batch is one gather."""

    def __init__(self, shape: tuple, dtype=object, fill=None, page_shift: int = 10):
        self.shape, self.dtype, self.fill, self.shift = tuple(shape), np.dtype(dtype), fill, page_shift
        self.table = np.zeros(-(-self.shape[0] * self.shape[1] >> page_shift) + 1, np.int32)  # slot + 1
        self.used = 0
        self.data = np.full(0, fill, self.dtype)

    def get(self, flat: np.ndarray) -> np.ndarray:
        slot = self.table[flat >> self.shift].astype(np.int64) - 1
        out = np.full(flat.shape, self.fill, self.dtype)
        live = slot >= 0
        if live.any():
            out[live] = self.data[(slot[live] << self.shift) + (flat[live] & ((1 << self.shift) - 1))]
        return out

    def put(self, flat: np.ndarray, values) -> None:
        page = flat >> self.shift
        slot = self.table[page]
        if not slot.all():
            new = np.unique(page[slot == 0])
            need = (self.used + new.size) << self.shift
            if need > self.data.size:  # grow by doubling
                grown = np.full(max(need, 2 * self.data.size), self.fill, self.dtype)
                grown[: self.data.size] = self.data
                self.data = grown
            self.table[new] = self.used + 1 + np.arange(new.size)
            self.used += new.size
            slot = self.table[page]
        self.data[((slot.astype(np.int64) - 1) << self.shift) + (flat & ((1 << self.shift) - 1))] = values

    def _flat(self, key) -> np.ndarray:
        rows, offs = key
        return np.asarray(rows, np.int64) * self.shape[1] + np.asarray(offs, np.int64)

    def __getitem__(self, key):
        flat = self._flat(key)
        if flat.ndim == 0:
            slot = int(self.table[int(flat) >> self.shift]) - 1
            return self.fill if slot < 0 else self.data[(slot << self.shift) + (int(flat) & ((1 << self.shift) - 1))]
        return self.get(flat)

    def __setitem__(self, key, values) -> None:
        flat = self._flat(key)
        if flat.ndim == 0:  # one element: stored as the object it is (no conversion to an array)
            self.put(flat.reshape(1), None)
            slot = int(self.table[int(flat) >> self.shift]) - 1
            self.data[(slot << self.shift) + (int(flat) & ((1 << self.shift) - 1))] = values
            return
        self.put(flat, values)


class Memory:
    def __init__(self):
        self.regions: list[Region] = [None]  # rid 0 is never valid: null pointers fault
        self.by_name: dict[str, Region] = {}
        self.shared_top = 0  # the shared window's first free byte
        self.placed: list[Region] = []  # shared regions with a place of their own in the window

    def add(self, name, space, size, copies=1, init: bytes | None = None, role="inout", dtype=None) -> Region:
        region = Region(len(self.regions), name, space, size, copies, role=role, dtype=dtype)
        if space == ".shared":
            self._place_shared(region)
        if init:
            region.data[:, : len(init)] = np.frombuffer(init, dtype=np.uint8)
            if region.written is not None:
                region.written[:, : len(init)] = True
        self.regions.append(region)
        self.by_name[name] = region
        return region

    def _place_shared(self, region: Region) -> None:
        """Give `region` the next SHARED_ALIGN-aligned place in the shared window with room for it; none (low 0,
        not in `placed`) when the window is full, which is more than a CTA can have."""
        low = -(-self.shared_top // SHARED_ALIGN) * SHARED_ALIGN
        if low + region.size <= SHARED_WINDOW:
            region.low = low
            self.shared_top = low + max(region.size, 1)
            self.placed.append(region)

    def shared_at(self, window: int):
        """The shared region whose place in the window holds byte `window` (< SHARED_WINDOW), or None."""
        for region in self.placed:
            if region.low <= window < region.low + max(region.size, 1):
                return region
        return None

    def _lows(self) -> np.ndarray:
        """Region.low per region id (launch sequences append carried regions without `add`)."""
        cached = self.__dict__.get("_lows_cache")
        if cached is None or cached.size != len(self.regions):
            cached = self._lows_cache = np.array([0] + [r.low for r in self.regions[1:]], np.int64)
        return cached

    def locate(self, space: str, addresses: np.ndarray):
        """Split addresses of one state space into (region ids, offsets)."""
        shift = REGION_SHIFT[space]
        rids = (addresses >> np.uint64(shift)).astype(np.int64)
        offsets = (addresses & np.uint64((1 << shift) - 1)).astype(np.int64)
        if space == ".shared" and self.shared_top:
            lows = self._lows()
            known = (rids > 0) & (rids < lows.size)
            offsets[known] -= lows[rids[known]]
        return rids, offsets
