"""What a concrete run gets from outside the PTX: bodiless functions' results, printf's text, a schedule.

A kernel may call a function the PTX only declares (`.extern .func nondet_int`, CUDA's `vprintf`). Over the
reals `volta check` treats such a call as an uninterpreted function; a concrete run (`volta races` on
concrete inputs, `volta run`) has no value for it. This module is the one place that supplies one:

* `Nondet`: the result of a bodiless function is an unconstrained input, drawn like the trial's other inputs
  (`random:S`: small integers or normal floats from seed S, a fresh draw per call and lane; `zeros`: 0;
  `equal`: 1; `colliding`: 0, 0, 1, 1, 2, 2, 3, 3, … over the lanes). Only `volta races` passes one (its
  findings then hold for those values); `volta run`, which promises outputs, still refuses the call.
* `vprintf` (CUDA `printf`) changes nothing a kernel can see but its return value: it is a no-op that returns
  the number of arguments its format names; with `printed` given, the text each thread prints is formatted
  (volta/exec/state/printf.py) and kept, in execution order.
* `schedule`: which lane wins a contended atomic first (volta/exec/state/schedules.py); None is lane order.

A `ConcreteRuntime` is a value passed to the Machine (`runtime=`); the default supplies nothing.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from volta.errors import Unsupported
from volta.exec.state import access as A
from volta.exec.state import printf
from volta.ir.program import type_size

PRINTF = "vprintf"  # the function CUDA's printf compiles to


@dataclass
class Nondet:
    """Values of bodiless functions for one concrete trial: `mode` is `random:SEED`, `zeros`, `equal` or
    `colliding` (an .npz trial draws from seed 0)."""

    mode: str = "random:0"
    calls: int = 0  # calls answered so far (each random call draws afresh)
    rng: np.random.Generator | None = field(default=None, repr=False)

    def values(self, ptx_type: str, n: int) -> np.ndarray:
        """Bits (uint64) of one call's result on n lanes, for a result declared with `ptx_type`."""
        self.calls += 1
        size = int(ptx_type[2:]) if ptx_type[2:].isdigit() else 32
        if self.mode == "zeros":
            return np.zeros(n, np.uint64)
        if self.mode == "equal":
            numbers = np.ones(n)
        elif self.mode == "colliding":
            numbers = (np.arange(n) // 2 % 4).astype(np.float64)
        else:
            if self.rng is None:
                seed = int(self.mode.partition(":")[2] or 0) if self.mode.startswith("random") else 0
                self.rng = np.random.default_rng([seed, 0x6E6F6E64])  # a stream of its own, apart from buffers'
            if ptx_type.startswith(".f"):
                numbers = self.rng.standard_normal(n)
            else:  # small integers, a few negative: an index, a count or a flag as often as anything else
                numbers = self.rng.integers(-4, 64, n).astype(np.float64)
        if ptx_type.startswith(".f"):
            dtype = {16: np.float16, 32: np.float32, 64: np.float64}[size]
            raw = numbers.astype(dtype).view({16: np.uint16, 32: np.uint32, 64: np.uint64}[size])
            return raw.astype(np.uint64)
        return numbers.astype(np.int64).astype(np.uint64) & np.uint64((1 << size) - 1)

    def describe(self) -> str:
        return {"zeros": "0", "equal": "1", "colliding": "0, 0, 1, 1, 2, 2, 3, 3, … over the threads"}.get(
            self.mode, f"drawn from seed {self.mode.partition(':')[2] or 0}")


@dataclass
class ConcreteRuntime:
    """What the PTX does not define and a concrete run needs (module docstring)."""

    nondet: Nondet | None = None  # None: a call of a bodiless function is refused (volta run)
    printed: list | None = None  # None: printf is a no-op; a list: (thread id, text) per printed line
    schedule: object = None  # volta.exec.state.schedules.Schedule; None: lanes of an atomic in lane order


def call(m, op, lanes, fn, rets, args) -> None:
    """A bodiless function called in a concrete run: `vprintf` returns its argument count (its text kept when
    asked for); another function's result is an unconstrained input where the run supplies one (`volta races`),
    else the call is refused (`volta run` cannot compute it). Writes the return parameters; the caller advances."""
    def param_bits(ref, t):
        region = m.memory.by_name[ref.name]
        return A.load(m, region, lanes, np.zeros(lanes.size, np.int64), type_size(t))[0]

    if fn.name == PRINTF and len(args) == 2:
        results = [printf.vprintf(m, op, lanes, *(param_bits(r, t) for r, t in zip(args, fn.param_types)))]
    elif m.runtime.nondet is not None:
        results = [m.runtime.nondet.values(t, lanes.size) for t in fn.return_types]
    else:
        raise Unsupported(f"`{fn.name}` has no body in the PTX: a concrete run cannot compute it", op.span)
    for ref, t, bits in zip(rets, fn.return_types, results):
        region = m.memory.by_name[ref.name]
        offs = np.zeros(lanes.size, np.int64)
        A.store(m, region, lanes, offs, type_size(t), bits)
        m.set_memory_flags(region, lanes, offs, type_size(t), None)
