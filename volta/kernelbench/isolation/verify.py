"""Volta's process decides a passing verdict itself, from what the candidate computed, never from the worker's word.

The check runs in the candidate's worker (`confined.py`), in the interpreter the candidate's code shares: a
candidate there can patch the comparison, the report builder or the JSON writer, and undo the patch before
the worker's snapshot of Volta's code is compared. (In the first of the two runs the worker compares
nothing: this module's comparisons are the only ones, and their counts go back to the worker's report.) So a
verdict that passes (EQUIVALENT, WITHIN TOLERANCE: exit 0) is only a claim until this module has re-derived
every fact it rests on, in Volta's process, from the worker's evidence (`kernelbench.evidence`, decoded by
`wire`: expression tables, checked) and from a reference it loads and runs itself at the sizes it chose
itself (the asked sizes; for `--ragged`, the ragged sizes `check` derives from them):

- every forward call's outputs (call 1; calls 2 and 3 for EQUIVALENT) compared element by element with the
  reference's outputs of that call (`compare`, as the check compares; a difference is confirmed by exact
  evaluation of both sides' expressions on the input found), every element written;
- call 1's inputs unwritten except where the reference's own forward writes the same value, and each bound
  parameter still the reference's leaf at each element (INPUT WRITTEN);
- no output of an earlier call changed by a later one (OUTPUT ALIASED);
- for WITHIN TOLERANCE, the rounded rerun's outputs evaluated against the tolerance (`precision.evaluate`);
- every recorded call into the candidate's extensions replayed on this process's machine (`replay.py`), its
  memory after the call as the worker recorded it;
- no stream race in call 1, from the candidate's call trace replayed here (`calltrace.py`): its stream and
  event calls made on this process's own stream model, its work and its extensions' host-code streams fed in.
- every forward call's values replayed here from the same trace (`values.py`): the outputs compared are this
  process's; a run it cannot replay is UNKNOWN (a Triton launch or a CUDA graph: the worker's word, in a note).

A `--ragged` run said to decide nothing (UNKNOWN, UNSUPPORTED: exit 3, which leaves the command's exit 0) must
show no difference in the outputs it sent either: a NOT EQUIVALENT hidden there would turn exit 1 into 0.

A fact that contradicts the claim makes the candidate REJECTED (the worker's report says what the outputs it
sent do not show: the check in the worker was tampered with, or evidence is missing); a comparison this
process cannot decide makes it UNKNOWN. Verdicts that do not pass (exit 1 or 3) stand as the worker gave
them: a candidate that lied there only made its own verdict worse, or claimed no more than a candidate that
raises gets honestly. In the first run (no reference in the worker) a difference in call 1 is no contradiction
but the comparison itself (`decide(..., confirm=True)`: the verdict "differs", for `confined.py` to confirm by
re-running the candidate), and a report that does not pass is settled here (`settle`: inputs and parameters
unwritten, call 1 compared) before it stands. What is still the worker's word (findings Volta observes while
the candidate's Python runs: which calls it made, coverage, precision places; the values of a run with a Triton
launch or a CUDA graph) is listed in docs/sandbox.md.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field, replace

from volta.errors import VoltaError
from volta.kernelbench import calls as S
from volta.kernelbench import candidate as C
from volta.kernelbench import hacks
from volta.kernelbench import precision as P
from volta.kernelbench.isolation import calltrace, replay
from volta.kernelbench.isolation import values as value_replay
from volta.kernelbench.check import CheckOptions, _beyond_float32, _exact_in, _ragged_sizes, integer_inputs
from volta.kernelbench.compare import Comparison, Difference, compare
from volta.kernelbench.evidence import ReferenceFacts
from volta.kernelbench.libm import Readings
from volta.kernelbench.problem import load_problem
from volta.kernelbench.tensor import SymTensor
from volta.kernelbench.torchsym.switches import Precision
from volta.symbolic import expr as E
from volta.symbolic.ringform import RingForms
from volta.symbolic.search import inputs_of

PASSING = ("equivalent", "within-tolerance")


@dataclass
class Decided:
    """Volta's process's own reading of a passing claim: `verdict` None when the claim stands."""

    verdict: str | None = None         # rejected | unknown, when the claim does not stand
    reason: str = ""
    runs: int = 0                      # runs (paths, ragged) re-checked
    calls: int = 0                     # forward calls compared
    host_calls: int = 0                # calls into the candidate's extensions replayed here (replay.py)
    launches: int = 0                  # kernel launches among them, executed by this process's machine
    seconds: float = 0.0               # CPU seconds this process spent deciding
    compared: list = field(default_factory=list)   # per run of the evidence: (call -> counts, notes), plain data
    differs: Comparison | None = None  # verdict "differs": call 1's comparison here, its difference to confirm
    first: tuple | None = None         # settle's call 1 found equal: (its outputs' elements, Comparison, Readings)
    values: int = 0                    # runs whose call 1 values were replayed here (values.py)
    not_replayed: list = field(default_factory=list)   # why the others' were not, in words


class _Contradiction(Exception):
    def __init__(self, verdict: str, reason: str):
        super().__init__(reason)
        self.verdict, self.reason = verdict, reason


class _Differs(_Contradiction):
    """Call 1's outputs at the asked sizes differ from the reference's at an input found here: in the first run
    (whose worker compares nothing) the comparison itself, to be confirmed by re-running the candidate."""

    def __init__(self, reason: str, comparison: Comparison):
        super().__init__("rejected", reason)
        self.comparison = comparison


def decide(problem_path: str, sizes: dict, options: CheckOptions, report: dict, instances: list,
           reference: "_Reference | None" = None, confirm: bool = False, first: tuple | None = None) -> Decided:
    """Re-check, in this process, each run behind a passing verdict of `report` (the worker's JSON report),
    against `reference` (the problem at `sizes`, run here) or one made here now. `confirm` (the first run, with
    one run of the evidence at the asked sizes): a difference in call 1 is the verdict "differs" (`differs`
    holds it) for the caller to confirm by re-running the candidate, not a contradiction. `first`: call 1 of the
    first run already found equal here (`settle`'s `Decided.first`, before the later calls were made): its
    comparison stands for the first run's call 1 when the outputs sent now are the same elements (identical
    objects: the tables are interned here), and is made again otherwise."""
    start = time.process_time()
    decided = Decided()
    if report["exit_code"] != 0:
        return decided
    parts = [(False, report)] + ([(True, report["ragged"])] if report.get("ragged") else [])
    built: dict = {}       # the candidate's extensions, rebuilt here from their sources
    try:
        main = reference or _Reference(load_problem(problem_path, sizes), options)   # exit 0: call 1 passed
        for ragged, part in parts:
            runs = [inst for inst in instances if inst["ragged"] is ragged]
            expected = max(len(part.get("paths") or []), 1)
            if len(runs) != expected:
                raise _Contradiction("rejected", f"the worker's report says {expected} run(s) were made "
                                     f"{'at the ragged sizes ' if ragged else ''}and sent the evidence of "
                                     f"{len(runs)}")
            reference = main if not ragged else _ragged(problem_path, sizes, main, options)
            where = "ragged sizes, " if ragged else ""
            if part["verdict"] not in PASSING:     # a ragged run said to decide nothing (exit 3; 0 overall)
                for inst in runs:
                    for call, outs in sorted(inst["calls"].items()):
                        _compare_call(reference, call, reference.of_call(call), _sent(call, outs), options,
                                      "ragged sizes, ", undecided_ok=True)
                    _replayed(decided, inst, options, built, where, reference.problem, _frozen(part))
                continue
            for inst in runs:
                counts: dict = {}
                known = first if inst is instances[0] else None
                decided.calls += _run(reference, inst, options, where, counts, known)
                _replayed(decided, inst, options, built, where, reference.problem,   # the outputs compared: its
                          _frozen(part))
                decided.runs += 1                                                     # replay's, or REJECTED
                inst["compared"] = counts
        decided.compared = [inst.get("compared", {}) for inst in instances]
    except _Differs as d:
        decided.verdict, decided.reason = ("differs" if confirm and len(instances) == 1 and not report.get("ragged")
                                           else "rejected"), d.reason
        decided.differs = d.comparison
    except _Contradiction as c:
        decided.verdict, decided.reason = c.verdict, c.reason
    except VoltaError as err:      # the reference or a comparison here stopped where the worker's did not
        decided.verdict, decided.reason = "unknown", f"Volta's process could not decide the claim: {err.message}"
    decided.seconds = time.process_time() - start
    return decided


def settle(reference: "_Reference", claim: dict, inst: dict, options: CheckOptions) -> Decided:
    """Volta's process's reading of the first run's one run at the asked sizes when its report does not pass:
    verdict None when the report stands as a check that ran the reference would have given it (no input or
    parameter written; call 1, where forward returned, equal to the reference's: `compared` holds its counts;
    or the elements nothing wrote that the report's FINDINGS already name), "differs" with `differs` (call 1
    differs, to be confirmed), else "whole" with the reason (the whole check decides: a later call's finding,
    an undecided or structural comparison, an input written)."""
    start = time.process_time()
    decided = Decided(compared=[{}])
    calls = inst["calls"]
    try:
        if sorted(calls) not in ([], [1]):
            raise _Contradiction("whole", f"the run without the reference gave {claim['verdict']} after "
                                          f"{max(calls)} calls (the later calls are compared in the whole check)")
        if calls or inst["inputs"]:      # no inputs and no call: forward never ran (the file or the model failed)
            _inputs_unwritten(reference, inst["inputs"], "")
        _parameters_unwritten(inst["parameters"], "")
        if calls:
            integers = S.integers_for(reference.integers, 1)
            readings = Readings()
            comparison = compare(reference.of_call(1), _sent(1, calls[1]), _Evaluated(integers), options.timeout_ms,
                                 None, readings.apply, integers)
            d = comparison.difference
            if comparison.verdict == "not-equivalent" and d is not None and not d.structural:
                comparison.difference = replace(d, shape=tuple(reference.of_call(1)[d.output].shape))
                decided.verdict, decided.differs = "differs", comparison
            elif comparison.verdict == "findings" and claim["verdict"] == "findings":
                pass                     # the report names the elements nothing wrote (hacks.conclude)
            elif comparison.verdict == "equivalent":
                decided.compared = [{"calls": {"1": {"compared": comparison.compared, "seconds": comparison.seconds,
                                                     "proved_by": dict(comparison.proved_by)}},
                                     "notes": [readings.note()] if readings.note() else []}]
                decided.calls = decided.runs = 1
                decided.first = ([o[2] for o in calls[1]], comparison, readings)
            else:
                raise _Contradiction("whole", f"call 1 compared here gave {comparison.verdict}")
    except _Contradiction as c:
        decided.verdict, decided.reason = "whole", c.reason
    except VoltaError as err:
        decided.verdict, decided.reason = "whole", f"Volta's process could not compare call 1: {err.message}"
    decided.seconds = time.process_time() - start
    return decided


def _frozen(part: dict) -> bool:
    """Whether the worker's report (one part of it) states the assumption that the constructor's copies of the
    parameters follow them on call 3 ("parameters frozen after construction"): the value replay makes them
    follow only then, so a pass that needs it says so."""
    calls = part.get("calls")
    return type(calls) is dict and bool(calls.get("frozen_after_construction"))


def _replayed(decided: Decided, inst: dict, options: CheckOptions, built: dict, where: str, problem,
              frozen: bool = False) -> None:
    """Call 1's stream races found from the run's call trace (`calltrace.races`); the run's calls into extensions
    replayed on this process's machine (`replay.py`), and each forward call replayed from the call trace
    (`values.py`): its outputs are this process's, or the claim is REJECTED (they differ) or UNKNOWN (a call
    this process does not replay, other than a Triton launch or a CUDA graph, whose run keeps a note)."""
    try:
        found = calltrace.races(inst["call_trace"], inst["host_calls"])
    except calltrace.BadTrace as bad:
        raise _Contradiction("rejected", f"{where}{bad.reason}, and the worker's report passes it") from None
    if found:
        raise _Contradiction("rejected", f"{where}call 1: Volta's process finds a STREAM RACE from the candidate's "
                                         f"call trace ({found[0]} is not ordered before forward returns), and the "
                                         f"worker's report passes it")
    try:
        done, not_replayed = value_replay.replay(inst, options.arch, built, problem, frozen)
    except replay.Mismatch as m:
        raise _Contradiction(m.verdict, f"{where}{m.reason}" + (", and the worker's report passes it"
                                                               if m.verdict == "rejected" else "")) from None
    decided.host_calls += done.calls
    decided.launches += done.launches
    if not_replayed is None:
        decided.values += 1
    elif not_replayed.kept:          # a Triton launch, a CUDA graph: the worker's word, said in the note
        decided.not_replayed.append(f"{where}{not_replayed}")
    else:
        raise _Contradiction("unknown", f"{where}{not_replayed}, so Volta's process cannot replay the run's "
                                        f"values, and a pass would rest on the worker's word; nothing is claimed")


def _ragged(problem_path: str, sizes: dict, main: "_Reference", options: CheckOptions) -> "_Reference":
    odd = {**sizes, **_ragged_sizes(main.problem.sizes, sizes)}
    try:
        return _Reference(load_problem(problem_path, odd), options)
    except VoltaError as err:
        raise _Contradiction("unknown", f"the worker's report passes the ragged sizes {odd}, where the problem "
                                        f"does not run here: {err.message}") from None


def reference(problem_path: str, sizes: dict, options: CheckOptions) -> "_Reference":
    """The problem at `sizes`, its reference run here (call 1's outputs, and the formats it computes in)."""
    return _Reference(load_problem(problem_path, sizes), options)


class _Reference:
    """The reference of one set of sizes, run here: each call's outputs, made on first need; `facts`, what a
    candidate's run needs to know of it (`ReferenceFacts`), as the check records them before its candidate."""

    def __init__(self, problem, options: CheckOptions):
        self.problem = problem
        if options.eval_mode:
            problem.model.eval()
        precision = problem.run.session.precision = Precision()
        for t in list(problem.inputs) + list(problem.parameters.values()):
            if isinstance(t, SymTensor):
                precision.made(t.storage.dtype)
        self.outputs = {1: problem.reference_outputs()}
        self.facts = ReferenceFacts(tuple(precision.reference), tuple(precision.reference_ops))
        self.allowed = hacks.reference_writes(problem)
        self.integers = integer_inputs(problem)

    def of_call(self, call: int) -> list:
        if call not in self.outputs:
            for k in range(max(self.outputs) + 1, call + 1):
                if k == S.PARAMETERS_CHANGE:
                    S.change_parameters(C.held_storages(self.problem.model), set(self.problem.parameters), k)
                self.outputs[k] = S._reference(self.problem, S.reference_inputs(self.problem, k))
        return self.outputs[call]


class _Sent:
    """An output as `compare` reads it: the worker's elements, with its shape."""

    def __init__(self, shape, values):
        self.shape, self._values = tuple(shape), values

    def values(self):
        return self._values


class _Evaluated:
    """`compare`'s confirmation here: both sides' expressions evaluated exactly on the input found, which must be
    one a float32 tensor holds (as the check's confirmation requires)."""

    def __init__(self, integers):
        self.integers = integers
        self.refusal: str | None = None

    def __call__(self, verdict, k, i, a, b) -> Difference | None:
        values: dict = {}
        for leaf, v in (verdict.model or {}).items():
            if leaf.op is E.VAR:
                values.setdefault(leaf.data[0], {})[leaf.data[1]] = v
        self.refusal = _beyond_float32(values, self.integers)
        if self.refusal is not None:
            return None
        env = {leaf: values.get(leaf.data[0], {}).get(leaf.data[1], 1)
               for x in (a, b) for leaf in inputs_of(x) if leaf.op is E.VAR}
        ref_value, cand_value = _exact_in(a, env), _exact_in(b, env)
        if ref_value is None or cand_value is None or not ref_value != cand_value:
            self.refusal = "the two expressions evaluated exactly do not show the difference"
            return None
        return Difference(k, i, (), ref_value, cand_value, values)


def _run(reference: _Reference, inst: dict, options: CheckOptions, where: str, counts: dict,
         known: tuple | None = None) -> int:
    """Check one run's evidence; the number of calls compared (each call's counts into `counts`). Raises
    _Contradiction."""
    problem = reference.problem
    calls = inst["calls"]
    later = sorted(c for c in calls if c > 1)
    equivalent = later == list(range(2, S.CALLS + 1))
    if 1 not in calls:
        raise _Contradiction("rejected", f"the worker claims a passing verdict ({where}{inst['answers']}) and "
                                         f"sent no outputs of call 1")
    try:
        _compare_calls(reference, calls, later if equivalent else [], set(inst["parameters"]), options, where,
                       counts, known)
    except _Differs:
        _inputs_unwritten(reference, inst["inputs"], where)     # an input written is the finding that stands
        raise
    _inputs_unwritten(reference, inst["inputs"], where)
    _parameters_unwritten(inst["parameters"], where)
    if equivalent:
        for call, outs in calls.items():
            for k, o in enumerate(outs):
                if o is not None and (o[3] is None or any(x is not y for x, y in zip(o[2], o[3]))):
                    raise _Contradiction("rejected", f"output {k} of call {call} changed after it was returned "
                                                     f"(OUTPUT ALIASED), and the worker's report passes it")
        return len(calls)
    tolerance = options.tolerance
    if tolerance is None or inst["rounded"] is None:
        raise _Contradiction("rejected", f"the worker claims a passing verdict ({where}{inst['answers']}) with "
                                         f"neither the later calls' outputs nor an evaluation within a tolerance")
    evaluation = P.evaluate(reference.outputs[1], inst["rounded"], *tolerance, problem)
    if evaluation.passed is not True:
        raise _Contradiction("rejected", f"the candidate's rounded outputs are not within atol={tolerance[0]}, "
                                         f"rtol={tolerance[1]} here ({evaluation.why or 'worst input outside'}), "
                                         f"and the worker's report says WITHIN TOLERANCE")
    return 1


def _compare_calls(reference: _Reference, calls: dict, later: list, bound: set, options: CheckOptions, where: str,
                   counts: dict, known: tuple | None = None) -> None:
    """Call 1's outputs, then each later call's, compared with the reference's; a later call's element pair
    that renames back to a pair of call 1 is decided by call 1's proof (`calls.shortcut`, as the check does).
    What the report shows of them into `counts` (plain data, as `evidence.Instance.compared` reads it): each
    call's counts (compared, proved by what, seconds), and the libm readings' note."""
    sent = {call: _sent(call, calls[call]) for call in [1] + later}
    if known is not None and _same_elements(known[0], [o[2] for o in calls[1]]):
        first, readings = known[1], known[2]      # decided before the later calls were made (`settle`)
    else:
        readings = Readings()
        first = _compare_call(reference, 1, reference.of_call(1), sent[1], options, where, readings=readings)
    made = {1: first}
    costly = bool(set(first.proved_by) - S.CHEAP)
    proved = [(r.values(), c.values()) for r, c in zip(reference.of_call(1), sent[1])]
    leaves = S._input_leaves(reference.problem)
    parameters = set(reference.problem.parameters) | bound
    for call in later:
        mapping = {n + S.suffix(call): n for n in leaves}
        stale = {n + S.suffix(j) for n in leaves for j in range(1, call)}
        if call >= S.PARAMETERS_CHANGE:
            mapping.update({n + S.suffix(call): n for n in parameters})
            stale |= parameters
        refs, cands, same = reference.of_call(call), sent[call], 0
        if costly:
            refs, cands, same = S.shortcut(proved, refs, cands, mapping, stale)
        comparison = made[call] = _compare_call(reference, call, refs, cands, options, where, readings=readings)
        if same and comparison.proved_by.get("identical", 0) >= same:
            comparison.proved_by["identical"] -= same
            comparison.proved_by[S.RENAMED] = same
    counts["calls"] = {str(call): {"compared": c.compared, "proved_by": dict(c.proved_by), "seconds": c.seconds}
                       for call, c in made.items()}
    counts["notes"] = [readings.note()] if readings.note() else []


def _same_elements(a: list, b: list) -> bool:
    return len(a) == len(b) and all(len(x) == len(y) and all(u is v for u, v in zip(x, y)) for x, y in zip(a, b))


def _sent(call: int, outs: list) -> list:
    if any(o is None for o in outs):
        raise _Contradiction("rejected", f"call {call} returned a non-tensor output, and the worker's report "
                                         f"passes it")
    return [_Sent(o[0], o[2]) for o in outs]


def _compare_call(reference: _Reference, call: int, ref: list, sent: list, options: CheckOptions, where: str,
                  undecided_ok: bool = False, readings: Readings | None = None):
    """Call `call`'s comparison here; a _Contradiction unless equal (or, `undecided_ok`, undecided)."""
    readings = Readings() if readings is None else readings
    integers = S.integers_for(reference.integers, call)
    comparison = compare(ref, sent, _Evaluated(integers), options.timeout_ms, None, readings.apply,
                         integers)
    if comparison.verdict == "equivalent" or (undecided_ok and comparison.verdict == "unknown"):
        return comparison
    label = f"{where}call {call}"
    if comparison.verdict == "unknown":
        k, i, why = comparison.unknown[0]
        raise _Contradiction("unknown", f"{label}: Volta's process could not decide output {k} element {i} of "
                                        f"the outputs the worker sent ({why}); nothing is claimed")
    if comparison.unwritten:
        k, missing = next(iter(comparison.unwritten.items()))
        raise _Contradiction("rejected", f"{label}: output {k} has {len(missing):,} element(s) nothing wrote, and "
                                         f"the worker's report passes it")
    d = comparison.difference
    what = d.structural or (f"output {d.output} element {d.index} is {d.cand_value} where the reference's is "
                            f"{d.ref_value}")
    reason = f"{label}: the outputs the worker sent differ from the reference's ({what}), and its report passes them"
    if call == 1 and not where and not d.structural:
        comparison.difference = replace(d, shape=tuple(ref[d.output].shape))
        raise _Differs(reason, comparison)
    raise _Contradiction("rejected", reason)


def _inputs_unwritten(reference: _Reference, sent: dict, where: str) -> None:
    forms = RingForms()
    for name, t in zip(reference.problem.input_names, reference.problem.inputs):
        if not isinstance(t, SymTensor):
            continue
        before, after = t.values(), sent.get(name)
        if after is None or len(after) != len(before):
            raise _Contradiction("rejected", f"{where}the worker sent no reading of input `{name}` after call 1")
        allowed = reference.allowed.get(name, {})
        written = [i for i in range(len(before)) if after[i] is not before[i]
                   and not (i in allowed and (after[i] is allowed[i] or hacks.same_value(forms, after[i], allowed[i])))]
        if written:
            raise _Contradiction("rejected", f"{where}input `{name}`: {len(written):,} element(s) written by call 1 "
                                             f"(first: {written[0]}), and the worker's report passes it")


def _parameters_unwritten(sent: dict, where: str) -> None:
    for name, values in sent.items():
        written = [i for i, v in enumerate(values) if not (type(v) is E.Expr and v.op is E.VAR and v.data == (name, i))]
        if written:
            raise _Contradiction("rejected", f"{where}parameter `{name}`: {len(written):,} element(s) no longer its "
                                             f"value after call 1 (first: {written[0]}), and the worker's report "
                                             f"passes it")
