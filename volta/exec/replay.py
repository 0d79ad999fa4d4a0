"""Concrete replay (`volta run`): load inputs, infer buffers, run the executor with data steering control flow,
collect outputs and findings, save them.

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
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

import numpy as np

from volta.errors import UsageError
from volta.launch import structargs
from volta.launch.spec import DTYPES, Buffer, KernelLaunch, LaunchSpec, parse_args_list
from volta.numerics.mma_select import MmaSetting
from volta.exec.limits import Timeout

FP_CHOICES = ("real", "ieee", "volta", "ampere", "ada", "hopper", "blackwell")
_RAW = {"bf16": np.uint16, "e4m3": np.uint8, "e5m2": np.uint8, "tf32": np.uint32}
_ML_NAMES = {"bfloat16": "bf16", "float8_e4m3fn": "e4m3", "float8_e5m2": "e5m2"}
_NUMPY_NAMES = {
    "float32": "f32", "float64": "f64", "float16": "f16", "int8": "s8", "uint8": "u8", "int16": "s16",
    "uint16": "u16", "int32": "s32", "uint32": "u32", "int64": "s64", "uint64": "u64",
}


@dataclass
class RunResult:
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

    @property
    def ok(self) -> bool:
        return not self.findings

    @property
    def verdict(self) -> str:
        """findings (defects on this input, exit 1), unknown (--timeout, exit 3) or clean (exit 0)."""
        return "findings" if self.findings else "unknown" if self.timed_out else "clean"

    @property
    def exit_code(self) -> int:
        return {"findings": 1, "unknown": 3, "clean": 0}[self.verdict]


# ---- arrays and dtypes ---------------------------------------------------------------------------

def _ml_dtypes():
    try:
        import ml_dtypes
    except ImportError:  # optional: raw words work without it
        return None
    return ml_dtypes


def dtype_name(arr: np.ndarray) -> str | None:
    """Volta's dtype name for a numpy / ml_dtypes array, or None if it has none."""
    name = arr.dtype.name
    return _ML_NAMES.get(name) or _NUMPY_NAMES.get(name)


def _compatible(arr: np.ndarray, dtype: str) -> bool:
    have = dtype_name(arr)
    if have == dtype:
        return True
    raw = _RAW.get(dtype)
    if raw is None:
        return False
    # bf16/fp8/tf32 as raw words; an ml_dtypes array saved with np.savez comes back as void of the same size
    return arr.dtype == np.dtype(raw) or (arr.dtype.kind == "V" and arr.dtype.itemsize == np.dtype(raw).itemsize)


def load_npz(path) -> dict:
    path = Path(path)
    try:
        with np.load(path, allow_pickle=False) as data:
            return {k: data[k] for k in data.files}
    except FileNotFoundError:
        raise UsageError(f"no such inputs file: {path}") from None
    except (ValueError, OSError) as err:
        raise UsageError(f"{path}: not a readable .npz archive ({err})") from None


def _is_number(text: str) -> bool:
    try:
        int(text, 0)
        return True
    except ValueError:
        try:
            float(text)
            return True
        except ValueError:
            return False


def buffer_arg_names(launch: KernelLaunch) -> list:
    """The `--args`/`--arg` values that name buffers (anything that is not a number)."""
    names = []
    for a in launch.args:
        if isinstance(a, tuple) and a and a[0] == "__named__":
            names += [v for _, v in a[1] if not _is_number(v)]
        elif structargs.is_struct_entry(a):  # {x,y,1024}: its buffer fields
            names += [v for v in structargs.field_values(a) if not _is_number(v) and v != structargs.NULL]
        elif not _is_number(a):
            names.append(a)
    return list(dict.fromkeys(names))


def infer_buffers(launch: KernelLaunch, declared: dict, inputs: dict, symbols=()) -> dict:
    """Every buffer the launch names: declared ones checked against their input arrays, others inferred."""
    buffers = dict(declared)
    for name in buffer_arg_names(launch):
        if name in buffers or name in symbols:
            continue
        arr = inputs.get(name)
        if arr is None:
            known = ", ".join(sorted(inputs)) or "none"
            raise UsageError(f"buffer `{name}` (from --args) has no array of that name in the inputs "
                             f"(arrays: {known}) and no --buffer {name}=DTYPE[COUNT]")
        dt = dtype_name(arr)
        if dt is None:
            raise UsageError(f"input array `{name}` has dtype {arr.dtype}, which no PTX type matches "
                             f"(use float32/float16/float64, (u)int8..64, or bf16/fp8 as uint16/uint8 words or "
                             f"ml_dtypes arrays with --buffer {name}=bf16[{arr.size}])")
        if arr.size == 0:
            raise UsageError(f"input array `{name}` is empty")
        buffers[name] = Buffer(name, dt, int(arr.size), "inout")
    for name, buf in buffers.items():
        arr = inputs.get(name)
        if arr is None:
            continue
        if not _compatible(arr, buf.dtype):
            raise UsageError(f"input array `{name}` has dtype {arr.dtype} but buffer `{name}` is {buf.dtype} "
                             f"(expected {np.dtype(DTYPES[buf.dtype][0]).name}"
                             + (" raw words or the ml_dtypes type" if buf.dtype in _RAW else "") + ")")
        if arr.size != buf.count:
            raise UsageError(f"input array `{name}` has {arr.size} elements but buffer `{name}` is "
                             f"{buf.dtype}[{buf.count}]")
    return buffers


def random_inputs(buffers: dict, seed: int = 0, symbols: dict | None = None) -> dict:
    """Deterministic inputs for every buffer the kernel reads (roles in/inout): normal floats, small ints (in
    the buffer's declared range, when it has one); one-element arrays for symbolic scalars."""
    rng = np.random.default_rng(seed)
    out = {}
    for name in sorted(symbols or {}):
        out[name] = rng.standard_normal(1).astype(DTYPES.get(symbols[name], (np.float32,))[0])
    for name in sorted(buffers):
        buf = buffers[name]
        if buf.role in ("out", "temp"):
            continue
        n, dt = buf.count, buf.dtype
        if dt in ("f32", "f64", "f16"):
            out[name] = rng.standard_normal(n).astype(DTYPES[dt][0])
        elif dt in ("bf16", "e4m3", "e5m2", "tf32"):
            from volta.numerics import lanes

            fmt = dt
            words = lanes.round_f64(rng.standard_normal(n), fmt)
            out[name] = words.astype(_RAW[dt])
        elif buf.range is not None:   # a declared range (token ids): uniform in it
            out[name] = rng.integers(buf.range[0], buf.range[1] + 1, n).astype(DTYPES[dt][0])
        else:
            out[name] = rng.integers(0, 64, n).astype(DTYPES[dt][0])
    return out


def _as_float64(arr: np.ndarray, dtype: str) -> np.ndarray:
    if dtype in ("bf16", "e4m3", "e5m2", "tf32") and dtype_name(arr) not in ("bf16", "e4m3", "e5m2"):
        from volta.numerics.formats import decode

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

def run_launch(spec: LaunchSpec, role: str, inputs: dict, fp: str = "ieee", check_races: bool = True,
               generated: bool = False, scalars: dict | None = None, tensor: MmaSetting | None = None) -> RunResult:
    """Parse, lower and execute one launch of `spec` on `inputs` (arrays by buffer name). `tensor` is the
    tensor-core setting (the ptxas version; default 13.0: the CLI and the API pass the nvcc found)."""
    from volta.exec.machine import Machine
    from volta.ir.program import lower
    from volta.ptx.parser import parse_file

    from volta.exec import pipeline
    from volta.launch.spec import sequence

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
    if fp == "real":
        notes.append("--fp real: every instruction computed in exact rational arithmetic; each output element "
                     "is rounded once, to nearest, into its buffer's dtype")
    setting = tensor or MmaSetting()
    rows = [row.to_json(setting) for row in m.tensor_rows.values()]
    return RunResult(launch, buffers, inputs, outputs, list(m.findings), int(m.thread_instructions), seconds,
                     fp, generated, notes, rows)


def _exact_inputs(buffers: dict, arrays: dict) -> dict:
    """Input arrays as exact rationals (every binary float is one), for `--fp real`."""
    from fractions import Fraction

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
    from volta.errors import Unsupported
    from volta.symbolic.evaluate import EvalError, evaluate

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


def _concrete_symbols(spec: LaunchSpec, role: str, inputs: dict, scalars: dict, launch=None) -> KernelLaunch:
    """A concrete run gives every symbolic scalar (manifest [symbols]) a number: --arg NAME=V, else a
    one-element array NAME in the inputs (generated inputs include one)."""
    import dataclasses

    launch = spec.launches[role] if launch is None else launch
    values = {}
    for name in spec.symbols:
        if name in scalars:
            values[name] = str(scalars[name])
        elif name in inputs and np.asarray(inputs[name]).size == 1:
            values[name] = repr(float(np.asarray(inputs[name]).reshape(-1)[0]))
        elif name in launch.args or any(name in structargs.field_values(a) for a in launch.args
                                        if structargs.is_struct_entry(a)):
            raise UsageError(f"scalar `{name}` needs a value for a concrete run: --arg {name}=V or a one-element "
                             f"array `{name}` in --inputs")
    args = tuple(structargs.substitute(a, values, spec.symbols) for a in launch.args)
    return dataclasses.replace(launch, args=args)


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
    from volta.launch.spec import load_manifest

    spec = load_manifest(path)
    if role is None:
        role = "kernel" if "kernel" in spec.launches else "ref"
    if role not in spec.launches:
        raise UsageError(f"{path} has no [{role}] table (it has: {', '.join(spec.launches)})")
    return spec, role


def spec_from_options(ptx, kernel, grid, block, args, buffers, named_args, shared_dynamic) -> LaunchSpec:
    from volta.launch.spec import from_options

    if args is None and not named_args:
        raise UsageError("--args is required: one entry per kernel parameter, e.g. --args x,y,1024")
    parse_args_list(args or "")
    return from_options(ptx, kernel, grid, block, args, buffers, named_args, shared_dynamic)


class ChosenInputs(NamedTuple):
    arrays: dict  # buffer/symbol name -> array
    description: str  # one line: which inputs, for stderr
    generated: bool  # made here (saved in --out as input.NAME), not given
    seed: int | None  # the seed of random inputs, else None


def _lowest(buf) -> int:
    """`--inputs zeros`: 0, or the lowest value of a declared range that excludes it."""
    return 0 if buf.range is None or buf.range[0] <= 0 <= buf.range[1] else buf.range[0]


def choose_inputs(spec: LaunchSpec, inputs=None, seed: int | None = None) -> ChosenInputs:
    """The arrays a run starts from, a one-line description of them, whether they were generated, the seed.

    `inputs` is a dict of arrays, a path to an .npz, `"zeros"`, `"random"` or `"random:SEED"`; None means
    random from `seed` (default 0). Nothing is silent: the description says which inputs were used.
    Buffers with role `out` start zeroed in every mode.
    """
    if isinstance(inputs, dict):
        if seed is not None:
            raise UsageError("--seed applies to generated inputs; drop it when giving the input arrays")
        return ChosenInputs(dict(inputs), f"given arrays ({', '.join(sorted(inputs)) or 'none'})", False, None)
    mode = "random" if inputs is None else str(inputs)
    if mode == "zeros" or mode == "random" or mode.startswith("random:"):
        readable = [n for n in sorted(spec.buffers) if spec.buffers[n].role not in ("out", "temp")]
        names = ", ".join(readable + sorted(spec.symbols)) or "no input buffers"
        if mode == "zeros":
            if seed is not None:
                raise UsageError("--seed applies to random inputs, not --inputs zeros: drop one")
            arrays = {n: np.full(spec.buffers[n].count, _lowest(spec.buffers[n]), DTYPES[spec.buffers[n].dtype][0])
                      for n in readable}
            arrays.update({n: np.zeros(1, DTYPES.get(t, (np.float32,))[0]) for n, t in spec.symbols.items()})
            return ChosenInputs(arrays, f"zeros for {names}", True, None)
        if mode.startswith("random:"):
            text = mode.partition(":")[2]
            try:
                given = int(text)
            except ValueError:
                raise UsageError(f"bad --inputs `{mode}`: expected random:SEED with an integer SEED") from None
            if seed is not None and seed != given:
                raise UsageError(f"--inputs {mode} and --seed {seed} disagree: give the seed once")
            seed = given
        seed = 0 if seed is None else seed
        return ChosenInputs(random_inputs(spec.buffers, seed, spec.symbols),
                            f"random from seed {seed} for {names} (--inputs FILE.npz gives your own)", True, seed)
    if seed is not None:
        raise UsageError("--seed applies to generated inputs (--inputs random[:SEED]); drop it with an .npz file")
    arrays = load_npz(mode)
    return ChosenInputs(arrays, f"from {mode} ({', '.join(sorted(arrays)) or 'no arrays'})", False, None)
