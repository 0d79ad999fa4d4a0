"""State across calls: `forward` judged on a sequence of calls, as a harness (or a training loop) makes them.

A candidate can be right on its first call and wrong on every later one: a result kept in a Python attribute,
a C++ `static`, a cache keyed on a pointer or a shape, a CUDA graph replayed on the first call's data, a
returned buffer the next call overwrites. One symbolic call sees none of that, so after the first call is
decided EQUIVALENT both models are called again:

    call 2: fresh input leaves (`x@2`), parameters unchanged, each input in the storage (so at the address)
            of call 1's where an allocator could hand it out again (the module holds no reference to it and no
            returned output views it): a cache keyed on `data_ptr()` sees a hit;
    call 3: fresh input leaves (`x@3`) in new storages, call 2's left as they were (freed memory that still
            holds the old data: a CUDA graph that captured a read of a caller's tensor reads it), and fresh
            parameter leaves (`w@3`) written into both models, as an optimizer step or a loaded state dict
            writes them (in place: the parameters keep their storage).

Each call's outputs are compared with the reference's on that call's inputs. Storages the candidate's
constructor made from its parameters (a transposed copy, a folded BatchNorm) follow the parameters on call 3
and are listed as an assumption ("parameters frozen after construction"); storages made during a call do not.

A returned tensor that a later call's forward overwrites is OUTPUT_ALIASED (the caller's first result
changed under it). A difference on call k is confirmed by concrete re-execution of the whole sequence in a
fresh candidate (its file executed again, a new host worker so C++ statics start empty), with the same
storage reuse, on the counterexample's constants for every call.

Without the reference (`Sequence.ref_outs` None: the confined worker's run, whose reference runs in Volta's
process only), the candidate's calls are made and kept as evidence, and their own findings made (OUTPUT
ALIASED, a launch's), and nothing is compared here.

Comparing call k: where call 1 needed more than identical DAGs (ring forms, normal forms, the solver), an
element pair that is call 1's pair with call k's leaves renamed back (and reads no leaf of an earlier call)
is decided by call 1's proof, and neither side is read again (libm readings); where identical DAGs sufficed,
call k is compared directly (cheaper than renaming).
"""
from __future__ import annotations

import json
import time
from dataclasses import dataclass, field

import numpy as np

from volta.config import IntegerInputs
from volta.equiv.check import _exact
from volta.errors import Unsupported, VoltaError
from volta.kernelbench import candidate as C
from volta.kernelbench import witness
from volta.kernelbench.compare import Comparison, Difference, compare
from volta.kernelbench.elements import BudgetExceeded
from volta.kernelbench.engine import Host, Stop
from volta.kernelbench.problem import _leaf_buffers, _rename, collector_paused, outputs_of
from volta.kernelbench.tensor import SymTensor
from volta.kernelbench.torchsym import installed
from volta.kernelbench.torchsym.module import Module
from volta.symbolic import expr as E
from volta.symbolic.search import inputs_of

CALLS = 3            # call 1 (the single-call check), call 2 (new inputs), call 3 (new inputs and parameters)
REUSE_ADDRESSES = 2  # the call whose inputs take the previous call's storages where they are free
PARAMETERS_CHANGE = 3
RENAMED = "call 1's proof, renamed"   # proved_by key of pairs decided by renaming back to call 1's
CHEAP = {"identical"}                  # proofs that cost less than renaming back would
DECIDED = E.const(0)                   # both sides of a pair decided by renaming (nothing left to read)
MAX_ALIASED_SHOWN = 8


def suffix(call: int) -> str:
    return "" if call == 1 else f"@{call}"


@dataclass(frozen=True)
class Aliased:
    """Output `output` of call `call` changed when call `by` ran: it shares storage the module keeps."""
    call: int
    by: int
    output: int
    elements: tuple            # flat indices that changed (the first MAX_ALIASED_SHOWN)
    holder: str | None         # the module attribute that holds the storage (`self.out`), when one does


@dataclass
class CallsResult:
    """What the later calls decided (KernelbenchReport.calls)."""
    verdict: str = "equivalent"     # equivalent | not-equivalent | findings | unknown | unsupported
    call: int = 1                   # the call the verdict is about (1: every call agreed)
    calls: int = 1                  # calls made
    comparison: Comparison | None = None
    aliased: list = field(default_factory=list)          # Aliased
    reused: dict = field(default_factory=dict)           # call -> input names given the previous call's storage
    frozen: list = field(default_factory=list)           # constructor-made copies of parameters (assumption)
    reason: str | None = None       # why the later calls were not decided (unsupported/unknown)
    findings: list = field(default_factory=list)         # launch findings a later call made
    seconds: float = 0.0


# ---------------------------------------------------------------- what the module holds

_TABLES = ("_parameters", "_buffers", "_modules")


def held_paths(model) -> list:
    """(attribute path, storage) for every tensor a model holds, at any depth (cf. candidate.held_storages)."""
    out, seen = [], set()
    stack = [("self", model)]
    while stack:
        path, obj = stack.pop()
        if isinstance(obj, SymTensor):
            out.append((path, obj.storage))
            continue
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        if isinstance(obj, Module):
            for table in _TABLES:
                stack.extend((f"{path}.{k}", v) for k, v in getattr(obj, table).items())
            stack.extend((f"{path}.{k}", v) for k, v in vars(obj).items() if k not in _TABLES)
        elif isinstance(obj, dict):
            stack.extend((f"{path}[{k!r}]", v) for k, v in obj.items())
        elif isinstance(obj, (list, tuple)):
            stack.extend((f"{path}[{i}]", v) for i, v in enumerate(obj))
    return out


@dataclass
class Construction:
    """The candidate's state right after construction and binding: the storages it held then (these follow
    a parameter change) and the names of its parameter leaves."""
    storages: list
    parameter_leaves: set
    frozen: list                 # attribute paths of held copies derived from parameters (not parameters)


def construction(model, bindings: list, reference_parameters) -> Construction:
    """`reference_parameters`: the reference's parameter leaf names (they change on call 3 too)."""
    own = {id(t.storage) for _, t in list(model.named_parameters()) + list(model.named_buffers())
           if isinstance(t, SymTensor)}
    leaves = {b.reference or f"ModelNew.{b.candidate}" for b in bindings} | set(reference_parameters)
    frozen, storages, seen = [], [], set()
    for path, storage in held_paths(model):
        if id(storage) in seen:
            continue
        seen.add(id(storage))
        storages.append(storage)
        if id(storage) not in own and _leaf_buffers(storage.values) & leaves:
            frozen.append(path)
    return Construction(storages, leaves, sorted(frozen))


# ---------------------------------------------------------------- the harness's inputs of each call

def _input_leaves(problem) -> set:
    names = set()
    for t in problem.inputs:
        if isinstance(t, SymTensor):
            names |= _leaf_buffers(t.storage.values)
    return names


def reference_inputs(problem, call: int) -> list:
    """The problem's inputs for call `call`: new storages, every input leaf renamed `name@call`."""
    mapping = {n: n + suffix(call) for n in _input_leaves(problem)}
    out = []
    for t in problem.inputs:
        if isinstance(t, SymTensor):
            t = t.clone()
            t.storage.values[:] = _rename(t.storage.values, mapping)
        out.append(t)
    return out


def candidate_inputs(previous: list, fresh: list, model, previous_outputs: list) -> tuple[list, list]:
    """Call k's inputs for the candidate: each `fresh` tensor's values in the storage of call k-1's input
    where an allocator could reuse it (nothing the module holds or a returned output views), else `fresh`.
    Returns (inputs, indices reused)."""
    held = {id(s) for s in C.held_storages(model)} | {id(t.storage) for t in previous_outputs}
    out, reused = [], []
    for j, (old, new) in enumerate(zip(previous, fresh)):
        if (isinstance(old, SymTensor) and isinstance(new, SymTensor) and id(old.storage) not in held
                and old.storage.size == new.storage.size and old.storage.dtype == new.storage.dtype):
            old.storage.values[:] = new.storage.values
            out.append(SymTensor(old.storage, 0, tuple(new.shape), new.stride(), new.session))
            reused.append(j)
        else:
            out.append(new)
    return out, reused


def change_parameters(storages: list, leaves: set, call: int) -> None:
    """Fresh parameter leaves (`w@call`) written into these storages in place (a new state dict arrived)."""
    mapping = {n: n + suffix(call) for n in leaves}
    for s in storages:
        s.values[:] = _rename(s.values, mapping)


# ---------------------------------------------------------------- aliasing

def _snapshot(outputs: list) -> list:
    return [t.values().copy() for t in outputs]


def overwritten(before: list, outputs: list, call: int, by: int, model) -> list:
    """Aliased findings for each output of `call` whose elements changed since `before` was taken."""
    holders = {}
    for path, storage in held_paths(model):
        holders.setdefault(id(storage), path)
    found = []
    for k, (old, t) in enumerate(zip(before, outputs)):
        now = t.values()
        changed = [i for i in range(len(old)) if old[i] is not now[i]]
        if changed:
            found.append(Aliased(call, by, k, tuple(changed[:MAX_ALIASED_SHOWN]), holders.get(id(t.storage))))
    return found


# ---------------------------------------------------------------- comparing call k

class _Renamed:
    """An output as `compare` reads it (shape, values()), its elements pre-chosen."""

    def __init__(self, shape, values):
        self.shape, self._values = tuple(shape), values

    def values(self):
        return self._values


def _back(expr, mapping: dict, stale: set, memo: dict):
    """The expression with call k's leaves renamed to call 1's, or None when it reads a leaf of an earlier
    call (then no renaming argument holds and the pair is decided on its own)."""
    if type(expr) is not E.Expr:
        return expr
    for node in E.postorder(expr, memo):
        if node.op is E.VAR:
            name = node.data[0]
            if name in stale:
                memo[node] = None
            else:
                memo[node] = E.var(mapping[name], node.data[1]) if name in mapping else node
        elif node.args:
            args = tuple(memo[c] for c in node.args)
            memo[node] = None if any(a is None for a in args) else E.rebuild(node, args)
        else:
            memo[node] = node
    return memo[expr]


def shortcut(proved: list, ref: list, cand: list, mapping: dict, stale: set) -> tuple:
    """(reference, candidate) outputs of call k for `compare`, where every pair that renames back to a pair of
    call 1 (`proved`: its outputs' elements as they were compared) is made one object on both sides (decided,
    as call 1 decided it), and the count so decided."""
    memo: dict = {}
    refs, cands, same = [], [], 0
    for (a1, b1), r, c in zip(proved, ref, cand):
        rv, cv = r.values(), c.values()
        if len(a1) != len(rv) or len(b1) != len(cv):
            refs.append(r)
            cands.append(c)
            continue
        out_r, out_c = rv.copy(), cv.copy()
        for i in range(len(rv)):
            if (_back(rv[i], mapping, stale, memo) is a1[i]) and (_back(cv[i], mapping, stale, memo) is b1[i]):
                out_r[i] = out_c[i] = DECIDED
                same += 1
        refs.append(_Renamed(r.shape, out_r))
        cands.append(_Renamed(c.shape, out_c))
    return refs, cands, same


def integers_for(integers: IntegerInputs, call: int) -> IntegerInputs:
    """The problem's integer inputs with their names of calls 2..call added."""
    ranges = dict(integers.ranges)
    for k in range(2, call + 1):
        ranges.update({n + suffix(k): r for n, r in integers.ranges})
    return IntegerInputs.of(ranges)


# ---------------------------------------------------------------- the driver

@dataclass
class Sequence:
    """Everything the later calls need from the single-call check."""
    problem: object
    run: object                 # the candidate's Run
    host: Host
    model: object               # the candidate's model
    path: str                   # the candidate file
    construction: Construction
    ref_outs: list | None       # call 1's; None: the reference runs elsewhere (nothing compared here)
    cand_outs: list             # call 1's
    cand_inputs: list           # call 1's (as the candidate got them)
    integers: IntegerInputs
    readings: object            # libm.Readings
    first: Comparison | None    # call 1's (which methods its proof needed)
    exact_in: object            # (expr, env) -> the reference element's exact value (check._exact_in)
    beyond_float32: object      # (values, integers) -> why a counterexample is no float32 input (check.py)
    eval_mode: bool = False
    arch: str = "sm_80"
    evidence: object = None     # evidence.Instance: each call's outputs kept for Volta's process, or None


def later_calls(seq: Sequence, timeout_ms: int, progress=None) -> CallsResult:
    """Calls 2..CALLS after an EQUIVALENT call 1 (see the module docstring)."""
    start = time.perf_counter()
    result = CallsResult(frozen=list(seq.construction.frozen))
    problem = seq.problem
    meter = problem.run.session.kit.meter
    used = meter.used
    params = seq.construction.parameter_leaves
    inputs_now, outs_now = seq.cand_inputs, seq.cand_outs
    returned = [(1, seq.cand_outs)]                  # (call, outputs): what the caller still holds
    here = seq.ref_outs is not None                  # whether the reference runs (and is compared) here
    costly = here and bool(set(seq.first.proved_by) - CHEAP)  # whether renaming back to call 1's pairs saves time
    proved = list(zip(_snapshot(seq.ref_outs), _snapshot(seq.cand_outs))) if costly else []
    ref_storages = C.held_storages(problem.model)
    try:
        for call in range(2, CALLS + 1):
            meter.used = used
            result.calls = call
            if progress:
                progress(f"call {call} of forward: new inputs" + (" and parameters" if call == PARAMETERS_CHANGE
                                                                  else ""))
            if call == PARAMETERS_CHANGE:
                change_parameters(ref_storages, params, call)
                change_parameters(seq.construction.storages, params, call)
            ref_outs = _reference(problem, reference_inputs(problem, call)) if here else None
            fresh = reference_inputs(problem, call)
            inputs, reused = (candidate_inputs(inputs_now, fresh, seq.model, outs_now) if call == REUSE_ADDRESSES
                              else (fresh, []))
            result.reused[call] = [problem.input_names[j] for j in reused]
            before = [_snapshot(outs) for _, outs in returned]
            recorder = getattr(seq.evidence, "recorder", None)
            if recorder is None:
                cand_outs = C.forward(seq.model, inputs, seq.run)
            else:                        # the confined worker: the call's calls recorded for Volta's process
                try:
                    with recorder.calling(call, inputs, seq.path):
                        cand_outs = C.forward(seq.model, inputs, seq.run)
                finally:
                    recorder.settle()
                recorder.returned(cand_outs)
            if seq.evidence is not None:
                seq.evidence.call(call, cand_outs)
            result.aliased = [a for (j, outs), old in zip(returned, before)
                              for a in overwritten(old, outs, j, call, seq.model)]
            if result.aliased:
                result.verdict, result.call = "findings", result.aliased[0].call
                break
            returned.append((call, cand_outs))
            inputs_now, outs_now = inputs, cand_outs
            if not here:
                continue
            mapping = {n + suffix(call): n for n in _input_leaves(problem)}
            stale = {n + suffix(j) for n in _input_leaves(problem) for j in range(1, call)}
            if call >= PARAMETERS_CHANGE:
                mapping.update({n + suffix(call): n for n in params})
                stale |= params
            refs, cands, same = (shortcut(proved, ref_outs, cand_outs, mapping, stale) if costly
                                 else (ref_outs, cand_outs, 0))
            confirm = SequenceConfirmer(seq, call, ref_outs)
            comparison = compare(refs, cands, confirm, timeout_ms, progress, seq.readings.apply,
                                 integers_for(seq.integers, call))
            if same and comparison.proved_by.get("identical", 0) >= same:
                comparison.proved_by["identical"] -= same
                comparison.proved_by[RENAMED] = same
            result.comparison = comparison
            if comparison.verdict != "equivalent":
                result.verdict, result.call = comparison.verdict, call
                break
        if seq.evidence is not None and result.verdict == "equivalent":
            seq.evidence.after_calls()
    except Stop as stop:
        if stop.error is not None:
            result.verdict, result.reason = "unsupported", stop.error.message
        else:
            result.verdict, result.findings = "findings", stop.findings
        result.call = result.calls
    except BudgetExceeded:
        result.verdict, result.call = "unsupported", result.calls
        result.reason = f"call {result.calls} builds more element values than the budget at these sizes"
    except VoltaError as err:
        result.verdict, result.call, result.reason = "unsupported", result.calls, err.message
    except Exception as err:     # what the candidate raises on a later call: nothing is claimed
        result.verdict, result.call = "unsupported", result.calls
        result.reason = f"the candidate raised {type(err).__name__} on call {result.calls}: {err}"
    finally:
        meter.used = used
    result.seconds = time.perf_counter() - start
    return result


def _reference(problem, inputs: list) -> list:
    try:
        with collector_paused(), installed(problem.run):
            return outputs_of(problem.model(*inputs), "Model.forward")
    except VoltaError:
        raise
    except Exception as err:   # the reference ran once on these shapes; a later call failing is not modelled
        raise Unsupported(f"the reference's forward failed on a later call: {type(err).__name__}: {err}") from None


# ---------------------------------------------------------------- confirming a later call's difference

class SequenceConfirmer:
    """Exact re-execution of calls 1..call in a fresh candidate (file executed again, a new host worker),
    every input and parameter leaf of each call set to the counterexample's constant (1 when not given)."""

    def __init__(self, seq: Sequence, call: int, ref_outs: list):
        self.seq, self.call, self.ref_outs = seq, call, ref_outs
        self.refusal: str | None = None
        self.integers = seq.integers

    def __call__(self, verdict, k, i, a, b):
        values = {}
        for leaf, v in (verdict.model or {}).items():
            if leaf.op is E.VAR:
                values.setdefault(leaf.data[0], {})[leaf.data[1]] = v
        self.refusal = self.seq.beyond_float32(values, integers_for(self.integers, self.call))
        if self.refusal is not None:
            return None
        env = {leaf: values.get(leaf.data[0], {}).get(leaf.data[1], 1) for leaf in inputs_of(a) if leaf.op is E.VAR}
        ref_value = self.seq.exact_in(a, env)
        cand_value = self.replay(values, k, i)
        if ref_value is None or cand_value is None or not ref_value != cand_value:
            self.refusal = "the sequence of calls re-run exactly does not show the difference"
            return None
        return Difference(k, i, tuple(self.ref_outs[k].shape), ref_value, cand_value, values,
                          derived=C.derived_values(self.seq.problem, values))

    def replay(self, values: dict, k: int, i: int):
        """Output k's element i after calls 1..call re-run on constants in a fresh candidate, or None."""
        seq = self.seq
        problem = seq.problem
        run = problem.candidate_run()
        host = Host(seq.path, problem.run.session, exact=True, arch=seq.arch)
        run.host = host
        try:
            namespace = C.execute_file(seq.path, problem, run)
            with installed(run):
                model = C.model_class(namespace, seq.path)(*problem.init_inputs)
            if seq.eval_mode:
                model.eval()
            bindings = C.bind_parameters(problem, run, model)
            made = construction(model, bindings, problem.parameters)
            symbolic = [(s, s.values.copy()) for s in made.storages]
            constant: list = []
            inputs, outs = None, []
            for call in range(1, self.call + 1):
                if call in (1, PARAMETERS_CHANGE):
                    # the parameters' constants of this call, where no forward wrote the storage since
                    env = {n: values.get(n + suffix(call), {}) for n in made.parameter_leaves}
                    unchanged = [j for j, (s, _) in enumerate(symbolic)
                                 if not constant or all(x is y for x, y in zip(s.values, constant[j]))]
                    for j in unchanged:
                        s, v = symbolic[j]
                        s.values[:] = C.substitute(v, env)
                    constant = [s.values.copy() for s, _ in symbolic]
                given = {n: values.get(n + suffix(call), {}) for n in problem.input_names}
                fresh = C.constant_inputs(problem, given)
                inputs = candidate_inputs(inputs, fresh, model, outs)[0] if call == REUSE_ADDRESSES else fresh
                outs = C.forward(model, inputs, run)
            return _exact(seq.readings.apply(outs[k].values()[i]))
        except (Stop, VoltaError, Exception):
            return None
        finally:
            host.close()


# ---------------------------------------------------------------- the witness of a sequence

def save_witness(path, problem, difference: Difference, last_call: int) -> None:
    """witness.save's arrays for every call 1..last_call: call 1's named as today (`x`, `param:w`), a later
    call's prefixed `callK:` (`call2:x`, `call3:param:w`)."""
    meta = {"output": difference.output, "index": list(difference.position), "call": last_call,
            "reference": str(difference.ref_value), "candidate": str(difference.cand_value),
            "inputs": problem.input_names, "not_exact_in_dtype": {}}
    data = {}
    for call in range(1, last_call + 1):
        tail = suffix(call)
        own = {n[:-len(tail)] if tail else n: v for n, v in difference.inputs.items()
               if (n.endswith(tail) if tail else "@" not in n)}
        arrays, inexact = witness.arrays(problem, Difference(difference.output, difference.index, difference.shape,
                                                             None, None, own))
        prefix = "" if call == 1 else f"call{call}:"
        data.update({prefix + n: a for n, a in arrays.items()})
        meta["not_exact_in_dtype"].update({prefix + n: v for n, v in inexact.items()})
    np.savez(path, **data, volta=np.array(json.dumps(meta)))
