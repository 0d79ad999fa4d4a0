"""The trace of one call into a candidate's extension: what its host code asked the GPU and torch to do.

The worker sends JSON events (one per launch, allocation, copy, memset, torch op, stream or event call); this
module checks each against its schema and turns it into a typed value. The worker runs candidate code, so
nothing it sends is trusted: a malformed event is a `BadTrace` (UNSUPPORTED), never a crash or a guess.

Device addresses are the stand-in runtime's fake ones (`runtime/runtime.h`): the parent maps them back to
storages (`volta.kernelbench.device`).
"""
from __future__ import annotations

from dataclasses import dataclass

from volta.errors import Unsupported

DTYPES = ("uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64", "bool", "bfloat16")


class BadTrace(Unsupported):
    """An event the worker sent does not have the shape the runtime writes."""


@dataclass(frozen=True)
class TensorRef:
    """A tensor as host code holds it: its storage's base address and size, and the view."""

    base: int
    bytes: int
    offset: int
    sizes: tuple
    strides: tuple
    dtype: str


@dataclass(frozen=True)
class Alloc:           # torch::empty/zeros/ones/full (and their _like forms)
    tensor: TensorRef
    init: str          # "empty" | "full"
    value: float


@dataclass(frozen=True)
class Malloc:          # cudaMalloc: bytes of no type
    base: int
    bytes: int


@dataclass(frozen=True)
class Free:
    base: int


@dataclass(frozen=True)
class Memset:
    dst: int
    value: int
    bytes: int
    stream: int


@dataclass(frozen=True)
class Copy:            # device to device
    dst: int
    src: int
    bytes: int
    stream: int


@dataclass(frozen=True)
class Upload:          # host to device: the bytes host code computed
    dst: int
    data: bytes
    stream: int


@dataclass(frozen=True)
class SymbolWrite:     # cudaMemcpyToSymbol: __constant__ / __device__ memory of a module
    module: str
    symbol: str
    offset: int
    data: bytes | None     # from the host
    src: int | None        # from the device
    bytes: int
    stream: int


@dataclass(frozen=True)
class Launch:
    module: str
    kernel: str
    grid: tuple
    block: tuple
    shared: int
    stream: int
    args: tuple            # raw bytes per parameter
    cooperative: bool = False
    refused: str | None = None    # why CUDA would not run it (the launch then does nothing)


@dataclass(frozen=True)
class Op:              # a torch op called from host code
    op: str
    inputs: tuple          # TensorRef
    scalars: tuple
    ints: tuple
    out: TensorRef | None


@dataclass(frozen=True)
class Gemm:            # a cuBLAS GEMM: C = alpha op(A) op(B) + beta C, column-major, per batch (host/cublas.py)
    call: str
    transa: str            # "N" | "T" | "C"
    transb: str
    m: int
    n: int
    k: int
    alpha: float
    beta: float
    a: int
    lda: int
    stride_a: int
    b: int
    ldb: int
    stride_b: int
    c: int
    ldc: int
    stride_c: int
    batch: int
    a_type: str
    b_type: str
    c_type: str
    compute: int           # cublasComputeType_t
    math: int              # the handle's cublasMath_t
    stream: int


@dataclass(frozen=True)
class Sync:            # stream/event/device synchronization and stream creation (kept for the report)
    kind: str
    detail: dict


@dataclass(frozen=True)
class DeviceQuery:     # host code read the device's properties or a timing
    what: str


Event = Alloc | Malloc | Free | Memset | Copy | Upload | SymbolWrite | Launch | Op | Gemm | Sync | DeviceQuery


def _int(e: dict, key: str, lo: int = -(1 << 63), hi: int = (1 << 64) - 1) -> int:
    v = e.get(key)
    if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= hi:
        raise BadTrace(f"trace event {e.get('e')!r}: `{key}` is not an integer in range ({v!r})")
    return v


def _str(e: dict, key: str) -> str:
    v = e.get(key)
    if not isinstance(v, str):
        raise BadTrace(f"trace event {e.get('e')!r}: `{key}` is not a string ({v!r})")
    return v


def _hex(e: dict, key: str) -> bytes:
    try:
        return bytes.fromhex(_str(e, key))
    except ValueError:
        raise BadTrace(f"trace event {e.get('e')!r}: `{key}` is not hex") from None


def _number(v) -> float:
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return float(v)
    if v in ("nan", "inf", "-inf"):
        return float(v)
    raise BadTrace(f"trace event: {v!r} is not a number")


def tensor_ref(t) -> TensorRef:
    if not isinstance(t, dict) or t.get("t") != "tensor":
        raise BadTrace(f"trace: {t!r} is not a tensor")
    sizes, strides = t.get("sizes"), t.get("strides")
    if not (isinstance(sizes, list) and isinstance(strides, list) and len(sizes) == len(strides)
            and all(isinstance(x, int) and x >= 0 for x in sizes) and all(isinstance(x, int) for x in strides)):
        raise BadTrace(f"trace: tensor sizes/strides malformed: {sizes!r} {strides!r}")
    dtype = t.get("dtype")
    if dtype not in DTYPES:
        raise BadTrace(f"trace: unknown dtype {dtype!r}")
    return TensorRef(_int(t, "base", 0), _int(t, "bytes", 0), _int(t, "offset", 0), tuple(sizes), tuple(strides),
                     dtype)


def _dim3(e: dict, key: str) -> tuple:
    v = e.get(key)
    if not (isinstance(v, list) and len(v) == 3 and all(isinstance(x, int) and x >= 0 for x in v)):
        raise BadTrace(f"trace event 'launch': `{key}` is not three counts ({v!r})")
    return tuple(v)


def event(e: dict) -> Event:
    """One JSON event from the worker as a typed value (BadTrace if it is not one the runtime writes)."""
    if not isinstance(e, dict):
        raise BadTrace(f"trace: {e!r} is not an event")
    kind = e.get("e")
    if kind == "alloc":
        v = e.get("v")
        return Alloc(tensor_ref(e.get("t")), _str(e, "init"), _number(v[0] if isinstance(v, list) and v else v))
    if kind == "malloc":
        return Malloc(_int(e, "base", 0), _int(e, "bytes", 0))
    if kind == "free":
        return Free(_int(e, "base", 0))
    if kind == "memset":
        return Memset(_int(e, "dst", 0), _int(e, "value", 0, 255), _int(e, "bytes", 0), _int(e, "stream"))
    if kind == "copy":
        return Copy(_int(e, "dst", 0), _int(e, "src", 0), _int(e, "bytes", 0), _int(e, "stream"))
    if kind == "upload":
        data = _hex(e, "hex")
        if len(data) != _int(e, "bytes", 0):
            raise BadTrace("trace event 'upload': the data and its byte count differ")
        return Upload(_int(e, "dst", 0), data, _int(e, "stream"))
    if kind == "symbol":
        return SymbolWrite(_str(e, "module"), _str(e, "symbol"), _int(e, "offset", 0),
                           _hex(e, "hex") if "hex" in e else None, _int(e, "src", 0) if "src" in e else None,
                           _int(e, "bytes", 0), _int(e, "stream"))
    if kind == "launch":
        args = e.get("args", [])
        if not isinstance(args, list):
            raise BadTrace("trace event 'launch': `args` is not a list")
        return Launch(_str(e, "module"), _str(e, "kernel"), _dim3(e, "grid"), _dim3(e, "block"),
                      _int(e, "shared", 0), _int(e, "stream"), tuple(bytes.fromhex(a) for a in args),
                      bool(e.get("cooperative", False)), e.get("refused"))
    if kind == "op":
        ins, s, i = e.get("in"), e.get("s"), e.get("i")
        if not (isinstance(ins, list) and isinstance(s, list) and isinstance(i, list)):
            raise BadTrace("trace event 'op': in/s/i are not lists")
        return Op(_str(e, "op"), tuple(tensor_ref(t) for t in ins), tuple(_number(x) for x in s),
                  tuple(int(x) for x in i), tensor_ref(e["out"]) if "out" in e else None)
    if kind == "gemm":
        ops = [_str(e, key) for key in ("transa", "transb")]
        types = [_str(e, key) for key in ("a_type", "b_type", "c_type")]
        if any(o not in ("N", "T", "C") for o in ops) or any(t not in DTYPES for t in types):
            raise BadTrace(f"trace event 'gemm': transposes {ops} or types {types} malformed")
        return Gemm(_str(e, "call"), *ops, *(_int(e, key, 0) for key in ("m", "n", "k")),
                    _number(e.get("alpha")), _number(e.get("beta")),
                    *(_int(e, key) for key in ("a", "lda", "stride_a", "b", "ldb", "stride_b", "c", "ldc",
                                               "stride_c", "batch")),
                    *types, _int(e, "compute"), _int(e, "math"), _int(e, "stream"))
    if kind in ("stream_create", "stream_destroy", "stream_sync", "stream_wait", "event_record", "event_sync",
                "device_sync"):
        return Sync(kind, {k: v for k, v in e.items() if k != "e"})
    if kind == "device_query":
        return DeviceQuery(_str(e, "what"))
    raise BadTrace(f"trace: unknown event {kind!r}")


def parse(events: list) -> list:
    if not isinstance(events, list):
        raise BadTrace("trace: not a list of events")
    return [event(e) for e in events]
