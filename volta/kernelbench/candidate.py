"""The candidate file: executed on the stand-in with the problem's sizes, its model built with the problem's
init inputs, its parameters bound to the reference's, and its forward run symbolically or on constants.

Sizes: the candidate's module globals that share a name with one of the problem's sizes get the value the
problem used (candidates copy `batch_size = ...` and `get_inputs`); nothing else is scaled (a `BLOCK = 256`
of the candidate's own stays 256). KernelBench's harness executes the candidate in the namespace the problem
file left (one `context` dict), so a candidate may read a problem global it never defines (`hardtanh_min` in
its forward): the problem's plain globals (numbers, strings, tuples and lists of them, as the problem run
chose them) are the candidate's starting namespace; its own definitions replace them.

Parameters are shared between the two models, as KernelBench's harness seeds both constructors alike: each
random tensor the candidate's constructor makes is bound to the reference's parameter of the same qualified
name and shape (or of that name and element count in another shape, element i to element i: seeded alike,
`torch.randn(16)` and `torch.randn(16, 1, 1)` draw the same values), else to the next one of the same shape in
creation order; bound leaves are renamed in every
storage the candidate model holds (a weight transposed once in `__init__` follows its weight). What stays
unbound keeps leaves of its own (`ModelNew.<name>`) and the report says so. A parameter made from constants
(`nn.Parameter(torch.tensor(constant))`) is bound to the reference's parameter of the same qualified name,
shape and initial values (the reference keeps it free, as any value a trained model may hold): then the
candidate's code sees the same leaves, and a `.item()` on them is refused rather than read as the initial
value that the reference does not assume.
"""
from __future__ import annotations

import os
import traceback
from dataclasses import dataclass

import numpy as np

from volta.errors import Span, UsageError
from volta.kernelbench import triton_host
from volta.kernelbench.elements import replace_leaves
from volta.kernelbench.paths import candidate_builtins
from volta.kernelbench.problem import Problem, _rename, collector_paused, outputs_of
from volta.kernelbench.reals import FLOAT_ENV, FLOAT_FUNCTIONS
from volta.kernelbench.sizes import SizePolicy, instrument
from volta.kernelbench.tensor import SymTensor, from_array
from volta.kernelbench.torchsym import installed
from volta.kernelbench.torchsym.module import Module
from volta.symbolic import expr as E
from volta.symbolic.evaluate import evaluate_float


@dataclass(frozen=True)
class Binding:
    candidate: str            # the candidate's qualified name
    reference: str | None     # the reference parameter it shares, or None
    how: str                  # "name" | "reshaped" (name, same count, other shape) | "order" | "unbound"
    shape: tuple


def span_in(path: str, tb) -> Span | None:
    """The innermost frame of a traceback in `path` (the candidate's line that raised)."""
    target = os.path.abspath(path)
    frames = [f for f in traceback.extract_tb(tb) if os.path.abspath(f.filename) == target]
    if not frames:
        return None
    last = frames[-1]
    return Span(last.filename, last.lineno or 1, (last.colno or 0) + 1)


def execute_file(path: str, problem: Problem, run) -> dict:
    """Run the candidate file on the stand-in (its size globals as the problem chose them); its namespace."""
    try:
        with open(path, encoding="utf-8") as f:
            source = f.read()
    except OSError as err:
        raise UsageError(f"cannot read the candidate file {path}: {err.strerror}") from None
    triton_host.prepare(source)
    try:
        code = instrument(source, path)
    except SyntaxError as err:
        raise UsageError(f"the candidate file does not parse: {err.msg}",
                         Span(path, err.lineno or 1, err.offset or 1)) from None
    given = {c.name: c.value for c in problem.sizes if "@" not in c.name and c.name in code.sizes}
    policy = SizePolicy({}, given)
    namespace = {**problem_globals(problem.namespace),
                 "__name__": "__volta_candidate__", "__file__": os.path.abspath(path),
                 "__builtins__": candidate_builtins(run.paths),
                 **policy.hooks()}
    with installed(run), collector_paused():
        exec(code.code, namespace)
    return namespace


def problem_globals(namespace: dict) -> dict:
    """The problem file's plain module globals (sizes and constants: numbers, strings, None, and tuples or lists of
    them), which KernelBench's harness leaves in the namespace the candidate runs in."""
    def plain(v) -> bool:
        if isinstance(v, (tuple, list)):
            return all(plain(x) for x in v)
        return v is None or isinstance(v, (bool, int, float, str))
    return {k: (list(v) if isinstance(v, list) else v) for k, v in namespace.items()
            if not k.startswith("__") and plain(v)}


def model_class(namespace: dict, path: str):
    for name in ("ModelNew", "Model"):
        cls = namespace.get(name)
        if isinstance(cls, type):
            return cls
    raise UsageError(f"{path} defines no `ModelNew` class (nor `Model`): a KernelBench candidate defines the model "
                     f"that replaces the reference's")


def _leaf_of(t: SymTensor) -> str | None:
    """n when the tensor's elements, in row-major order, are E.var(n, 0), E.var(n, 1), ...: a tensor drawn
    at random (directly, or copied in by an `nn.init` function) and not changed since."""
    values = t.values()
    if values.size == 0:
        return None
    first = values[0]
    if type(first) is not E.Expr or first.op is not E.VAR:
        return None
    name = first.data[0]
    return name if all(type(v) is E.Expr and v.op is E.VAR and v.data == (name, i)
                       for i, v in enumerate(values)) else None


def _random_state(model: Module, run, parameters: list | None = None) -> list:
    """(qualified name, tensor, leaf name) of the parameters and buffers whose elements are one random draw of
    the run, in the order the draws were made."""
    order = {s.storage.name: s.order for s in run.sources}
    seen, out = set(), []
    named = parameters if parameters is not None else list(model.named_parameters()) + list(model.named_buffers())
    for name, t in named:
        leaf = _leaf_of(t) if isinstance(t, SymTensor) else None
        if leaf is not None and leaf not in seen and (leaf in order or parameters is not None):
            seen.add(leaf)
            out.append((name, t, leaf))
    return sorted(out, key=lambda x: order.get(x[2], len(order)))


def bind_parameters(problem: Problem, run, model: Module) -> list:
    """Bind the candidate's random parameters to the reference's (see the module docstring)."""
    refs = [(name, t) for name, t, _ in _random_state(None, problem.run, list(problem.parameters.items()))]
    taken: set = set()
    chosen: dict = {}
    cands = _random_state(model, run)
    by_name = dict(refs)
    for name, t, _ in cands:
        r = by_name.get(name)
        if r is not None and r.numel() == t.numel() and name not in taken:
            # same name and element count in another shape (`randn(16)` for the problem's `randn(16, 1, 1)`):
            # KernelBench's seeded constructors draw the same values, element i for element i
            chosen[name] = (name, "name" if tuple(r.shape) == tuple(t.shape) else "reshaped")
            taken.add(name)
    for name, t, _ in cands:
        if name in chosen:
            continue
        for rname, r in refs:
            if rname not in taken and tuple(r.shape) == tuple(t.shape):
                chosen[name] = (rname, "order")
                taken.add(rname)
                break
    mapping, bindings = {}, []
    for name, t, leaf in cands:
        ref_name, how = chosen.get(name, (f"ModelNew.{name}", "unbound"))
        mapping[leaf] = ref_name
        bindings.append(Binding(name, ref_name if how != "unbound" else None, how, tuple(t.shape)))
    for storage in held_storages(model):
        storage.values[:] = _rename(storage.values, mapping)
    return bindings + _bind_constants(problem, run, model, taken)


def _bind_constants(problem: Problem, run, model: Module, taken: set) -> list:
    """The candidate's parameters made from the same constants as the reference's parameter of their name and
    shape, given that parameter's leaves (symbolic runs only: a float dry run's leaves are random numbers)."""
    bindings = []
    for name, t in model.named_parameters():
        ref = problem.initial.get(name)
        if ref is None or name in taken or not isinstance(t, SymTensor):
            continue
        if tuple(problem.parameters[name].shape) != tuple(t.shape):   # (then ref holds as many elements)
            continue
        values = t.values()
        if not all(type(v) is E.Expr and v.op is E.CONST and v is r for v, r in zip(values, ref)):
            continue
        t.write(run.kit.leaves(name, t.numel()).reshape(tuple(t.shape)))
        taken.add(name)
        bindings.append(Binding(name, name, "name", tuple(t.shape)))
    return bindings


def held_storages(root) -> list:
    """Every storage a model holds: its parameters and buffers and any tensor in its attributes, at any depth
    of submodules, lists, tuples and dicts."""
    found, seen, stack = {}, set(), [root]
    while stack:
        obj = stack.pop()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        if isinstance(obj, SymTensor):
            found[id(obj.storage)] = obj.storage
        elif isinstance(obj, Module):
            stack.extend(vars(obj).values())
        elif isinstance(obj, dict):
            stack.extend(obj.values())
        elif isinstance(obj, (list, tuple, set)):
            stack.extend(obj)
    return list(found.values())


def forward(model, inputs: list, run) -> list:
    if run.paths is not None:
        run.paths.restart("forward")
    with installed(run), collector_paused():
        result = model(*inputs)
    return outputs_of(result, "ModelNew.forward")


def constant_inputs(problem: Problem, values: dict) -> list:
    """The problem's inputs at these leaf values: every element is its expression over get_inputs' random
    leaves (the leaf itself, or a derivation such as `torch.rand(n) + 0.5` or `torch.triu(torch.rand(n, n))`)
    with each leaf E.var(name, i) replaced by values[name][i], else 1 — the input the reference's expressions
    are evaluated on (a leaf's value is not the input's value when get_inputs derives the input)."""
    return [from_array(substitute(t.values(), values).reshape(tuple(t.shape)), t.dtype, t.session)
            if isinstance(t, SymTensor) else t for t in problem.inputs]


def derived_values(problem: Problem, values: dict) -> dict:
    """name -> (elements, rest) for each input get_inputs derives from its random leaves (its elements are
    not the leaves themselves: `torch.rand(n) + 0.5`): `elements` maps each given leaf's index to the input's
    element there, `rest` is the value every other element takes (None when they differ). Exact where rational,
    else a float. A witness shows the input a user feeds the models, not the leaves."""
    out: dict = {}
    for name, t in zip(problem.input_names, problem.inputs):
        if not isinstance(t, SymTensor):
            continue
        elements = t.values()
        if all(type(e) is E.Expr and e.op is E.VAR for e in elements):
            continue
        given = values.get(name, {})
        at = element_values(t, values)
        others = {v for i, v in enumerate(at) if i not in given}
        out[name] = ({i: at[i] for i in given if i < len(at)}, others.pop() if len(others) == 1 else None)
    return out


def element_values(t: SymTensor, values: dict) -> list:
    """The tensor's elements at these leaf values (row-major), each exact where rational, else a float."""
    return [element_value(e) for e in substitute(t.values(), values)]


def element_value(e):
    """A constant element's value: its Fraction, or a float where it is no rational (exp of a constant)."""
    if type(e) is E.Expr and e.op in (E.CONST, E.BOOL):
        return e.data
    return float(evaluate_float(e, FLOAT_ENV, FLOAT_FUNCTIONS))


def substitute(values: np.ndarray, env: dict) -> np.ndarray:
    """Elements with every input leaf E.var(n, i) replaced by the constant env[n][i] (1 when not given)."""
    return replace_leaves(values, lambda node: E.const(env.get(node.data[0], {}).get(node.data[1], 1))
                          if node.op is E.VAR else None)
