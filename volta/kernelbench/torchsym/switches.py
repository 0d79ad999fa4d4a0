"""The precision a check's torch code computes in: global switches, autocast regions, narrower dtypes.

KernelBench candidates lose precision without changing the math over the reals: `.half()`, bf16 casts,
`torch.autocast`, `torch.backends.cuda.matmul.allow_tf32 = True`, `torch.set_float32_matmul_precision`.
A `Precision` is the state of one check (it hangs on the stand-in Session, never in a module global):

- the switches as torch has them (matmul TF32 off, cuDNN TF32 on, float32 matmul precision "highest") and a
  stack of autocast regions, changed by the stand-in's `torch.backends`/`torch.autocast` and read by the
  matmul and convolution ops after them;
- the float formats the reference computes through (its tensors' dtypes, TF32 where its own convolutions use
  it), recorded while the reference runs;
- the candidate's *events*: each place (file:line) where it makes values in a format the reference never
  computes through, with the format and how (a cast, an autocast region, a TF32 switch).

In an evaluation run (`rounding`), every element stored in a narrow format is wrapped in a rounding call
`E.call("volta.round.<format>#<event>", x)`, and TF32 matmul operands likewise, so the outputs say which
events reach them and `precision.py` can evaluate them in their actual precision.
"""
from __future__ import annotations

import linecache
import os
import sys
from dataclasses import dataclass, field

import numpy as np

from volta.kernelbench import dtypes as D
from volta.kernelbench.failures import TorchError
from volta.kernelbench.tensor import from_array
from volta.symbolic import expr as E

# mantissa and exponent bits of each float format (TF32: float32's range, float16's mantissa)
MANTISSA = {"f64": 52, "f32": 23, "tf32": 10, "f16": 10, "bf16": 7}
EXPONENT = {"f64": 11, "f32": 8, "tf32": 8, "f16": 5, "bf16": 8}
FORMAT_NAME = {"f64": "float64", "f32": "float32", "tf32": "TF32", "f16": "float16", "bf16": "bfloat16"}
ROUND_PREFIX = "volta.round."
MATMUL_PRECISIONS = ("highest", "high", "medium")


def covers(wide: str, narrow: str) -> bool:
    """Whether every value of format `narrow` is a value of format `wide` (at least as many bits in both)."""
    return MANTISSA[wide] >= MANTISSA[narrow] and EXPONENT[wide] >= EXPONENT[narrow]


@dataclass(frozen=True)
class Event:
    """One place where the candidate computes through a format the reference does not."""

    index: int
    kind: str          # "cast" | "autocast" | "tf32" | "kernel"
    format: str        # "f16" | "bf16" | "tf32"
    what: str          # plain words: "float16 values", "torch.matmul in an autocast(float16) region", ...
    file: str | None
    line: int | None
    code: str = ""     # the source line

    @property
    def format_name(self) -> str:
        return FORMAT_NAME[self.format]


@dataclass
class Precision:
    """One check's precision state (see the module docstring)."""

    candidate: str | None = None            # absolute path of the candidate file; None while the reference runs
    matmul_tf32: bool = False               # torch.backends.cuda.matmul.allow_tf32 (follows matmul_precision)
    cudnn_tf32: bool = True                 # torch.backends.cudnn.allow_tf32
    matmul_precision: str = "highest"       # torch.set_float32_matmul_precision
    autocast: list = field(default_factory=list)     # stack of DType | None (a disabled region)
    reference: set = field(default_factory=set)      # formats the reference's values are stored in
    reference_ops: set = field(default_factory=set)  # (op kind, format) of the reference's reduced matmuls
    events: dict = field(default_factory=dict)       # (file, line, format) -> Event
    rounding: bool = False
    switched_at: dict = field(default_factory=dict)  # switch field -> the candidate's line that set it last

    def start_candidate(self, path: str) -> None:
        """The reference is done: switches back to torch's defaults (a fresh process), events from now on."""
        self.candidate = os.path.abspath(path)
        self.matmul_tf32, self.cudnn_tf32, self.matmul_precision = False, True, "highest"
        self.autocast, self.switched_at = [], {}
        if not self.reference:
            self.reference.add("f32")

    # ---- what ops ask ----
    def loses(self, fmt: str) -> bool:
        return self.candidate is not None and not any(covers(fmt, r) for r in self.reference)

    def matmul_format(self, kind: str) -> str | None:
        """The reduced format a float32 matmul ("matmul") or convolution ("conv") runs its products in."""
        if kind == "conv":
            return "tf32" if self.cudnn_tf32 else None
        return {"highest": None, "high": "tf32", "medium": "bf16"}[self.matmul_precision]

    def autocast_dtype(self):
        return self.autocast[-1] if self.autocast else None

    # ---- what ops tell ----
    def made(self, volta_dtype: str, values: np.ndarray | None = None):
        """Values stored in `volta_dtype` (a new storage, or a write into one); the values to store."""
        if volta_dtype not in MANTISSA:
            return values
        if self.candidate is None:
            self.reference.add(volta_dtype)
            return values
        if not self.loses(volta_dtype):
            return values
        event = self.event("cast", volta_dtype, f"{FORMAT_NAME[volta_dtype]} values")
        return self.rounded(values, event)

    def switch(self, name: str, value) -> None:
        """A global switch set (by torch.backends or set_float32_matmul_precision), remembering the line.
        As in torch, `matmul.allow_tf32` and the float32 matmul precision are one setting: allow_tf32 = True is
        "high", False is "highest", and reading allow_tf32 after "high" or "medium" gives True."""
        if name == "matmul_tf32":
            name, value = "matmul_precision", "high" if value else "highest"
        setattr(self, name, value)
        if name == "matmul_precision":
            self.matmul_tf32 = value != "highest"
        if self.candidate is not None:
            _, line, _ = self.where()
            self.switched_at[name] = line

    def reduced_matmul(self, op: str, kind: str, fmt: str, how: str) -> Event | None:
        """A float32 matmul-like op that runs in `fmt` (a switch or autocast); its event, or None when the
        reference runs the same kind of op (matmul, convolution) in that format too, or stores values in it."""
        op_kind = "conv" if "conv" in op else "matmul"
        if self.candidate is None:
            self.reference_ops.add((op_kind, fmt))
            return None
        if (op_kind, fmt) in self.reference_ops or not self.loses(fmt):
            return None
        return self.event(kind, fmt, f"{op} {how}")

    def event(self, kind: str, fmt: str, what: str) -> Event:
        file, line, code = self.where()
        key = (file, line, fmt)
        found = self.events.get(key)
        if found is None:
            found = self.events[key] = Event(len(self.events), kind, fmt, what, file, line, code)
        return found

    def kernel_event(self, fmt: str, what: str, file: str | None, line: int | None, code: str) -> Event:
        key = (file, line, fmt)
        found = self.events.get(key)
        if found is None:
            found = self.events[key] = Event(len(self.events), "kernel", fmt, what, file, line, code)
        return found

    def where(self) -> tuple:
        """The candidate's innermost line on the Python stack (the line that called into the stand-in)."""
        frame = sys._getframe(1)
        while frame is not None:
            filename = frame.f_code.co_filename
            if filename == self.candidate or os.path.abspath(filename) == self.candidate:
                line = frame.f_lineno
                return self.candidate, line, linecache.getline(self.candidate, line).strip()
            frame = frame.f_back
        return None, None, ""

    # ---- the evaluation run ----
    def rounded(self, values, event: Event):
        """`values` wrapped in the event's rounding call when this is an evaluation run."""
        if not self.rounding or values is None:
            return values
        return round_elements(values, event)


def round_name(event: Event) -> str:
    return f"{ROUND_PREFIX}{event.format}#{event.index}"


def round_elements(values, event: Event):
    """Every expression element of `values` (any shape) rounded to the event's format (idempotent)."""
    name = round_name(event)
    array = np.asarray(values)
    out = np.empty(array.shape, object)
    flat_in, flat_out = array.reshape(-1), out.reshape(-1)
    for i, v in enumerate(flat_in):
        if type(v) is E.Expr and v.op is not E.BOOL and not (v.op is E.CALL and v.data.startswith(ROUND_PREFIX)):
            flat_out[i] = E.call(name, v)
        else:
            flat_out[i] = v
    return out


def event_of(name: str) -> int | None:
    """The event index a rounding call's name carries, or None for another function."""
    if not name.startswith(ROUND_PREFIX):
        return None
    return int(name.rsplit("#", 1)[1])


def format_of(name: str) -> str:
    return name[len(ROUND_PREFIX):].split("#", 1)[0]


# ---------------------------------------------------------------- what the ops call

def reduced_operands(op: str, kind: str, *tensors):
    """The operands of a matmul-like op (`kind` "matmul" or "conv") as the device runs it: inside an autocast
    region float operands are cast to the region's dtype (the result then has it too); with a TF32 or bf16
    switch on, float32 operands are rounded to that format in an evaluation run (the result stays float32)."""
    precision = getattr(tensors[0].session, "precision", None)
    if precision is None or not all(t.dtype.is_floating_point for t in tensors):
        return tensors
    auto = precision.autocast_dtype()
    if auto is not None:
        precision.reduced_matmul(op, "autocast", auto.volta, f"in an autocast({auto.torch_name}) region")
        return tuple(t if t.dtype is auto else t.to(auto) for t in tensors)
    if any(t.dtype.volta != "f32" for t in tensors):
        return tensors
    fmt = precision.matmul_format(kind)
    if fmt is None:
        return tensors
    field_name = "cudnn_tf32" if kind == "conv" else "matmul_precision"
    how = "with cuDNN TF32 on" if kind == "conv" else (
        "with float32 matmul precision 'medium' (bfloat16 products)" if fmt == "bf16" else "with TF32 matmul on")
    if precision.switched_at.get(field_name):
        how += f" (switched at line {precision.switched_at[field_name]})"
    event = precision.reduced_matmul(op, "tf32", fmt, how)
    if event is None or not precision.rounding:
        return tensors
    return tuple(from_array(round_elements(t.array(), event), t.dtype, t.session) for t in tensors)


# ---------------------------------------------------------------- the stand-in's switches

class _Flags:
    """An object of boolean attributes (`torch.backends.cudnn`, `torch.backends.cuda.matmul`) whose named ones
    live in the check's Precision; the rest are plain attributes."""

    def __init__(self, run, mapping: dict, **plain):
        object.__setattr__(self, "_run", run)
        object.__setattr__(self, "_mapping", mapping)     # attribute -> Precision field
        object.__setattr__(self, "_local", dict(plain))

    def _state(self):
        return getattr(self._run.session, "precision", None)

    def __getattr__(self, name):
        mapping, local = object.__getattribute__(self, "_mapping"), object.__getattribute__(self, "_local")
        if name in mapping:
            state = self._state()
            return getattr(state, mapping[name]) if state is not None else local.get(name, False)
        if name in local:
            return local[name]
        raise AttributeError(name)

    def __setattr__(self, name, value):
        if name in self._mapping and self._state() is not None:
            self._state().switch(self._mapping[name], bool(value))
        else:
            self._local[name] = value


class Autocast:
    """torch.autocast / torch.amp.autocast / torch.cuda.amp.autocast: a region (context manager or decorator)
    in which matmul-like ops compute in `dtype` (float16 unless told)."""

    def __init__(self, run, device_type="cuda", dtype=None, enabled=True, cache_enabled=None):
        self._run, self._enabled = run, bool(enabled)
        self._dtype = dtype
        if device_type not in ("cuda", "cpu"):
            raise TorchError(f"unsupported autocast device_type '{device_type}'")
        self._device = device_type

    def _region(self):
        if not self._enabled:
            return None
        return self._dtype or (D.bfloat16 if self._device == "cpu" else D.float16)

    def __enter__(self):
        state = getattr(self._run.session, "precision", None)
        if state is not None:
            state.autocast.append(self._region())
        return self

    def __exit__(self, *exc):
        state = getattr(self._run.session, "precision", None)
        if state is not None and state.autocast:
            state.autocast.pop()
        return False

    def __call__(self, fn):
        def wrapped(*args, **kwargs):
            with self:
                return fn(*args, **kwargs)
        wrapped.__name__ = getattr(fn, "__name__", "autocast_wrapped")
        return wrapped


def switch_functions(run) -> dict:
    """The stand-in's names for the switches: `backends` objects and torch-level functions."""
    def set_precision(value):
        if value not in MATMUL_PRECISIONS:
            raise TorchError(f"Invalid precision {value!r}: expected one of {', '.join(MATMUL_PRECISIONS)}")
        state = getattr(run.session, "precision", None)
        if state is not None:
            state.switch("matmul_precision", value)

    def get_precision():
        state = getattr(run.session, "precision", None)
        return state.matmul_precision if state is not None else "highest"

    def autocast(*args, **kwargs):
        return Autocast(run, *args, **kwargs)

    def cuda_autocast(enabled=True, dtype=None, cache_enabled=True):
        return Autocast(run, "cuda", dtype, enabled)

    cudnn = _Flags(run, {"allow_tf32": "cudnn_tf32"}, allow_tf32=True, benchmark=False, deterministic=False, enabled=True)
    matmul = _Flags(run, {"allow_tf32": "matmul_tf32"}, allow_tf32=False, allow_fp16_reduced_precision_reduction=True,
                    allow_bf16_reduced_precision_reduction=True)
    return {"cudnn": cudnn, "matmul": matmul, "set_float32_matmul_precision": set_precision,
            "get_float32_matmul_precision": get_precision, "autocast": autocast, "cuda_autocast": cuda_autocast}
