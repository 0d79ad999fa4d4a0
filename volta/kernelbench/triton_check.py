"""`volta triton LAUNCHER.py:fn [--ref REF.py:fn] [--size NAME=VALUE ...]`: a Triton launcher against plain torch.

The user story: a production launcher (`layer_norm_fwd(x, w, b, eps)`: allocations, strides, BLOCK_SIZE and
num_warps from the sizes, one or more `kernel[grid](...)`, torch to finish) and a reference written in plain
torch (`torch.nn.functional.layer_norm(x, ...)`), in a file that also says what the inputs are, as a
KernelBench problem does: top-level sizes (`rows, cols = 4, 64`) and `get_inputs()`. Both run on the torch
stand-in (volta/kernelbench/torchsym) over the same inputs, named after the reference's parameters (`x[i]`,
`w[i]`): the reference computes expressions, the launcher's kernels run on Volta's machine as a GPU launch
would compile them (volta/kernelbench/triton_launch.py). Then:

- every launch's findings (races, out of bounds, uninitialized reads, deadlocks) come first: a blocking one
  is the verdict (FINDINGS), since the outputs are then not one function of the inputs; the benign kinds
  (stores of one value from replicated warps, `nondeterministic-bits`) are listed beside the verdict;
- the launcher's outputs (the tensors it returns, in order) are compared with the reference's element by
  element with `volta check`'s decision (identical, equal normal forms, random search, Z3). An element the
  launcher never wrote is a finding. A difference is reported only when both sides, re-run on the witness's
  values as constants (the kernels executed again, exactly), give two values that certainly differ.

Without `--ref` only the findings are decided (the inputs then come from the launcher's own file). `--size`
sets a top-level size of the file that defines `get_inputs`; sizes above 64 are scaled down as KernelBench
problems are (volta/kernelbench/sizes.py), and the report says which.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from volta.equiv.check import MAX_UNKNOWN, _compare, _exact, _expansion
from volta.errors import Unsupported, UsageError
from volta.exec.limits import Timeout
from volta.kernelbench.elements import UNWRITTEN
from volta.kernelbench.problem import collector_paused, outputs_of
from volta.kernelbench.sizes import SizePolicy, instrument
from volta.kernelbench.tensor import SymTensor, from_array
from volta.kernelbench.torchsym import installed, new_run
from volta.kernelbench.triton_launch import (DEFAULT_SMS, LauncherRun, StorageNames, load_function, load_module,
                                             reporting, run_launcher)
from volta.symbolic import cuts, expr as E
from volta.symbolic.normal import Normalizer, equal, normalize
from volta.symbolic.verdict import Proved, Unknown

EQUIVALENT, NOT_EQUIVALENT, FINDINGS, UNKNOWN, CLEAN = "equivalent", "not-equivalent", "findings", "unknown", "clean"
EXIT_CODES = {EQUIVALENT: 0, CLEAN: 0, NOT_EQUIVALENT: 1, FINDINGS: 1, UNKNOWN: 3, "unsupported": 3}


@dataclass
class Difference:
    """A confirmed difference: output `output`, element `index` (row-major), both exact values, and the input
    values that show it (input name -> {element: value}; elements not listed are 1)."""

    output: int
    index: int
    shape: tuple
    ref_value: object
    launcher_value: object
    inputs: dict = field(default_factory=dict)
    structural: str | None = None   # a difference in the number or shapes of outputs

    @property
    def position(self) -> tuple:
        return tuple(int(i) for i in np.unravel_index(self.index, self.shape)) if self.shape else ()


@dataclass
class TritonResult:
    """The outcome of `volta triton`: the verdict, the launches, and the evidence."""

    launcher: str
    ref: str | None
    verdict: str = EQUIVALENT
    launches: list = field(default_factory=list)        # triton_launch.Launched
    sizes: list = field(default_factory=list)           # kernelbench.sizes.Choice of the inputs file
    inputs: list = field(default_factory=list)          # (name, shape, dtype) of a tensor, (name, None, repr)
    compared: int = 0
    proved_by: dict = field(default_factory=dict)
    unknown: list = field(default_factory=list)         # (output, index, reason)
    difference: Difference | None = None
    unwritten: dict = field(default_factory=dict)       # output -> flat indices the launcher never wrote
    error: Unsupported | None = None
    seconds: float = 0.0
    sms: int = DEFAULT_SMS

    @property
    def exit_code(self) -> int:
        return EXIT_CODES[self.verdict]

    @property
    def findings(self) -> list:
        return [f for launch in self.launches for f in launch.executed.findings]

    @property
    def blocking(self) -> list:
        return [f for launch in self.launches if launch.executed.blocked for f in launch.executed.findings]


def check(launcher: str, ref: str | None = None, sizes: dict | None = None, timeout_ms: int = 10_000,
          sms: int = DEFAULT_SMS, progress=None) -> TritonResult:
    """Run `launcher` (FILE.py:FUNCTION) and, when given, `ref` (FILE.py:FUNCTION) on the inputs of `get_inputs`
    (the reference's file, else the launcher's) and decide them (module docstring). Bad input raises a
    `UsageError`; what Volta does not model is the verdict `unsupported` with its error."""
    start = time.perf_counter()
    for spec, what in ((launcher, "the launcher"), (ref, "--ref")):
        if spec is not None:
            split_spec(spec, what)
    result = TritonResult(launcher, ref, sms=sms)
    try:
        _check(result, sizes or {}, timeout_ms, progress)
    except Unsupported as err:
        result.verdict, result.error = "unsupported", err
    except Timeout as err:
        result.verdict = UNKNOWN
        result.unknown.append((0, 0, err.message))
    result.seconds = time.perf_counter() - start
    return result


def split_spec(spec: str, what: str) -> tuple:
    """(file, function) of `FILE.py:FUNCTION`, or a usage error."""
    path, colon, name = str(spec).rpartition(":")
    if not colon or not path or not name.isidentifier():
        raise UsageError(f"{what} `{spec}`: expected FILE.py:FUNCTION")
    return path, name


def _check(result: TritonResult, sizes: dict, timeout_ms: int, progress) -> None:
    run = new_run(symbolic=True)
    inputs_file = (result.ref or result.launcher).rpartition(":")[0]
    with collector_paused(), installed(run):
        if progress is not None:
            progress(f"inputs: {inputs_file}")
        module, result.sizes = _load_inputs(inputs_file, sizes, run)
        ref_fn = load_function(result.ref, run, "the reference") if result.ref else None
        fn = load_function(result.launcher, run, "the launcher")
        named = _named_inputs(module, ref_fn or fn, run, inputs_file)
        result.inputs = [(n, tuple(t.shape), t.dtype.volta) if isinstance(t, SymTensor) else (n, None, repr(t))
                         for n, t in named]
        if progress is not None:
            progress(f"running the launcher {result.launcher}")
        launched = _launch(fn, result.launcher, named, run, result.sms)
        result.launches = launched.launches
        if result.blocking:
            result.verdict = FINDINGS
            return
        if ref_fn is None:
            result.verdict = CLEAN
            return
        if progress is not None:
            progress(f"running the reference {result.ref}")
        with reporting(result.ref.rpartition(":")[0], "the reference"):
            expected = outputs_of(ref_fn(*_copies(named, run)), "the reference")
        produced = outputs_of(launched.result, "the launcher") if launched.result is not None else []
        if progress is not None:
            progress("comparing outputs")
        _compare_outputs(result, expected, produced, timeout_ms,
                         lambda model: _replay(result, fn, ref_fn, named, model, sms=result.sms))


def _load_inputs(path: str, given: dict, run):
    """The file that says what the inputs are, executed with its top-level sizes hooked (given ones set)."""
    try:
        with open(path, encoding="utf-8") as f:
            source = f.read()
    except OSError as err:
        raise UsageError(f"cannot read {path}: {err.strerror}") from None
    try:
        code = instrument(source, path)
    except SyntaxError as err:
        raise UsageError(f"{path} does not parse: {err.msg}") from None
    unknown = sorted(set(given) - set(code.sizes))
    if unknown:
        known = ", ".join(sorted(n for n, info in code.sizes.items() if info.root)) or "none"
        raise UsageError(f"--size names {', '.join(unknown)}, which {path} does not assign at top level "
                         f"(its sizes: {known})")
    policy = SizePolicy(code.sizes, dict(given))
    module = load_module(path, run, "the inputs file", code=code.code, extra=policy.hooks())
    if not callable(module.__dict__.get("get_inputs")):
        raise UsageError(f"{path} defines no `get_inputs()`: the file of the reference (or, without --ref, of the "
                         f"launcher) says what the inputs are, as a KernelBench problem does")
    return module, list(policy.choices.values())


def _named_inputs(module, fn, run, path: str) -> list:
    """get_inputs()'s values, each tensor of floats made fresh leaves named after `fn`'s parameter at its
    position (`x[i]`); a tensor of constants (arange, a mask) keeps its values; other values stay as they are."""
    import inspect

    with reporting(path, "get_inputs()"):
        values = list(module.get_inputs())
    params = [p.name for p in inspect.signature(fn).parameters.values()
              if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    named = []
    for k, value in enumerate(values):
        name = params[k] if k < len(params) else f"input{k}"
        if isinstance(value, SymTensor):
            flat = value.values()
            if not all(type(v) is E.Expr and v.op is E.CONST for v in flat):
                if not value.dtype.is_floating_point:
                    raise Unsupported(f"input `{name}` is an integer tensor drawn at random: integer data as "
                                      f"kernel input (indices, ids) is not modelled by the launcher check yet")
                flat = run.kit.leaves(name, value.numel())
            value = from_array(flat.reshape(tuple(value.shape)), value.dtype, run.session, name)
        named.append((name, value))
    return named


def _copies(named: list, run) -> list:
    """Fresh tensors with the inputs' values (each side gets its own storages; the leaves are shared)."""
    return [from_array(t.values().reshape(tuple(t.shape)), t.dtype, run.session, n) if isinstance(t, SymTensor)
            else t for n, t in named]


def _launch(fn, path_spec: str, named: list, run, sms: int) -> LauncherRun:
    names = StorageNames()
    args = _copies(named, run)
    for (n, _), t in zip(named, args):
        if isinstance(t, SymTensor):
            names.add(t.storage, n)
    return run_launcher(fn, path_spec.rpartition(":")[0], args, run, names, sms)


def _compare_outputs(result: TritonResult, expected: list, produced: list, timeout_ms: int, replay) -> None:
    if len(expected) != len(produced):
        result.verdict = NOT_EQUIVALENT
        result.difference = Difference(0, 0, (), None, None, structural=(
            f"the reference returns {len(expected)} tensor(s) and the launcher {len(produced)}"))
        return
    for k, (r, c) in enumerate(zip(expected, produced)):
        if tuple(r.shape) != tuple(c.shape):
            result.verdict = NOT_EQUIVALENT
            result.difference = Difference(k, 0, tuple(r.shape), None, None, structural=(
                f"output {k} has shape {list(r.shape)} in the reference and {list(c.shape)} from the launcher"))
            return
    pairs = [(r.values(), c.values(), tuple(r.shape)) for r, c in zip(expected, produced)]
    for k, (a, b, _) in enumerate(pairs):
        if any(v is UNWRITTEN for v in a):
            raise Unsupported(f"the reference's output {k} has elements nothing wrote (torch.empty returned as is)")
        missing = [i for i, v in enumerate(b) if v is UNWRITTEN]
        if missing:
            result.unwritten[k] = missing
    if result.unwritten:
        result.verdict = FINDINGS
        return
    norm = Normalizer()

    def nf(e):
        return normalize(e, norm)

    # shared row statistics proved equal once, then atoms (volta/symbolic/cuts.py)
    cut_a, cut_b, made = cuts.cut([x for a, _, _ in pairs for x in a], [x for _, b, _ in pairs for x in b],
                                  nf, equal, _expansion)
    j = -1
    for k, (a, b, shape) in enumerate(pairs):
        for i in range(len(a)):
            result.compared += 1
            j += 1
            if a[i] is b[i]:
                result.proved_by["identical"] = result.proved_by.get("identical", 0) + 1
                continue
            if made and cuts.proved_equal(cut_a[j], cut_b[j], a[i], b[i], nf, equal, _expansion):
                result.proved_by["cut-points"] = result.proved_by.get("cut-points", 0) + 1
                continue
            verdict = _compare(a[i], b[i], norm, timeout_ms, None, f"out{k}", i)
            if isinstance(verdict, Proved):
                result.proved_by[verdict.how] = result.proved_by.get(verdict.how, 0) + 1
                continue
            if isinstance(verdict, Unknown):
                result.unknown.append((k, i, verdict.reason))
            else:
                difference = _confirmed(replay(verdict.model), k, i, shape)
                if difference is not None:
                    result.verdict, result.difference = NOT_EQUIVALENT, difference
                    return
                result.unknown.append((k, i, "a candidate counterexample could not be confirmed exactly"))
            if len(result.unknown) >= MAX_UNKNOWN:
                break
    if result.unknown:
        result.verdict = UNKNOWN


def _replay(result: TritonResult, fn, ref_fn, named: list, model: dict, sms: int):
    """Both sides again on the witness: every input element a constant (the model's value, else 1); the
    launcher's kernels execute on those constants exactly. Returns (inputs, reference outputs, launcher
    outputs), or None when the replay meets something it does not model."""
    run = new_run(symbolic=True)
    values, constant = {}, []
    for name, t in named:
        if not isinstance(t, SymTensor):
            constant.append((name, t))
            continue
        chosen = {}
        leaves = t.values()
        flat = np.empty(leaves.shape[0], object)
        for i, leaf in enumerate(leaves):
            v = model.get(leaf, Fraction(1)) if type(leaf) is E.Expr and leaf.op is E.VAR else None
            flat[i] = E.const(v) if v is not None else leaf
            if v is not None and leaf in model:
                chosen[i] = v
        values[name] = chosen
        constant.append((name, from_array(flat.reshape(tuple(t.shape)), t.dtype, run.session, name)))
    try:
        with installed(run):
            expected = outputs_of(ref_fn(*_copies(constant, run)), "the reference")
            launched = _launch(fn, result.launcher, constant, run, sms)
    except (Unsupported, UsageError):
        return None
    if any(launch.executed.blocked for launch in launched.launches):
        return None
    return values, expected, outputs_of(launched.result, "the launcher")


def _confirmed(replayed, k: int, i: int, shape: tuple) -> Difference | None:
    if replayed is None:
        return None
    inputs, expected, produced = replayed
    a, b = _exact(expected[k].values()[i]), _exact(produced[k].values()[i])
    if a is None or b is None or not a != b:
        return None
    return Difference(k, i, shape, a, b, inputs)


__all__ = ["TritonResult", "Difference", "check"]
