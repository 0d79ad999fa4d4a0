"""The PRECISION finding: a candidate that computes some output through a narrower float format than the
reference, and (with a tolerance) how far that takes it from the reference on inputs Volta tries.

`volta kernelbench` compares over the reals, where `x.half().float()` is `x`; a candidate that drops to
float16, bfloat16 or TF32 would be EQUIVALENT there. The stand-in records where the candidate does so
(`torchsym.switches`: casts, autocast regions, TF32 switches); the launched kernels' PTX is read for
arithmetic in a narrow format (`add.f16`, `fma.rn.bf16x2`, `cvt.rn.f16.f32`, `mma ... .f16`). Then:

1. `assess` re-runs the candidate's forward once more with every narrow value wrapped in a rounding call
   that names its event; an event is a finding when one of its calls reaches an output (a cast whose value
   nothing uses is not). Kernel events cannot be followed through the machine and are always findings.
2. With a tolerance (`--atol/--rtol`), both sides are evaluated numerically on many inputs: the reference
   exactly as written in float64, the candidate with each rounding call rounding to its format (float16 by
   numpy's conversion, bfloat16 and TF32 by rounding float32's bits). Inputs are drawn from classes
   (get_inputs-like normal and uniform values, large magnitudes, near-equal values that cancel, tiny ones);
   the result is PASS or FAIL with the worst input found. This is a search, not a bound: "worst found".
   Kernel events are not emulated (the machine computes over the reals), so a candidate with one is not
   evaluated and its finding stands.
"""
from __future__ import annotations

import linecache
import math
import os
from dataclasses import dataclass, field

import numpy as np

from volta.errors import UsageError
from volta.exec.limits import Timeout
from volta.kernelbench import candidate as C
from volta.kernelbench.engine import Stop
from volta.kernelbench.memory import DeviceMemory
from volta.kernelbench.tensor import SymTensor
from volta.kernelbench.torchsym.switches import (FORMAT_NAME, MANTISSA, ROUND_PREFIX, Precision, event_of, format_of,
                                                 round_elements)
from volta.ptx import ast
from volta.ptx.decode import iter_instructions
from volta.ptx.parser import parse_file
from volta.symbolic import expr as E
from volta.symbolic.evaluate import _FLOAT, _run

KERNELBENCH_TOLERANCE = 1e-2      # KernelBench v0/v0.1: atol = rtol = 1e-2 for float32 (eval.py)
SAMPLES_PER_CLASS = 8
SEED = 0
NARROW_TYPES = {".f16": "f16", ".f16x2": "f16", ".bf16": "bf16", ".bf16x2": "bf16", ".tf32": "tf32"}
MOVES = ("ld", "st", "mov", "cvta", "shfl", "atom", "red", "ldmatrix", "stmatrix", "cp", "prmt")


@dataclass
class Worst:
    """The input found farthest outside (or nearest to) the tolerance: which output element, which input class."""

    output: int
    index: int
    input_class: str
    reference: float
    candidate: float
    excess: float        # |cand - ref| / (atol + rtol * |ref|): above 1 fails
    inputs: dict = field(default_factory=dict)     # leaf name -> {element: value}: the whole input found


@dataclass
class Evaluation:
    atol: float
    rtol: float
    passed: bool | None                  # None: not evaluated (`why`)
    why: str = ""
    tried: int = 0                       # inputs tried
    worst: Worst | None = None
    per_class: dict = field(default_factory=dict)     # class -> worst excess


@dataclass
class PrecisionResult:
    """What the candidate computes through narrower formats than the reference, and the evaluation."""

    reference_formats: list                           # Volta names, widest first ("f32")
    reference_names: list                             # the same as torch names them ("float32")
    findings: list = field(default_factory=list)      # Event, those reaching an output (kernel events all)
    unused: list = field(default_factory=list)        # Event, narrow values no output depends on
    evaluation: Evaluation | None = None
    rounded: list | None = None     # the outputs' elements of the rerun with narrow values rounded


# ---------------------------------------------------------------- kernels

def kernel_events(precision: Precision, launches: list, built: dict) -> None:
    """Record, for each launched kernel, its instructions that compute in a format the reference does not."""
    seen = set()
    for launch in launches:
        b = built.get(getattr(launch, "extension", None))
        if b is None or b.ptx is None or (b.ptx, launch.kernel) in seen:
            continue
        seen.add((b.ptx, launch.kernel))
        module = parse_file(b.ptx)
        for fn in module.functions:
            if fn.body is None or (fn.kind == "entry" and fn.name != launch.kernel):
                continue
            for inst, loc in _located(fn.body, lambda loc: _origin(b, module, loc)):
                fmt = narrow_format(inst.opcode)
                if fmt is None or not precision.loses(fmt):
                    continue
                file, line = loc
                code = linecache.getline(file, line).strip() if file and line else ""
                what = f"`{inst.opcode}` in kernel {launch.kernel}"
                precision.kernel_event(fmt, what, file, line, code)


GEMM_FORMATS = {"tf32": "tf32", "fp16": "f16", "bf16": "bf16", "fp16-accumulate": "f16"}


def gemm_events(precision: Precision, gemms: list) -> None:
    """A cuBLAS GEMM whose math mode or compute type lets the GPU round below its data types (TF32 tensor-op
    math, a 16-bit compute type): a place computed in that format, like a kernel's narrow instruction. The
    host code's line is not recorded, so the event names the call."""
    for g in gemms:
        fmt = GEMM_FORMATS.get(g.precision)
        if fmt is not None and precision.loses(fmt):
            precision.kernel_event(fmt, f"cuBLAS {g.describe()}", None, None, "")


def narrow_format(opcode: str) -> str | None:
    """The narrow format an instruction computes in: its result type for a conversion, any operand type for
    arithmetic (an mma on float16 inputs multiplies float16 values); None for moves and widening."""
    parts = opcode.split(".")
    if parts[0] in MOVES or (parts[0] == "wmma" and parts[1:2] in (["load"], ["store"])):
        return None
    types = ["." + p for p in parts[1:] if "." + p in NARROW_TYPES or p in ("f32", "f64")]
    if not types:
        return None
    if parts[0] == "cvt":
        return NARROW_TYPES.get(types[0])          # cvt.rn.f16.f32: the destination type comes first
    return next((NARROW_TYPES[t] for t in types if t in NARROW_TYPES), None)


def _located(body, origin):
    """(instruction, (file, line)) for every instruction, nested blocks included: the candidate's line of the
    last `.loc` before it that `origin` places in the candidate (a header's inlined line keeps the call's)."""
    loc = (None, None)
    for stmt in body:
        if isinstance(stmt, ast.Loc):
            found = origin(stmt)
            if found[0] is not None:
                loc = found
        elif isinstance(stmt, ast.Instruction):
            yield stmt, loc
        elif isinstance(stmt, ast.Block):
            for inst in iter_instructions(stmt.body):
                yield inst, loc


def _origin(built, module, loc) -> tuple:
    """(candidate file, line) of a `.loc`, or (None, None) where it is no line of the candidate's sources."""
    generated = os.path.basename(str(module.files.get(loc.file, "")))
    origin = built.ext.origin(generated, loc.line) if built.ext else None
    return origin if origin else (None, None)


# ---------------------------------------------------------------- the evaluation run

def assess(precision: Precision, problem, host, model, run, ref_outs: list, cand_outs: list,
           tolerance: tuple | None) -> PrecisionResult | None:
    """The PRECISION result of a finished candidate run, or None when it computes in the reference's formats."""
    kernel_events(precision, host.launches, host.built)
    gemm_events(precision, host.gemms)
    events = list(precision.events.values())
    if not events:
        return None
    formats = sorted(precision.reference | {f for _, f in precision.reference_ops}, key=lambda f: -MANTISSA[f])
    result = PrecisionResult(formats, [FORMAT_NAME[f] for f in formats])
    in_kernels = any(ev.kind == "kernel" for ev in events)
    # a kernel event is a finding whatever the rerun says, and stops the evaluation: no rerun for it
    rounded = None if in_kernels else _rounded_outputs(precision, problem, host, model, run, events)
    result.rounded = rounded
    reached = _reached(rounded) if rounded is not None else None
    for ev in events:
        if ev.kind == "kernel" or reached is None or ev.index in reached:
            result.findings.append(ev)
        else:
            result.unused.append(ev)
    if result.findings and tolerance is not None:
        atol, rtol = tolerance
        if in_kernels:
            result.evaluation = Evaluation(atol, rtol, None, "a kernel computes in a narrow format, and Volta's "
                                           "machine computes over the reals: its rounding is not emulated")
        elif rounded is None:
            result.evaluation = Evaluation(atol, rtol, None, "the candidate did not run again with rounding")
        else:
            result.evaluation = evaluate(ref_outs, rounded, atol, rtol, problem)
    return result if result.findings or result.unused else None


def _rounded_outputs(precision: Precision, problem, host, model, run, events: list):
    """The candidate's outputs with every narrow value rounded (a second symbolic forward), or None."""
    held = C.held_storages(model)
    saved = [(s, s.values.copy()) for s in held]
    memory = host.memory
    host.memory = DeviceMemory()
    precision.rounding = True
    try:
        for s in held:
            event = next((e for e in events if e.format == s.dtype and e.kind != "kernel"), None)
            if event is not None:
                s.values[:] = round_elements(s.values, event)
        outs = C.forward(model, problem.fresh_inputs(), run)
        return [t.values() if isinstance(t, SymTensor) else None for t in outs]
    except (Timeout, UsageError, MemoryError):     # the check's limits, not this run's failure
        raise
    except (Stop, Exception):     # a rerun that fails loses the evaluation and the unused-event split only
        return None
    finally:
        precision.rounding = False
        for s, v in saved:
            s.values[:] = v
        host.memory = memory


def _reached(outputs: list) -> set:
    found, memo = set(), set()
    for values in outputs:
        if values is None:
            continue
        for v in values:
            if type(v) is not E.Expr:
                continue
            for node in E.postorder(v, memo):
                memo.add(node)
                if node.op is E.CALL:
                    index = event_of(node.data)
                    if index is not None:
                        found.add(index)
    return found


# ---------------------------------------------------------------- numeric evaluation

def round_to(fmt: str, x):
    """float64 values rounded to `fmt` (round to nearest even; float16 overflows to inf as on a GPU)."""
    x = np.asarray(x, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        if fmt == "f16":
            return x.astype(np.float16).astype(np.float64)
        keep = {"bf16": 16, "tf32": 13}[fmt]          # low bits of float32 the format drops
        bits = x.astype(np.float32).view(np.uint32).astype(np.uint64)
        half, mask = 1 << (keep - 1), (1 << keep) - 1
        up = bits + (half - 1) + ((bits >> keep) & 1)
        out = (up & ~np.uint64(mask) & 0xFFFFFFFF).astype(np.uint32).view(np.float32).astype(np.float64)
        return np.where(np.isfinite(x.astype(np.float32)), out, x)


def _rint(x, mode):
    return {".rni": np.rint, ".rzi": np.trunc, ".rmi": np.floor, ".rpi": np.ceil}[mode](x)


def _select(c, a, b):
    return np.where(c, a, b)


_VECTOR = {**_FLOAT,
           E.DIV: lambda a, b: np.divide(a, b), E.EXP2: np.exp2, E.MAX: np.fmax, E.MIN: np.fmin, E.ABS: np.abs,
           E.SELECT: _select, E.SQRT: np.sqrt, E.RSQRT: lambda x: 1.0 / np.sqrt(x), E.RCP_APPROX: lambda x: 1.0 / x,
           E.TANH: np.tanh, E.SIN: np.sin, E.COS: np.cos, E.LG2: np.log2,
           E.FLOOR_LOG2: lambda x: np.frexp(x)[1] - 1.0, E.RINT: _rint,
           E.LT: np.less, E.LE: np.less_equal, E.EQ: np.equal, E.NE: np.not_equal,
           E.AND: np.logical_and, E.OR: np.logical_or, E.NOT: np.logical_not}


class _Functions(dict):
    """CALL names the evaluation knows: the rounding calls (any event) and the real functions the stand-in
    leaves uninterpreted (`erf`, reals.py)."""

    def __init__(self):
        super().__init__(erf=np.vectorize(math.erf, otypes=[np.float64]))

    def __contains__(self, name) -> bool:
        return name.startswith(ROUND_PREFIX) or dict.__contains__(self, name)

    def __missing__(self, name):
        if name.startswith(ROUND_PREFIX):
            fmt = format_of(name)
            return lambda x: round_to(fmt, x)
        raise KeyError(name)


def _coerce(value):
    if isinstance(value, np.ndarray):
        return value
    return float(value)


def _input_classes(rng, n: int) -> dict:
    """Named generators of n values for one input element."""
    return {
        "randn (like get_inputs)": lambda: rng.standard_normal(n),
        "rand (like get_inputs)": lambda: rng.random(n),
        "large (x1e3)": lambda: rng.standard_normal(n) * 1e3,
        "very large (x3e4)": lambda: rng.standard_normal(n) * 3e4,
        "near-equal (100 + 1e-2 noise, cancels)": lambda: 100.0 + rng.standard_normal(n) * 1e-2,
        "tiny (x1e-4)": lambda: rng.standard_normal(n) * 1e-4,
    }


def evaluate(ref_outs: list, cand_values: list, atol: float, rtol: float, problem) -> Evaluation:
    """Both sides evaluated on SAMPLES_PER_CLASS inputs of each class; PASS when every finite reference value
    is met within atol + rtol * |ref| (torch.allclose), else FAIL with the worst input found."""
    ref_values = [t.values() if isinstance(t, SymTensor) else None for t in ref_outs]
    leaves = set()
    memo: set = set()
    for values in ref_values + cand_values:
        for v in values if values is not None else ():
            if type(v) is E.Expr:
                for node in E.postorder(v, memo):
                    memo.add(node)
                    if node.op is E.VAR:
                        leaves.add(node)
    rng = np.random.default_rng(SEED)
    classes = _input_classes(rng, SAMPLES_PER_CLASS)
    names = list(classes)
    integers = problem.integer_ranges
    env = {}
    for leaf in sorted(leaves, key=lambda n: n.data):
        if leaf.data[0] in integers:
            lo, hi = integers[leaf.data[0]]
            env[leaf] = rng.integers(lo, hi + 1, SAMPLES_PER_CLASS * len(names)).astype(np.float64)
        else:
            env[leaf] = np.concatenate([classes[c]() for c in names])
    evaluation = Evaluation(atol, rtol, True, tried=SAMPLES_PER_CLASS * len(names))
    funcs = _Functions()
    ref_memo, cand_memo = {}, {}
    width = SAMPLES_PER_CLASS * len(names)
    with np.errstate(all="ignore"):
        for k, (rv, cv) in enumerate(zip(ref_values, cand_values)):
            if rv is None or cv is None:
                continue
            for i, (r, c) in enumerate(zip(rv, cv)):
                try:
                    ref = np.broadcast_to(_value(r, env, funcs, ref_memo), (width,))
                    cand = np.broadcast_to(_value(c, env, funcs, cand_memo), (width,))
                except (KeyError, TypeError, ValueError, ArithmeticError) as err:
                    return Evaluation(atol, rtol, None, f"output {k}[{i}] cannot be evaluated numerically ({err})")
                valid = np.isfinite(ref)
                excess = np.where(valid, np.abs(cand - ref) / (atol + rtol * np.abs(ref)), 0.0)
                excess = np.where(valid & ~np.isfinite(cand), np.inf, excess)
                j = int(np.argmax(excess))
                for ci, name in enumerate(names):
                    part = excess[ci * SAMPLES_PER_CLASS:(ci + 1) * SAMPLES_PER_CLASS]
                    evaluation.per_class[name] = max(evaluation.per_class.get(name, 0.0), float(part.max()))
                if evaluation.worst is None or excess[j] > evaluation.worst.excess:
                    chosen = {}
                    for leaf, column in env.items():
                        chosen.setdefault(leaf.data[0], {})[leaf.data[1]] = float(column[j])
                    evaluation.worst = Worst(k, i, names[j // SAMPLES_PER_CLASS], float(ref[j]), float(cand[j]),
                                             float(excess[j]), chosen)
    evaluation.passed = evaluation.worst is None or evaluation.worst.excess <= 1.0
    return evaluation


def _value(root, env, funcs, memo):
    if type(root) is not E.Expr:
        return float(root)
    return _run(root, env, _VECTOR, _coerce, funcs, memo)


__all__ = ["Evaluation", "KERNELBENCH_TOLERANCE", "PrecisionResult", "Worst", "assess", "evaluate",
           "kernel_events", "narrow_format", "round_to"]
