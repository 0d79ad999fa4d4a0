"""Load a KernelBench problem file and run its reference `Model` symbolically.

    problem = load_problem("19_ReLU.py")               # sizes scaled down, named in problem.sizes
    outputs = problem.reference_outputs()               # SymTensors whose elements are expressions

Loading executes the file on the torch stand-in with its size globals scaled (`sizes.py`); a float dry
run (`elements.FloatKit`) measures the work each choice of sizes costs and lowers the largest sizes until
it fits the budget. Then the symbolic run calls `get_init_inputs()`, `Model(*init_inputs)` and
`get_inputs()`, and names the leaves: an input's elements are `E.var(p, i)` with `p` the name of
`Model.forward`'s parameter at that position (`input0`, `input1`... when forward takes `*args`); a
parameter's or BatchNorm running statistic's elements are `E.var(q, i)` with `q` its qualified name
(`conv.weight`), whatever value torch would have initialised it to. An input that get_inputs derives
from random tensors (`torch.triu(torch.rand(N, N))`) keeps the derivation, over leaves named after it.
A boolean input drawn as `randint(0, 2, ...).bool()` is a 0/1 integer leaf.
"""
from __future__ import annotations

import builtins
import contextlib
import gc
import inspect
import os
import traceback
from dataclasses import dataclass, field

import numpy as np

from volta.errors import Span, Unsupported, UsageError, VoltaError
from volta.kernelbench import dtypes as D
from volta.kernelbench.elements import BudgetExceeded, replace_leaves
from volta.kernelbench.failures import TorchError
from volta.kernelbench.sizes import Choice, Instrumented, SizePolicy, instrument, largest
from volta.kernelbench.tensor import SymTensor
from volta.kernelbench.torchsym import Run, installed, new_run
from volta.kernelbench.torchsym.module import Module, Parameter
from volta.symbolic import expr as E

DEFAULT_BUDGET = 300_000          # element operations of the dry run a reference may cost at default sizes
HARD_LIMIT_FACTOR = 20            # the symbolic run stops past this many times the budget
DRY_RUN_FACTOR = 30                # a dry run stops past this many times the budget (too big to judge)
MAX_ATTEMPTS = 100


@dataclass
class Problem:
    """A problem file loaded at chosen sizes, its reference model built, its inputs named."""

    path: str
    run: Run
    namespace: dict
    model: Module
    init_inputs: list
    inputs: list                                   # get_inputs() (tensors and plain values)
    input_names: list[str]
    parameters: dict[str, SymTensor]               # qualified name -> parameter or buffer with named leaves
    sizes: list[Choice]
    integer_ranges: dict[str, tuple[int, int]] = field(default_factory=dict)   # leaf name -> [lo, hi]
    reference_inputs: list = field(default_factory=list)   # the inputs as the reference's forward left them
    initial: dict = field(default_factory=dict)    # qualified name -> a constant parameter's elements before naming
    cost: int = 0                                  # element operations of the dry run at these sizes

    @property
    def scaled(self) -> list[Choice]:
        """The sizes that differ from the file's (what a report must say)."""
        return [c for c in self.sizes if c.how != "kept"]

    def fresh_inputs(self) -> list:
        """Copies of the inputs (new storages, the same element values): what one forward call gets."""
        return [t.clone() if isinstance(t, SymTensor) else t for t in self.inputs]

    def candidate_run(self) -> Run:
        """A Run on the same session (tensors interoperate) for executing a candidate file."""
        return Run(self.run.session, streams=self.run.streams)   # one session, one stream order

    def reference_outputs(self) -> list[SymTensor]:
        """Model.forward on fresh copies of the inputs, symbolically: the output tensors, in order."""
        self.reference_inputs = self.fresh_inputs()     # kept: the in-place writes the reference makes
        with _reporting(self.path, self.run), collector_paused(), installed(self.run):
            result = self.model(*self.reference_inputs)
        return outputs_of(result, "Model.forward")


@contextlib.contextmanager
def collector_paused():
    """The cyclic garbage collector off for a symbolic run: every node it interns lives as long as the
    process (expr._TABLE), so its scans free nothing and grow with the run (a 64³ matmul: 10.6 s with the
    collector, see volta/exec/fast/onethread.py for the same measurement on the machine)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def outputs_of(result, what: str) -> list[SymTensor]:
    """forward's return value as a list of tensors (a tensor, or a tuple/list of them)."""
    if isinstance(result, SymTensor):
        return [result]
    if isinstance(result, (tuple, list)) and result and all(isinstance(t, SymTensor) for t in result):
        return list(result)
    raise Unsupported(f"{what} returned {type(result).__name__}, not a tensor or a tuple of tensors")


def load_problem(path: str, sizes: dict[str, int] | None = None, budget: int = DEFAULT_BUDGET) -> Problem:
    """Load a problem file: sizes from `sizes` (module globals by name) and scaled defaults for the rest."""
    try:
        with open(path, encoding="utf-8") as f:
            source = f.read()
    except OSError as error:
        raise UsageError(f"cannot read the problem file {path}: {error.strerror}") from None
    try:
        code = instrument(source, path)
    except SyntaxError as error:
        raise UsageError(f"the problem file does not parse: {error.msg}",
                         Span(path, error.lineno or 1, error.offset or 1)) from None
    given = dict(sizes or {})
    unknown = sorted(set(given) - set(code.sizes))
    if unknown:
        known = ", ".join(sorted(n for n, info in code.sizes.items() if info.root)) or "none"
        raise UsageError(f"--size names {', '.join(unknown)}, which {path} does not assign at top level "
                         f"(its sizes: {known})")
    policy, cost = choose_sizes(path, code, given, budget)
    run = new_run(symbolic=True, limit=HARD_LIMIT_FACTOR * max(budget, cost))
    policy.choices = {}
    with _reporting(path, run), collector_paused():
        built = _build(path, code, policy, run)
        names = _input_names(built.namespace, built.inputs)
        ranges = _name_inputs(run, built.inputs, names)
        initial: dict = {}
        parameters = name_state(run, built.model, initial)
    run.random_allowed = False
    return Problem(path, run, built.namespace, built.model, built.init_inputs, built.inputs, names, parameters,
                   list(policy.choices.values()), ranges, cost, initial=initial)


# ---------------------------------------------------------------- executing the file

@dataclass
class _Built:
    namespace: dict
    init_inputs: list
    model: Module
    inputs: list


def _build(path: str, code: Instrumented, policy: SizePolicy, run: Run) -> _Built:
    namespace = {"__name__": "__volta_problem__", "__file__": os.path.abspath(path), "__builtins__": builtins,
                 **policy.hooks()}
    with installed(run):
        exec(code.code, namespace)
        for name in ("Model", "get_inputs", "get_init_inputs"):
            if name not in namespace:
                raise UsageError(f"{path} defines no `{name}` (a KernelBench problem defines Model, get_inputs "
                                 "and get_init_inputs)")
        init_inputs = list(namespace["get_init_inputs"]())
        model = namespace["Model"](*init_inputs)
        inputs = list(namespace["get_inputs"]())
    return _Built(namespace, init_inputs, model, inputs)


@dataclass
class _Trial:
    outcome: str        # "fits", "over" (ran, costs more than the budget), "huge" (stopped), "error"
    cost: int


def _dry_run(path: str, code: Instrumented, policy: SizePolicy, budget: int) -> _Trial:
    """The whole reference in floats at the policy's sizes, stopped past DRY_RUN_FACTOR × budget."""
    policy.choices = {}
    run = new_run(symbolic=False, limit=DRY_RUN_FACTOR * budget)
    try:
        with installed(run):
            built = _build(path, code, policy, run)
            run.random_allowed = False
            made = run.session.empty_made
            built.model(*built.inputs)
    except BudgetExceeded:
        return _Trial("huge", run.kit.meter.used)
    except Exception:        # a shape error at these sizes (or an unsupported op: the symbolic run says which)
        return _Trial("error", run.kit.meter.used)
    cost = run.kit.meter.used
    if run.session.empty_made > made:   # an intermediate or output of no element: sizes that break the model
        return _Trial("error", cost)
    return _Trial("fits" if cost <= budget else "over", cost)


def choose_sizes(path: str, code: Instrumented, given: dict, budget: int) -> tuple[SizePolicy, int]:
    """Default sizes; while the float dry run of the reference costs more than `budget` element operations,
    first halve every shrinkable size together (ratios between sizes are kept), then lower the largest
    shrinkable size one at a time. Where the default sizes break the model, they keep small odd factors too
    (`SizePolicy.keep_odd`). A step that breaks the model (a shape error, or a tensor of no element
    anywhere in forward: a pooling chain or a slice emptied) is undone; a size whose lowering broke it is left
    alone."""
    policy = SizePolicy(code.sizes, given)
    trial = _dry_run(path, code, policy, budget)
    if trial.outcome == "error":         # the power-of-two scaling broke a divisibility the model needs
        policy.keep_odd = True
        retry = _dry_run(path, code, policy, budget)
        if retry.outcome == "error":
            policy.keep_odd = False
        else:
            trial = retry
    while trial.outcome in ("over", "huge") and policy.halve_all():
        step = _dry_run(path, code, policy, budget)
        if step.outcome == "error":
            policy.shift -= 1
            break
        trial = step
    frozen: set[str] = set()
    for _ in range(MAX_ATTEMPTS):
        if trial.outcome not in ("over", "huge"):
            break
        trial = _dry_run(path, code, policy, budget)       # re-records the choices of the current policy
        candidates = [n for n in policy.choices if policy.shrinkable(n) and n not in frozen]
        candidates.sort(key=lambda n: -largest(policy.choices[n].value))
        lowered = None
        for name in candidates:
            previous = policy.caps.get(name)
            if policy.lower(name):
                lowered = (name, previous)
                break
            frozen.add(name)
        if lowered is None:
            break
        step = _dry_run(path, code, policy, budget)
        if step.outcome == "error":
            name, previous = lowered
            if previous is None:
                policy.caps.pop(name)
            else:
                policy.caps[name] = previous
            frozen.add(name)
            continue
        trial = step
    _dry_run(path, code, policy, budget)                   # the choices of the final policy
    return policy, trial.cost


# ---------------------------------------------------------------- naming the leaves

def _input_names(namespace: dict, inputs: list) -> list[str]:
    """forward's parameter names for the inputs, positionally; input{i} past them or for *args."""
    forward = namespace["Model"].forward
    try:
        params = list(inspect.signature(forward).parameters.values())[1:]
    except (TypeError, ValueError):
        params = []
    names = []
    for i in range(len(inputs)):
        p = params[i] if i < len(params) else None
        usable = p is not None and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
        names.append(p.name if usable else f"input{i}")
    return names


def _is_pristine(values: np.ndarray, name: str) -> bool:
    return all(type(v) is E.Expr and v.op is E.VAR and v.data == (name, j) for j, v in enumerate(values))


def _rename(values: np.ndarray, mapping: dict[str, str]) -> np.ndarray:
    """The elements with every leaf of a renamed buffer renamed (indices kept)."""
    return replace_leaves(values, lambda node: E.var(mapping[node.data[0]], node.data[1])
                          if node.op is E.VAR and node.data[0] in mapping else None)


def _leaf_buffers(values: np.ndarray) -> set[str]:
    seen: set = set()
    names = set()
    for v in values:
        if type(v) is E.Expr:
            for node in E.postorder(v, seen):
                seen.add(node)
                if node.op is E.VAR:
                    names.add(node.data[0])
    return names


def _name_inputs(run: Run, inputs: list, names: list[str]) -> dict[str, tuple[int, int]]:
    """Give each input's leaves its name; the integer ranges of inputs drawn by randint."""
    sources = {s.storage.name: s for s in run.sources}
    by_storage = {id(s.storage): s for s in run.sources}
    ranges: dict[str, tuple[int, int]] = {}
    users: dict[str, list[str]] = {}
    for name, t in zip(names, inputs):
        if isinstance(t, SymTensor):
            for buffer in _leaf_buffers(t.storage.values):
                users.setdefault(buffer, []).append(name)
    for name, t in zip(names, inputs):
        if not isinstance(t, SymTensor):
            continue
        storage = t.storage
        source = by_storage.get(id(storage))
        if source is not None and _is_pristine(storage.values, storage.name):
            storage.values[:] = run.kit.leaves(name, storage.size)
        elif t.dtype is D.bool_ and (bits := _bool_leaves(t, sources)) is not None:
            t.storage.values[:] = run.kit.leaves(name, storage.size)
            source = bits
        else:
            mapping = {buffer: name if users[buffer] == [name] else f"{name}.{buffer}"
                       for buffer in _leaf_buffers(storage.values) if buffer in sources}
            storage.values[:] = _rename(storage.values, mapping)
            single = [sources[b] for b in mapping]
            source = single[0] if len(single) == 1 else None
        storage.name = name
        if source is not None and source.value_range is not None:
            ranges[name] = (0, 1) if t.dtype is D.bool_ else source.value_range
        elif t.dtype is D.bool_:
            ranges[name] = (0, 1)
    return ranges


def _bool_leaves(t: SymTensor, sources: dict):
    """The randint source of a boolean input drawn as randint(0, 2).bool() (its elements `leaf != 0` in
    order over a whole contiguous storage), or None."""
    values = t.storage.values
    if t.offset or not t.is_contiguous() or t.numel() != values.shape[0]:
        return None
    first = values[0] if values.shape[0] else None
    if type(first) is not E.Expr or first.op is not E.NE:
        return None
    leaf = first.args[0] if first.args[0].op is E.VAR else first.args[1]
    source = sources.get(leaf.data[0]) if leaf.op is E.VAR else None
    if source is None or source.value_range is None or not (0 <= source.value_range[0] <= source.value_range[1] <= 1):
        return None
    name = leaf.data[0]
    if all(v is E.ne(E.var(name, j), 0) for j, v in enumerate(values)):
        return source
    return None


def name_state(run: Run, model: Module, initial: dict | None = None) -> dict[str, SymTensor]:
    """Parameters (and buffers drawn at random: BatchNorm's running statistics) as leaves named by their
    qualified names, written into their storages; constant buffers keep their values. Returns the named
    tensors. A parameter made from constants (`nn.Parameter(torch.tensor(2.0))`) has its elements put into
    `initial` first: the candidate's parameter of that name, shape and values is bound to it
    (candidate.bind_parameters)."""
    random_storages = {id(s.storage) for s in run.sources}
    state: dict[str, SymTensor] = {}
    named_storages: dict[int, str] = {}
    for qualified, t in list(model.named_parameters()) + list(model.named_buffers()):
        if not isinstance(t, SymTensor):
            continue
        if not isinstance(t, Parameter) and id(t.storage) not in random_storages:
            continue
        if id(t.storage) in named_storages and t.numel() == t.storage.size:
            state[qualified] = t                   # tied to a tensor named already
            continue
        if initial is not None and id(t.storage) not in random_storages:
            initial[qualified] = t.values().copy()
        t.write(run.kit.leaves(qualified, t.numel()).reshape(tuple(t.shape)))
        t.storage.name = qualified
        named_storages[id(t.storage)] = qualified
        state[qualified] = t
    return state


# ---------------------------------------------------------------- errors with the problem's line

class _reporting:
    """Turn what the problem's code raises into Volta errors with its file and line."""

    def __init__(self, path: str, run: Run):
        self.path = os.path.abspath(path)
        self.run = run

    def __enter__(self):
        return self

    def __exit__(self, kind, error, tb):
        if error is None or isinstance(error, VoltaError):
            return False
        if isinstance(error, BudgetExceeded):
            raise Unsupported(f"the reference builds more than {self.run.kit.meter.limit} element values at these "
                              "sizes; pass smaller --size values") from None
        span = getattr(error, "span", None) or self._span(tb)
        if isinstance(error, TorchError):
            raise UsageError(f"the problem raised an error torch would raise: {error.message}", span) from error
        if isinstance(error, Exception):
            raise Unsupported(f"running the problem failed with {type(error).__name__}: {error}", span) from error
        return False

    def _span(self, tb) -> Span | None:
        frames = [f for f in traceback.extract_tb(tb) if os.path.abspath(f.filename) == self.path]
        if not frames:
            return None
        last = frames[-1]
        return Span(last.filename, last.lineno or 1, (last.colno or 0) + 1)
