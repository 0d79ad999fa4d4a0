"""`volta kernelbench PROBLEM.py CANDIDATE.py`: is the candidate's `ModelNew` the reference's `Model`?

1. The problem is loaded at small sizes and its `Model.forward` run symbolically (`problem.py`).
2. The candidate file runs on the same stand-in with the same sizes; its extensions are built and its host
   code run in a worker (`engine.Host`); its parameters are bound to the reference's (`candidate.py`); its
   `forward` runs on the same symbolic inputs, every launch on Volta's machine.
3. Every output element is compared (`compare.py`); a difference is confirmed by exact re-execution of both
   (`_confirm`), and can be saved as `get_inputs`-shaped arrays (`witness.py`).
4. When every element is equal, `forward` is called again on new inputs and new parameters (`calls.py`).

With `ragged`, the same check runs again at sizes that are not multiples of typical tile sizes, reported
apart: a candidate may legitimately assume the benchmark's divisibility.

With `reference` (the confined worker's first run, isolation/confined.py), steps 1 and 3 stay out of this
process: the reference's outputs are never computed here, so the candidate's code cannot find or copy them.
The candidate runs every call as an EQUIVALENT call 1 would have it run, its own findings are made, and the
check claims EQUIVALENT for Volta's process to decide from the evidence (`_claim`).
"""
from __future__ import annotations

import contextlib
import os
import sys
import time
import traceback
from dataclasses import dataclass, field, replace
from fractions import Fraction

from volta.config import IntegerInputs
from volta.equiv.check import _exact
from volta.errors import Unsupported, UsageError, VoltaError
from volta.kernelbench import calls as S
from volta.kernelbench import candidate as C
from volta.kernelbench import hacks, paths
from volta.kernelbench import precision as P
from volta.kernelbench import witness
from volta.kernelbench.compare import Comparison, Difference, compare
from volta.kernelbench.elements import UNWRITTEN
from volta.kernelbench.engine import Host, Stop
from volta.kernelbench.evidence import Evidence, Instance
from volta.kernelbench.failures import TorchError
from volta.kernelbench.isolation import calltrace
from volta.kernelbench.libm import Readings
from volta.kernelbench.memory import DeviceMemory
from volta.kernelbench.problem import Problem, load_problem
from volta.kernelbench.streams import deferred_threads
from volta.kernelbench.subclasses import refuse_overriding_subclasses
from volta.kernelbench.tensor import SymTensor
from volta.kernelbench.torchsym import installed
from volta.kernelbench.torchsym.switches import Precision
from volta.session.jobs import start_job
from volta.symbolic import expr as E
from volta.symbolic.search import inputs_of

VOLTA_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RAGGED_MIN = 4     # sizes below this stay as they are in the ragged run


@dataclass
class KernelbenchReport:
    problem: str
    candidate: str
    verdict: str = "equivalent"     # equivalent | not-equivalent | findings | precision | within-tolerance
                                    # | unsupported | unknown | rejected (isolation/confined.py)
    sizes: list = field(default_factory=list)                 # sizes.Choice, as the problem used them
    comparison: Comparison | None = None
    findings: list = field(default_factory=list)              # launch findings (exec.findings.Finding)
    finding_launch: object = None                             # kernels.LaunchResult that made them
    unsupported: VoltaError | None = None
    raised: tuple | None = None     # (exception type, message, Span) when the candidate raised at these sizes
    bindings: list = field(default_factory=list)
    launches: list = field(default_factory=list)              # kernels.LaunchResult, in order
    refused: list = field(default_factory=list)
    host_ops: list = field(default_factory=list)
    extensions: dict = field(default_factory=dict)            # name -> host.build.Built
    builds: list = field(default_factory=list)                # host.rejects.BuildOutcome, in call order
    gemms: list = field(default_factory=list)                 # host.cublas.GemmRecord, in call order
    input_names: list = field(default_factory=list)
    seconds: dict = field(default_factory=dict)
    notes: list = field(default_factory=list)
    ragged: "KernelbenchReport | None" = None
    witness_file: str | None = None
    hacks: list = field(default_factory=list)                 # findings.HackFinding (hacks.py)
    coverage: list = field(default_factory=list)              # coverage.Row: which outputs kernels computed
    calls: S.CallsResult | None = None                        # forward called again (calls.py)
    eval_mode: bool = False
    precision: P.PrecisionResult | None = None     # narrower formats than the reference (precision.py)
    paths: list = field(default_factory=list)     # paths.Path per machine answer checked (timing/device branches)
    unchecked: list = field(default_factory=list)  # answers (described) left when the run limit stopped
    asked: list = field(default_factory=list)     # where the candidate read a clock or the device
    candidate_output: str = ""                    # what it printed in its worker (shown, never parsed)

    @property
    def exit_code(self) -> int:
        own = {"equivalent": 0, "within-tolerance": 0, "not-equivalent": 1, "findings": 1,
               "precision": 1, "rejected": 1}.get(self.verdict, 3)
        if self.ragged is not None and self.ragged.exit_code == 1:
            return 1
        return own


@dataclass(frozen=True)
class CheckOptions:
    """The modes of one KernelBench check, one value from the front door (`volta kernelbench`,
    `volta.kernelbench`, a batch job) through the confined worker to `check`."""

    ragged: bool = False  # also check at sizes no typical tile divides (`report.ragged`)
    timeout_ms: int = 10_000  # the solver's limit per output element
    arch: str = "sm_80"  # the device code's target
    require_kernel: bool = False  # an output element no custom kernel took part in is a finding
    eval_mode: bool = False  # both models in eval mode after construction (`model.eval()` in a harness)
    tolerance: tuple | None = None  # (atol, rtol): evaluate a candidate that computes in narrower formats


def check(problem_path: str, candidate_path: str, sizes: dict | None = None, options: CheckOptions = CheckOptions(),
          *, save_counterexample: str | None = None, progress=None,
          evidence: Evidence | None = None, reference=None, held: list | None = None) -> KernelbenchReport:
    """Check a candidate file against a problem file (the library call behind `volta kernelbench`), under the
    modes of `options` (precision.py evaluates a `tolerance`). `evidence`: where each run keeps what the
    candidate computed, for Volta's process to decide from (the confined worker's check). `reference`: None,
    or a callable giving the `ReferenceFacts` of a reference that runs elsewhere (then this process runs only
    the candidate, and claims EQUIVALENT unless the candidate's own run shows otherwise). `held`: a list into
    which each run whose model was made puts its `Held` (the model, its extensions still loaded), for the
    caller to re-run concretely on request and then close."""
    start_job()
    report = paths.explore(lambda oracle: _check_once(problem_path, candidate_path, sizes or {}, options,
                                                      save_counterexample, progress, oracle,
                                                      _instance(evidence, False, oracle), reference, held),
                           candidate_path)
    if options.ragged and report.sizes:
        odd = _ragged_sizes(report.sizes, sizes or {})
        if not odd:
            report.notes.append("--ragged: no size is large enough to make ragged")
        else:
            if progress:
                progress("ragged sizes: " + ", ".join(f"{k}={v}" for k, v in odd.items()))
            try:
                report.ragged = paths.explore(
                    lambda oracle: _check_once(problem_path, candidate_path, {**(sizes or {}), **odd}, options,
                                               None, progress, oracle, _instance(evidence, True, oracle),
                                               reference, held),
                    candidate_path)
            except (UsageError, Unsupported) as err:
                report.notes.append(f"--ragged: the problem does not run at sizes {odd}: {err.message}")
    return report


def _instance(evidence: Evidence | None, ragged: bool, oracle) -> Instance | None:
    return None if evidence is None else evidence.instance(ragged, oracle.answers.describe())


def _ragged_sizes(choices: list, given: dict) -> dict:
    """Each size the run chose (not one the user gave) made odd: one less than an even value, so it is a
    multiple of no power of two (64 -> 63, 32 -> 31); tuples element-wise; small sizes kept."""
    def odd(v):
        return v - 1 if isinstance(v, int) and not isinstance(v, bool) and v >= RAGGED_MIN and v % 2 == 0 else v

    out = {}
    for c in choices:
        if c.name in given:
            continue
        v = c.value
        new = type(v)(odd(x) for x in v) if isinstance(v, (tuple, list)) else odd(v)
        if new != v:
            out[c.name] = new
    return out


def _check_once(problem_path, candidate_path, sizes, options: CheckOptions, save_counterexample, progress,
                oracle=None, evidence: Instance | None = None, reference=None, held: list | None = None):
    timeout_ms, arch, eval_mode = options.timeout_ms, options.arch, options.eval_mode
    report = KernelbenchReport(problem_path, candidate_path, eval_mode=eval_mode)
    if evidence is not None:
        evidence.report = report
    start = time.perf_counter()
    if progress:
        progress(f"running the reference {problem_path} symbolically" if reference is None
                 else f"loading the problem {problem_path} (its reference runs in Volta's process)")
    problem = load_problem(problem_path, sizes)
    if eval_mode:
        problem.model.eval()
    report.sizes, report.input_names = problem.sizes, problem.input_names
    precision = problem.run.session.precision = Precision()
    for t in list(problem.inputs) + list(problem.parameters.values()):
        if isinstance(t, SymTensor):
            precision.made(t.storage.dtype)
    if reference is None:
        ref_outs = problem.reference_outputs()
    else:    # the reference runs in Volta's process only: its formats come from there, never its values
        ref_outs, facts = None, reference()
        precision.reference.update(facts.formats)
        precision.reference_ops.update(facts.ops)
    precision.start_candidate(candidate_path)
    report.seconds["reference" if reference is None else "problem"] = time.perf_counter() - start
    run = problem.candidate_run()
    run.paths = oracle
    host = Host(candidate_path, problem.run.session, arch=arch, record=evidence)
    run.host = host
    model, call1 = None, []
    try:
        start = time.perf_counter()
        if progress:
            progress(f"running the candidate {candidate_path}: building its extensions, running its host code")
        cand_outs, model, cand_inputs, made = _run_candidate(report, problem, run, host, candidate_path,
                                                             options.require_kernel, eval_mode,
                                                             reference is None)
        report.seconds["candidate"] = time.perf_counter() - start
        if held is not None and model is not None:    # what the model holds after call 1, for `Held.value`
            call1 = [(s, s.values.copy()) for s in C.held_storages(model)]
        if cand_outs is None:
            if evidence is not None and cand_inputs is not None:
                evidence.held_after(problem.input_names, cand_inputs, model, report.bindings)
            hacks.conclude(report, candidate_path)
            return report
        if evidence is not None:
            evidence.first_call(cand_outs, problem.input_names, cand_inputs, model, report.bindings)
        if ref_outs is None:
            _claim(report, precision, problem, run, host, model, made, cand_outs, cand_inputs, options, evidence,
                   progress)
            return report
        start = time.perf_counter()
        if progress:
            progress("comparing outputs")
        readings = Readings()
        confirm = _Confirmer(problem, run, host, model, ref_outs, readings)
        report.comparison = compare(ref_outs, cand_outs, confirm, timeout_ms, progress, readings.apply,
                                    confirm.integers)
        if readings.note():
            report.notes.append(readings.note())
        report.seconds["compare"] = time.perf_counter() - start
        report.verdict = report.comparison.verdict
        _assess_precision(report, precision, problem, host, model, run, ref_outs, cand_outs, options.tolerance)
        if evidence is not None and report.precision is not None:
            evidence.rounded = report.precision.rounded
        if report.verdict == "equivalent" and not report.hacks:     # call 1's findings come first
            seq = S.Sequence(problem, run, host, model, candidate_path, made, ref_outs, cand_outs, cand_inputs,
                             confirm.integers, readings, report.comparison, _exact_in, _beyond_float32, eval_mode,
                             arch, evidence)
            _call_again(report, seq, host, timeout_ms, progress)
        hacks.conclude(report, candidate_path)
        _save_worst(report, problem, ref_outs, save_counterexample)
        if report.verdict == "not-equivalent" and save_counterexample:
            S.save_witness(save_counterexample, problem, report.comparison.difference,
                           report.calls.call if report.calls else 1)
            report.witness_file = str(save_counterexample)
    finally:
        if held is not None and model is not None:
            held.append(Held(report, _Confirmer(problem, run, host, model, None, Readings()), call1))
        else:
            host.close()
    return report


@dataclass
class Held:
    """A run without the reference kept after its check (its host open) for Volta's process's requests: the
    candidate's value at a witness's inputs by concrete re-execution (`value`), and the report of the
    difference Volta's process confirmed with it (`differs`)."""

    report: KernelbenchReport
    confirmer: "_Confirmer"
    call1: list        # (storage, its values) the model held after call 1 (later calls change parameters)

    def value(self, values: dict, k: int, i: int):
        """Output k's element i of forward again on constant inputs `values`, its model holding call 1's
        parameters with their leaves at `values` (as the whole check confirms a difference of call 1)."""
        now = [(s, s.values.copy()) for s, _ in self.call1]
        try:
            for s, v in self.call1:
                s.values[:] = v
            return self.confirmer.candidate_value(values, k, i)
        finally:
            for s, v in now:
                s.values[:] = v

    def differs(self, difference: Difference, counts: dict, witness_file: str | None) -> None:
        """The report as the whole check writes a NOT EQUIVALENT call 1: the difference (its reference value
        as Volta's process sends it: a placeholder it fills in), call 1's comparison counts, no later calls."""
        r = self.report
        r.comparison = Comparison("not-equivalent", counts["compared"], dict(counts["proved_by"]),
                                  difference=replace(difference, derived=C.derived_values(
                                      self.confirmer.problem, difference.inputs)), seconds=counts["seconds"])
        r.verdict, r.calls, r.findings, r.finding_launch = "not-equivalent", None, [], None
        r.seconds.pop("later_calls", None)
        r.seconds["compare"] = counts["seconds"]
        r.witness_file = witness_file

    def close(self) -> None:
        self.confirmer.host.close()


def _claim(report, precision, problem, run, host: Host, model, made, cand_outs, cand_inputs,
           options: CheckOptions, evidence: Instance, progress) -> None:
    """The rest of a run whose reference is not here: what the candidate's outputs show by themselves
    (elements nothing wrote, narrower formats than the reference's), then calls 2..CALLS as after an EQUIVALENT
    call 1 (their own findings: OUTPUT ALIASED, a launch's), and the claim EQUIVALENT where nothing was found.
    Volta's process compares every call's outputs with its reference (`isolation/verify.py`); where it asks
    (`evidence.ask`), it decides call 1 first, and a call 1 it found different stops the run here (its
    difference is then confirmed by request: the later calls would not change the verdict)."""
    unwritten = {k: [i for i, v in enumerate(t.values()) if v is UNWRITTEN]
                 for k, t in enumerate(cand_outs) if isinstance(t, SymTensor)}
    report.comparison = Comparison(unwritten={k: m for k, m in unwritten.items() if m})
    if report.comparison.unwritten:
        report.verdict = report.comparison.verdict = "findings"
    else:
        _assess_precision(report, precision, problem, host, model, run, None, cand_outs, None)
    if report.verdict == "equivalent" and not report.hacks and (evidence.ask is None or evidence.ask(evidence)):
        seq = S.Sequence(problem, run, host, model, report.candidate, made, None, cand_outs, cand_inputs,
                         integer_inputs(problem), Readings(), None, _exact_in, _beyond_float32, options.eval_mode,
                         options.arch, evidence)
        _call_again(report, seq, host, options.timeout_ms, progress)
    hacks.conclude(report, report.candidate)


def _call_again(report, seq: S.Sequence, host: Host, timeout_ms: int, progress) -> None:
    """Calls 2..CALLS (`calls.later_calls`), their verdict and what stopped them into the report."""
    report.calls = S.later_calls(seq, timeout_ms, progress)
    report.seconds["later_calls"] = report.calls.seconds
    report.verdict = report.calls.verdict
    if report.calls.comparison is not None and report.calls.verdict != "equivalent":
        report.comparison = report.calls.comparison
    if report.calls.reason is not None:
        report.unsupported = Unsupported(f"on call {report.calls.call} of forward: {report.calls.reason}")
    if report.calls.findings:
        report.findings, report.finding_launch = report.calls.findings, host.launches[-1]


def _run_candidate(report, problem: Problem, run, host: Host, path: str, require_kernel: bool = False,
                   eval_mode: bool = False, inputs_judged: bool = True):
    """(outputs, model, inputs, construction) of the candidate's first call on the problem's symbolic inputs;
    outputs None with the report saying why not. `inputs_judged`: whether INPUT WRITTEN is judged here (it
    needs the reference's own writes; else Volta's process judges it from the evidence)."""
    model = inputs = made = None
    recorder = None if host.record is None else calltrace.Recorder(host.record, host, run.session)
    if recorder is not None:
        host.record.recorder = recorder        # the later calls extend its trace (`calls.later_calls`)
    try:
        with recorder.tracing() if recorder is not None else contextlib.nullcontext():
            namespace = C.execute_file(path, problem, run)
            refuse_overriding_subclasses(namespace, path)
            cls = C.model_class(namespace, path)
            with installed(run):
                model = cls(*problem.init_inputs)
        if eval_mode:
            model.eval()
        report.bindings = C.bind_parameters(problem, run, model)
        made = S.construction(model, report.bindings, problem.parameters)
        inputs = problem.fresh_inputs()
        if recorder is not None:
            recorder.inputs = inputs
        outs = hacks.forward(report, problem, run, host, model, namespace, path, inputs, require_kernel,
                             hacks.reference_writes(problem) if inputs_judged else None, recorder)
        if recorder is not None and outs is not None:
            recorder.returned(outs)
    except Stop as stop:
        if stop.error is not None:
            report.verdict, report.unsupported = "unsupported", stop.error
        else:
            report.verdict, report.findings = "findings", stop.findings
            report.finding_launch = host.launches[-1] if host.launches else None
        outs = None
    except UsageError:
        raise
    except VoltaError as err:
        report.verdict, report.unsupported = "unsupported", err
        outs = None
    except MemoryError:
        report.verdict = "unsupported"
        report.unsupported = Unsupported("the check ran out of memory at these sizes; pass smaller --size values")
        outs = None
    except Exception as err:   # the candidate raised what torch (or its host code) would raise at these sizes
        if not _candidate_made(err, path):
            raise
        span = getattr(err, "span", None) or C.span_in(path, sys.exc_info()[2])
        report.verdict, report.raised = "unsupported", (type(err).__name__, str(err), span)
        if getattr(err, "volta_build", None) is not None:   # a build torch rejects, and no `except` caught it
            err.volta_build.escaped = True
        outs = None
    finally:
        _collect(report, host)
        if recorder is not None:
            host.record.call_trace = recorder.entries
    return outs, model, inputs, made


def _assess_precision(report, precision, problem, host, model, run, ref_outs, cand_outs, tolerance) -> None:
    """A candidate equal over the reals that computes through narrower formats is a PRECISION finding (exit
    1); with a tolerance it is evaluated: within it, WITHIN TOLERANCE (exit 0), else the finding stands."""
    if report.verdict not in ("equivalent", "not-equivalent", "unknown"):
        return
    start = time.perf_counter()
    report.precision = P.assess(precision, problem, host, model, run, ref_outs, cand_outs, tolerance)
    report.seconds["precision"] = time.perf_counter() - start
    if report.precision is None or not report.precision.findings or report.verdict != "equivalent":
        return
    evaluation = report.precision.evaluation
    report.verdict = "within-tolerance" if evaluation is not None and evaluation.passed else "precision"


def _save_worst(report, problem, ref_outs, path) -> None:
    """--save-counterexample for a PRECISION LOSS that failed its tolerance: the worst input found."""
    evaluation = report.precision.evaluation if report.precision else None
    if not path or report.verdict != "precision" or evaluation is None or evaluation.passed is not False:
        return
    w = evaluation.worst
    witness.save(path, problem, Difference(w.output, w.index, tuple(ref_outs[w.output].shape), w.reference,
                                           w.candidate, w.inputs))
    report.witness_file = str(path)


def _candidate_made(err: Exception, path: str) -> bool:
    """Whether an exception is the candidate's (its own code, torch's errors, its host code's), not Volta's:
    torch-like errors and host code's are marked; anything else counts only when no frame below the
    candidate's last one is Volta's own code (a numpy MemoryError inside the machine is Volta's)."""
    if isinstance(err, TorchError) or getattr(err, "volta_candidate", False):
        return True
    if isinstance(err, (MemoryError, RecursionError)):
        return False
    frames = [os.path.abspath(f.filename) for f in traceback.extract_tb(err.__traceback__)]
    target = os.path.abspath(path)
    last = max((i for i, f in enumerate(frames) if f == target), default=-1)
    return last >= 0 and not any(f.startswith(VOLTA_ROOT + os.sep) for f in frames[last + 1:])


def _collect(report, host: Host) -> None:
    report.launches = list(host.launches)
    report.refused = list(host.refused)
    report.host_ops = list(host.ops)
    report.extensions = dict(host.built)
    report.builds = list(host.builds)
    report.gemms = list(host.gemms)
    if host.queries:
        report.notes.append("host code read " + ", ".join(sorted(set(host.queries))) + " (the stand-in device "
                            "answers with sm_80 limits; a path chosen from them is the one checked)")
    for kernel, why in host.refused:
        report.notes.append(f"a launch of {kernel} was refused as CUDA refuses it: {why}; it did nothing")


class _Confirmer:
    """Exact re-execution of a candidate counterexample: the reference's element evaluated exactly, the
    candidate's forward re-run on constant tensors (its launches on constants, no symbolic leaves)."""

    def __init__(self, problem, run, host: Host, model, ref_outs, readings: Readings):
        self.problem, self.run, self.host, self.model = problem, run, host, model
        self.ref_outs, self.readings = ref_outs, readings
        self.refusal: str | None = None   # why the last candidate counterexample is not one
        self.integers = integer_inputs(problem)

    def __call__(self, verdict, k, i, a, b) -> Difference | None:
        values = self.inputs(verdict.model, a, b)
        self.refusal = _beyond_float32(values, self.integers)
        if self.refusal is not None:
            return None
        env = {leaf: values.get(leaf.data[0], {}).get(leaf.data[1], 1)
               for leaf in inputs_of(a) if leaf.op is E.VAR}
        ref_value = _exact_in(a, env)
        cand_value = self.candidate_value(values, k, i)
        if ref_value is None or cand_value is None or not ref_value != cand_value:
            return None
        return Difference(k, i, tuple(self.ref_outs[k].shape), ref_value, cand_value, values,
                          derived=C.derived_values(self.problem, values))

    def inputs(self, model, a, b) -> dict:
        values: dict = {}
        for leaf, v in (model or {}).items():
            if leaf.op is E.VAR:
                values.setdefault(leaf.data[0], {})[leaf.data[1]] = v
        return values

    def candidate_value(self, values: dict, k: int, i: int):
        held = C.held_storages(self.model)
        saved = [(s, s.values.copy()) for s in held]
        memory, exact = self.host.memory, self.host.exact
        self.host.memory, self.host.exact = DeviceMemory(), True
        try:
            for s in held:
                s.values[:] = C.substitute(s.values, values)
            with deferred_threads(self.host.candidate or ""):     # as in the checked run: no thread runs loose
                outs = C.forward(self.model, C.constant_inputs(self.problem, values), self.run)
            element = outs[k].values()[i]
        except (Stop, VoltaError, Exception):
            return None
        finally:
            for s, v in saved:
                s.values[:] = v
            self.host.memory, self.host.exact = memory, exact
        return _exact(self.readings.apply(element))


FLOAT32_MAX = Fraction(2 ** 128 - 2 ** 104)


def _beyond_float32(values: dict, integers: IntegerInputs) -> str | None:
    """Why a real counterexample is no input a float32 tensor can hold (a value beyond FLT_MAX: a kernel that
    starts a max at -FLT_MAX differs from torch.max only there), else None. Integer inputs are exempt."""
    for name, elements in values.items():
        if name in integers:
            continue
        for index, v in elements.items():
            if abs(Fraction(v)) > FLOAT32_MAX:
                return (f"the difference found needs {name}[{index}] = {float(v):.3g}, beyond float32's range "
                        f"(no tensor holds it); nothing is claimed")
    return None


def _exact_in(expr, env):
    """The reference element's exact value (or certified enclosure) at the input env; None if undecided."""
    if not isinstance(expr, E.Expr):
        return None
    return _exact(_bind(expr, env))


def _bind(expr, env):
    memo: dict = {}
    for node in E.postorder(expr, memo):
        if node.op is E.VAR:
            memo[node] = E.const(env.get(node, 1))
        elif node.args:
            memo[node] = E.rebuild(node, tuple(memo[c] for c in node.args))
        else:
            memo[node] = node
    return memo[expr]


def integer_inputs(problem: Problem) -> IntegerInputs:
    """Integer inputs (randint) are integers of their range to the random search and Z3, as `volta check`
    declares integer buffers."""
    names = dict(problem.integer_ranges)
    for n, t in zip(problem.input_names, problem.inputs):
        if isinstance(t, SymTensor) and not t.dtype.is_floating_point and n not in names:
            names[n] = None
    return IntegerInputs.of(names)

