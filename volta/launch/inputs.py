"""Concrete inputs of a launch: arrays given (.npz, dicts) or generated (`zeros`, `random[:SEED]`, and the trial
patterns `equal` and `colliding` of integer inputs), the buffers a run infers from them, and numpy dtype names.

What `volta run`, the concrete trials of `volta races` and the per-assignment checks of `volta check`
(volta/equiv/fixed_inputs.py) start from. Nothing here executes a kernel.
"""
from __future__ import annotations

import dataclasses
import difflib
from pathlib import Path
from typing import NamedTuple

import numpy as np

from volta.errors import UsageError
from volta.launch import args as kernel_args
from volta.launch.args import Number, number
from volta.launch.spec import DTYPES, Buffer, KernelLaunch, LaunchSpec, sequence

_RAW = {"bf16": np.uint16, "e4m3": np.uint8, "e5m2": np.uint8, "tf32": np.uint32}
_ML_NAMES = {"bfloat16": "bf16", "float8_e4m3fn": "e4m3", "float8_e5m2": "e5m2"}
_NUMPY_NAMES = {
    "float32": "f32", "float64": "f64", "float16": "f16", "int8": "s8", "uint8": "u8", "int16": "s16",
    "uint16": "u16", "int32": "s32", "uint32": "u32", "int64": "s64", "uint64": "u64",
}
# `--inputs` default when a data-dependent kernel falls back to concrete runs (the first --trials of them)
DEFAULT_TRIALS = ("random:0", "zeros", "equal", "colliding")
GENERATED = ("zeros", "equal", "colliding")


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


def buffer_arg_names(launch: KernelLaunch) -> list:
    """The names the `--args`/`--arg` values give (buffers among them; a struct's fields too)."""
    given = list(launch.args) + [a for _, a in launch.named]
    return list(dict.fromkeys(n for a in given for n in kernel_args.names(a)))


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
        if buf.contents is not None:   # known values (`:iota`): the run uses them whatever is drawn
            out[name] = buf.known_values()
        elif dt in ("f32", "f64", "f16"):
            out[name] = rng.standard_normal(n).astype(DTYPES[dt][0])
        elif dt in ("bf16", "e4m3", "e5m2", "tf32"):
            from volta.numerics import lanes  # start-up: numerics loads only for generated 16-bit inputs

            fmt = dt
            words = lanes.round_f64(rng.standard_normal(n), fmt)
            out[name] = words.astype(_RAW[dt])
        elif buf.range is not None:   # a declared range (token ids): uniform in it
            out[name] = rng.integers(buf.range[0], buf.range[1] + 1, n).astype(DTYPES[dt][0])
        else:
            out[name] = rng.integers(0, 64, n).astype(DTYPES[dt][0])
    return out


def _concrete_symbols(spec: LaunchSpec, role: str, inputs: dict, scalars: dict, launch=None) -> KernelLaunch:
    """A concrete run gives every symbolic scalar (manifest [symbols]) a number: --arg NAME=V, else a
    one-element array NAME in the inputs (generated inputs include one)."""
    launch = spec.launches[role] if launch is None else launch
    values = {}
    for name in spec.symbols:
        if name in scalars:
            values[name] = _number_arg(str(scalars[name]), name)
        elif name in inputs and np.asarray(inputs[name]).size == 1:
            values[name] = _number_arg(repr(float(np.asarray(inputs[name]).reshape(-1)[0])), name)
        elif name in buffer_arg_names(launch):
            raise UsageError(f"scalar `{name}` needs a value for a concrete run: --arg {name}=V or a one-element "
                             f"array `{name}` in --inputs")
    return dataclasses.replace(
        launch, args=tuple(kernel_args.with_numbers(a, values, spec.symbols) for a in launch.args),
        named=tuple((p, kernel_args.with_numbers(a, values, spec.symbols)) for p, a in launch.named))


def _number_arg(text: str, name: str) -> Number:
    """A symbol's value for a concrete run (`--arg alpha=0.5`), as the number argument it stands for."""
    value = number(text)
    if value is None:
        raise UsageError(f"--arg {name}={text}: the scalar `{name}` takes a number")
    return Number(value, text)


class ChosenInputs(NamedTuple):
    arrays: dict  # buffer/symbol name -> array
    description: str  # one line: which inputs, for stderr
    generated: bool  # made here (saved in --out as input.NAME), not given
    seed: int | None  # the seed of random inputs, else None


def _lowest(buf) -> int:
    """`--inputs zeros`: 0, or the lowest value of a declared range that excludes it."""
    return 0 if buf.range is None or buf.range[0] <= 0 <= buf.range[1] else buf.range[0]


def choose_inputs(spec: LaunchSpec, inputs=None, seed: int | None = None, fill: str | None = None,
                  complete: bool = True) -> ChosenInputs:
    """The arrays a run starts from, a one-line description of them, whether they were generated, the seed.

    `inputs` is a dict of arrays, a path to an .npz, `"zeros"`, `"random"` or `"random:SEED"`; None means
    random from `seed` (default 0). Nothing is silent: the description says which inputs were used.
    Buffers with role `out` start zeroed in every mode. Given arrays must each name a buffer (or symbol) of
    the launch, and with `complete` every buffer the kernel reads (role in/inout) must have one, unless
    `fill` ("zeros", "random[:SEED]"; also written `FILE.npz+zeros`) generates the rest knowingly.
    """
    if isinstance(inputs, str) and "+" in inputs and is_fill(inputs.rpartition("+")[2]):
        if fill is not None:
            raise UsageError(f"--inputs {inputs} already names a fill for the rest: drop the other one")
        inputs, _, fill = inputs.rpartition("+")
    if fill is not None and not is_fill(fill):
        raise UsageError(f"bad fill `{fill}` for the inputs not given: expected random, random:SEED or zeros")
    if fill is not None and not isinstance(inputs, dict) and (inputs is None or is_fill(str(inputs))):
        raise UsageError(f"a fill ({fill}) completes given arrays (an .npz or a dict): give the arrays first")
    if isinstance(inputs, dict) or (inputs is not None and not is_fill(str(inputs))):
        if isinstance(inputs, dict):
            arrays, source = dict(inputs), "the given arrays"
            described = f"given arrays ({', '.join(sorted(inputs)) or 'none'})"
        else:
            arrays, source = load_npz(str(inputs)), str(inputs)
            described = f"from {inputs} ({', '.join(sorted(arrays)) or 'no arrays'})"
        missing = _match_inputs(spec, arrays, source, need_all=complete and fill is None)
        if seed is not None and not (fill or "").startswith("random"):
            raise UsageError("--seed applies to generated inputs (--inputs random[:SEED]); drop it when giving "
                             "the input arrays")
        if not missing or fill is None:
            return ChosenInputs(arrays, described, False, None)
        rest = choose_inputs(spec, fill, seed)
        arrays.update({n: rest.arrays[n] for n in missing})
        return ChosenInputs(arrays, f"{described}; {fill} for {', '.join(missing)}", False, rest.seed)
    mode = "random" if inputs is None else str(inputs)
    readable = [n for n in sorted(spec.buffers) if spec.buffers[n].role not in ("out", "temp")]
    names = ", ".join([n for n in readable if spec.buffers[n].contents is None] + sorted(spec.symbols)) or \
        "no input buffers"
    names += "".join(f"; {n} = {spec.buffers[n].contents}" for n in readable if spec.buffers[n].contents)
    if mode == "zeros":
        if seed is not None:
            raise UsageError("--seed applies to random inputs, not --inputs zeros: drop one")
        names = names if readable or spec.symbols else "nothing (no in/inout buffer or symbol)"
        arrays = {n: np.full(spec.buffers[n].count, _lowest(spec.buffers[n]), DTYPES[spec.buffers[n].dtype][0])
                  if spec.buffers[n].contents is None else spec.buffers[n].known_values() for n in readable}
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
    described = (f"random from seed {seed} for {names} (--inputs FILE.npz gives your own)" if readable or spec.symbols
                 else f"seed {seed}, no input to draw (no in/inout buffer or symbol): only what the seed steers varies "
                      f"(bodiless functions' values, schedules)")
    return ChosenInputs(random_inputs(spec.buffers, seed, spec.symbols), described, True, seed)


FILL_HINT = 'volta run --inputs FILE.npz --inputs random; in Python, fill="random"'


def is_fill(mode: str) -> bool:
    return mode in ("zeros", "random") or mode.startswith("random:")


def _match_inputs(spec: LaunchSpec, arrays: dict, source: str, need_all: bool) -> list:
    """The buffers the kernel reads that `arrays` gives nothing for (a usage error when `need_all`); an array
    that names no buffer or symbol of the launch is always a usage error, with the names it could have meant."""
    named = set(spec.buffers) | set(spec.symbols)
    for role in spec.launches:
        for launch in sequence(spec, role):
            if isinstance(launch, KernelLaunch):
                named.update(buffer_arg_names(launch))
    for name in sorted(arrays):
        if name in spec.buffers and spec.buffers[name].role == "temp":
            raise UsageError(f"{source}: array `{name}` is for a temp buffer, which starts never-written and is no "
                             f"input: drop it")
        if name not in named:
            close = difflib.get_close_matches(name, sorted(named), n=1)
            hint = (f"did you mean `{close[0]}`? " if close else
                    f"a `volta run --out` file keeps generated inputs as input.NAME: rename them NAME; "
                    if name.startswith("input.") else "")
            raise UsageError(f"{source}: array `{name}` names no buffer of the launch ({hint}buffers: "
                             f"{', '.join(sorted(named)) or 'none'})")
    readable = [n for n in sorted(spec.buffers) if spec.buffers[n].role in ("in", "inout") and n not in arrays
                and spec.buffers[n].contents is None]   # `:iota` buffers hold known values, no input
    if readable and need_all:
        raise UsageError(f"{source}: no array for the input buffer(s) {', '.join(readable)}, which the kernel "
                         f"reads (arrays: {', '.join(sorted(arrays)) or 'none'}). Give one for each, or fill the "
                         f"rest knowingly with random or zeros ({FILL_HINT})")
    return readable


def trial_modes(inputs, trials: int | None) -> list:
    """The input modes of concrete trials. `inputs`: None (the default sequence), a dict of arrays, or
    a comma list of `random[:SEED]`, `zeros`, `equal`, `colliding`, FILE.npz. `random:S` with
    `trials` N stands for seeds S..S+N-1; a list is taken as given (`trials` must then match or be unset)."""
    if trials is not None and trials < 1:
        raise UsageError(f"--trials {trials}: give at least 1 trial")
    if isinstance(inputs, dict):
        if trials not in (None, 1):
            raise UsageError("--trials applies to generated inputs; given arrays are one trial")
        return [inputs]
    if inputs is None:
        n = trials or len(DEFAULT_TRIALS)
        return list(DEFAULT_TRIALS[:n]) + [f"random:{k}" for k in range(1, n - len(DEFAULT_TRIALS) + 1)]
    items = [i.strip() for i in str(inputs).split(",") if i.strip()]
    if not items:
        raise UsageError("--inputs is empty: give random[:SEED], zeros, equal, colliding or FILE.npz")
    for item in items:
        if item in GENERATED or item == "random" or item.endswith(".npz") or ".npz+" in item:
            continue
        if item.startswith("random:"):
            try:
                int(item.partition(":")[2])
            except ValueError:
                raise UsageError(f"bad --inputs `{item}`: expected random:SEED with an integer SEED") from None
            continue
        raise UsageError(f"bad --inputs `{item}`: expected random[:SEED], zeros, equal (every integer input one "
                         f"value), colliding (integer inputs in pairs of equal values) or FILE.npz")
    if len(items) == 1 and (items[0] == "random" or items[0].startswith("random:")) and trials:
        seed = int(items[0].partition(":")[2] or 0)
        return [f"random:{seed + k}" for k in range(trials)]
    if trials is not None and trials != len(items):
        raise UsageError(f"--trials {trials} but --inputs lists {len(items)} input set(s): give one of them")
    return items


def trial_inputs(spec: LaunchSpec, mode, complete: bool = True):
    """(arrays, one-line description) for one trial; generated patterns start from random:0 and replace
    every integer input: `equal` with one value everywhere, `colliding` with pairs of equal values. Given
    arrays must name buffers of the launch and, with `complete`, give every buffer the kernel reads."""
    if isinstance(mode, dict) or mode not in ("equal", "colliding"):
        chosen = choose_inputs(spec, mode, complete=complete)
        return chosen.arrays, chosen.description
    arrays = choose_inputs(spec, "random:0").arrays
    changed = []
    for name, arr in arrays.items():
        if arr.dtype.kind in "iu" and name in spec.buffers and spec.buffers[name].contents is None:
            lo, hi = spec.buffers[name].range or (0, 3)   # (a declared range holds these values too)
            if mode == "equal":
                arrays[name] = np.full_like(arr, min(lo + 1, hi))
            else:
                arrays[name] = np.minimum(lo + np.arange(arr.size) // 2 % 4, hi).astype(arr.dtype)
            changed.append(name)
    what = ("every integer input 1 (LO+1 of a declared range LO..HI)" if mode == "equal" else
            "integer inputs 0,0,1,1,2,2,3,3,0,0,… (from LO of a declared range)")
    return arrays, (f"{mode}: {what} ({', '.join(changed) or 'no integer inputs'}); other inputs random "
                    f"from seed 0")


def nondet_mode(mode) -> str:
    """The values bodiless functions return in a trial: drawn like its inputs (an .npz set: from seed 0)."""
    if isinstance(mode, str) and (mode in GENERATED or mode.startswith("random:")):
        return mode
    return "random:0"
