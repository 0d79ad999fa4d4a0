"""Concrete replay (`volta run`): load inputs, infer buffers, run the executor with data steering control flow,
collect outputs and findings, save them. `replay` is the command's driver; `RunResult` its one result type.

The same `Machine` and semantics tables as every other command run the kernel (no second interpreter), with
`structured=False`: since every input is a concrete number, data-dependent branches and addresses (gathers,
embedding lookups, top-k) are just executed, and races, deadlocks and out-of-bounds accesses are reported for
this input.

Buffers: an `--args` entry that is not a number names a buffer. Its dtype and size come from `--buffer` when
given, else from the array of the same name in the inputs (.npz). bf16/fp8 buffers take raw words
(uint16/uint8) or ml_dtypes arrays; outputs come back in the dtype the input had (raw words otherwise).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from fractions import Fraction

import numpy as np

from volta.config import FP_MODES
from volta.errors import Unsupported, UsageError
from volta.exec.drivers import pipeline
from volta.exec.limits import Timeout
from volta.ir.program import lower
from volta.launch.inputs import (_ML_NAMES, FILL_HINT, ChosenInputs, _concrete_symbols, buffer_arg_names,  # noqa: F401
                                 choose_inputs, dtype_name, infer_buffers, is_fill, load_npz, random_inputs)
from volta.launch.spec import DTYPES, KernelLaunch, LaunchSpec, from_options, load_manifest, sequence
from volta.numerics.formats import decode
from volta.numerics.mma_select import MmaSetting
from volta.ptx.parser import parse_file
from volta.session.jobs import start_job
from volta.session.result import Reported
from volta.symbolic.evaluate import EvalError, evaluate

FP_CHOICES = ("real", *FP_MODES)


@dataclass
class RunResult(Reported):
    """One `volta run`: what the CLI renders and `volta.run` returns. `report(fmt)`: text or json."""

    launch: KernelLaunch
    buffers: dict  # name -> Buffer
    inputs: dict  # name -> array given to the kernel
    outputs: dict  # name -> array after the run (every buffer)
    findings: list
    thread_instructions: int
    seconds: float
    fp: str
    generated_inputs: bool = False
    notes: list = field(default_factory=list)
    tensor_cores: list = field(default_factory=list)  # MmaRow.to_json(setting) of each tensor-core row used
    timed_out: str | None = None  # --timeout ran out: why; `outputs` is then empty (the run did not end)
    launches: list = field(default_factory=list)  # every launch of a sequence, in order, each naming its entry
    inputs_used: str = ""  # which inputs: "random from seed 0 for x, y", "zeros for …", "from in.npz (…)"
    seed: int | None = None  # the seed random inputs were drawn from
    out: str | None = None  # the .npz every buffer was written to
    error: Unsupported | None = None  # the kernel left what the machine models: no run, verdict unsupported

    @property
    def verdict(self) -> str:
        """findings (defects on this input, exit 1), unknown (--timeout, exit 3), unsupported (exit 3) or clean
        (exit 0)."""
        if self.error is not None:
            return "unsupported"
        return "findings" if self.findings else "unknown" if self.timed_out else "clean"

    @property
    def exit_code(self) -> int:
        if self.error is not None:
            return self.error.exit_code
        return {"findings": 1, "unknown": 3, "clean": 0}[self.verdict]

    @property
    def timings(self) -> dict:
        return {"total": self.seconds, "run": self.seconds}

    @property
    def raw(self) -> RunResult:
        """This result itself (the API once wrapped it; `raw` kept for callers that read it)."""
        return self


# ---- arrays and dtypes ---------------------------------------------------------------------------

def _as_float64(arr: np.ndarray, dtype: str) -> np.ndarray:
    if dtype in ("bf16", "e4m3", "e5m2", "tf32") and dtype_name(arr) not in ("bf16", "e4m3", "e5m2"):
        if arr.dtype.kind == "V":
            arr = _savable(arr)
        if dtype == "bf16":
            return (arr.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
        if dtype == "tf32":
            return arr.astype(np.uint32).view(np.float32).astype(np.float64)
        return np.array([float(decode(int(w), dtype)) for w in arr.reshape(-1)]).reshape(arr.shape)
    return arr.astype(np.float64)


def summarize(arr: np.ndarray, dtype: str) -> dict:
    vals = _as_float64(arr, dtype)
    finite = vals[np.isfinite(vals)]
    stats = {"dtype": dtype, "shape": list(arr.shape), "nan": int(np.isnan(vals).sum()),
             "inf": int(np.isinf(vals).sum())}
    if finite.size:
        stats.update(min=float(finite.min()), max=float(finite.max()), mean=float(finite.mean()))
    else:
        stats.update(min=None, max=None, mean=None)
    return stats


# ---- running ----------------------------------------------------------------------------------

def replay(spec: LaunchSpec, role: str, given=None, seed: int | None = None, *, fill: str | None = None,
           fp: str = "ieee", check_races: bool = True, scalars: dict | None = None, tensor: MmaSetting | None = None,
           out: str | None = None, progress=None) -> RunResult:
    """`volta run` on a prepared spec, for the CLI and `volta.run` alike: choose the inputs (`given`: arrays by
    buffer name, an .npz path, "zeros", "random[:SEED]"; `fill` for the buffers an .npz lacks; see
    `choose_inputs`), say which (`progress`), run the launch, and write every buffer to `out` (.npz). An
    instruction outside the machine's model is the result's `error` (verdict unsupported), not an exception."""
    start_job()
    arrays, described, generated, used_seed = choose_inputs(spec, given, seed, fill=fill)
    if progress is not None:
        progress(f"inputs: {described}")
    start = time.perf_counter()
    try:
        result = run_launch(spec, role, arrays, fp=fp, check_races=check_races, generated=generated,
                            scalars=scalars, tensor=tensor)
    except Unsupported as err:
        result = RunResult(spec.launches[role], dict(spec.buffers), arrays, {}, [], 0, time.perf_counter() - start,
                           fp, error=err)
    result.inputs_used, result.seed = described, used_seed
    if out is not None and result.error is None:
        result.out = str(out)
        if not result.timed_out:
            save_npz(result.out, result)
    return result


def run_launch(spec: LaunchSpec, role: str, inputs: dict, fp: str = "ieee", check_races: bool = True,
               generated: bool = False, scalars: dict | None = None, tensor: MmaSetting | None = None) -> RunResult:
    """Parse, lower and execute one launch of `spec` on `inputs` (arrays by buffer name). `tensor` is the
    tensor-core setting (the ptxas version; default 13.0: the CLI and the API pass the nvcc found)."""

    if fp not in FP_CHOICES:
        raise UsageError(f"unknown --fp `{fp}` (choose from {', '.join(FP_CHOICES)})")
    steps = [_concrete_symbols(spec, role, inputs, scalars or {}, launch) for launch in sequence(spec, role)]
    buffers = dict(spec.buffers) if len(steps) > 1 else {}
    for launch in steps:
        buffers.update(infer_buffers(launch, spec.buffers, inputs))
        if not Path(launch.ptx).exists():
            raise UsageError(f"no such PTX file: {launch.ptx}")
    progs = [lower(parse_file(launch.ptx), launch.kernel) for launch in steps]
    kernel_inputs = {}
    for name, buf in buffers.items():
        arr = inputs.get(name)
        if arr is not None and buf.role != "temp":
            kernel_inputs[name] = np.ascontiguousarray(arr).reshape(-1)
    start = time.perf_counter()
    exact = fp == "real"
    values = _exact_inputs(buffers, kernel_inputs) if exact else None
    machines, carried = [], None
    for prog, launch in zip(progs, steps):   # a launch sequence: in order, on the same buffers
        m = pipeline.machine(carried, prog, launch, buffers, {}, inputs=kernel_inputs, structured=exact,
                             check_races=check_races, fp=fp, symbolic=exact, input_values=values,
                             allow_exit_before_barrier=spec.allow_exit_before_barrier, tensor=tensor)
        try:
            machines.append(m.run())
        except Timeout as err:   # a report all the same: the work done and the findings made until then
            findings = [f for x in machines + [m] for f in x.findings]
            return RunResult(launch, buffers, inputs, {}, findings, sum(x.thread_instructions for x in machines)
                             + err.thread_instructions, time.perf_counter() - start, fp, generated,
                             timed_out=err.message)
        carried = m.buffer_regions
    m = pipeline.combine(machines)
    launch = steps[0] if len(steps) == 1 else steps[-1]
    launch = replace(launch, kernel=launch.kernel or progs[-1].name)   # the entry run, when not named
    seconds = time.perf_counter() - start
    outputs = {}
    for name, buf in buffers.items():
        region = m.buffer_regions[name]
        raw = np.array(region.data[0, : buf.nbytes], dtype=np.uint8)
        arr = raw.view(DTYPES[buf.dtype][0])
        if exact:
            arr = _exact_outputs(region, buf, arr)
        given = inputs.get(name)
        if given is not None:
            arr = arr.view(given.dtype).reshape(given.shape)  # same dtype (ml_dtypes too) and shape as given
        outputs[name] = arr
    notes = []
    zero_reads = sorted({n for x in machines for n in getattr(x, "zero_start_reads", ())})
    if zero_reads:
        notes.append(f"the kernel read out buffer{'s' if len(zero_reads) > 1 else ''} "
                     f"{', '.join(f'`{n}`' for n in zero_reads)} where it had not written: out buffers start at zero "
                     f"(--out-init zeros, the default), which a GPU gives only after a cudaMemset; --out-init "
                     f"undefined makes such a read an UNINITIALIZED READ")
    if fp == "real":
        notes.append("--fp real: every instruction computed in exact rational arithmetic; each output element "
                     "is rounded once, to nearest, into its buffer's dtype")
    setting = tensor or MmaSetting()
    rows = [row.to_json(setting) for row in m.tensor_rows.values()]
    return RunResult(launch, buffers, inputs, outputs, list(m.findings), int(m.thread_instructions), seconds,
                     fp, generated, notes, rows,
                     launches=[replace(x, kernel=p.name) for p, x in zip(progs, steps)])


def _exact_inputs(buffers: dict, arrays: dict) -> dict:
    """Input arrays as exact rationals (every binary float is one), for `--fp real`."""

    values = {}
    for name, arr in arrays.items():
        as64 = _as_float64(arr, buffers[name].dtype) if buffers[name].dtype[0] in "fb" else arr
        values[name] = {i: Fraction(float(v)) if as64.dtype.kind == "f" else Fraction(int(v))
                        for i, v in enumerate(as64.reshape(-1))}
    for name, buf in buffers.items():  # a buffer with no array starts as zeros, as in a bit-exact run
        if name not in values:
            values[name] = dict.fromkeys(range(buf.count), Fraction(0))
    return values


def _exact_outputs(region, buf, arr: np.ndarray) -> np.ndarray:
    """Replace elements the kernel computed exactly by their value rounded once to the dtype."""

    if region.sym is None:
        return arr
    out = arr.astype(np.float64) if arr.dtype.kind == "f" else arr.copy()
    size = DTYPES[buf.dtype][1]
    for i in range(buf.count):
        expr = region.sym[0, i * size]
        if expr is None:
            continue
        try:
            out[i] = float(evaluate(expr, {}))
        except (EvalError, TypeError, AttributeError) as err:
            raise Unsupported(f"--fp real: element {i} of `{buf.name}` has no exact rational value "
                              f"({type(err).__name__}: {err})") from None
    return out.astype(arr.dtype) if buf.dtype in ("f32", "f64", "f16") else arr


def save_npz(path, result: RunResult) -> None:
    arrays = {}
    for name, arr in result.outputs.items():
        arrays[name] = _savable(arr)
    if result.generated_inputs:
        for name, arr in result.inputs.items():
            arrays[f"input.{name}"] = _savable(arr)
    np.savez(path, **arrays)


def _savable(arr: np.ndarray) -> np.ndarray:
    """ml_dtypes arrays are stored as their raw words (np.load cannot rebuild those dtypes)."""
    if arr.dtype.name in _ML_NAMES or arr.dtype.kind == "V":
        return arr.view({2: np.uint16, 1: np.uint8, 4: np.uint32}[arr.dtype.itemsize])
    return arr


def spec_from_manifest(path, role: str | None = None):
    spec = load_manifest(path)
    if role is None:
        role = "kernel" if "kernel" in spec.launches else "ref"
    if role not in spec.launches:
        raise UsageError(f"{path} has no [{role}] table (it has: {', '.join(spec.launches)})")
    return spec, role


def spec_from_options(ptx, kernel, grid, block, args, buffers, named_args, shared_dynamic) -> LaunchSpec:
    """`volta run`'s launch from its option strings."""
    if args is None and not named_args:
        raise UsageError("--args is required: one entry per kernel parameter, e.g. --args x,y,1024")
    return from_options(ptx, kernel, grid, block, args, buffers, named_args, shared_dynamic)
