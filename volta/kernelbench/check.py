"""`volta kernelbench PROBLEM.py CANDIDATE.py`: is the candidate's `ModelNew` the reference's `Model`?

1. The problem is loaded at small sizes and its `Model.forward` run symbolically (`problem.py`).
2. The candidate file runs on the same stand-in with the same sizes; its extensions are built and its host
   code run in a worker (`engine.Host`); its parameters are bound to the reference's (`candidate.py`); its
   `forward` runs on the same symbolic inputs, every launch on Volta's machine.
3. Every output element is compared (`compare.py`); a difference is confirmed by exact re-execution of both
   (`_confirm`), and can be saved as `get_inputs`-shaped arrays (`witness.py`).

Step 2 runs in a confined worker process (`isolation/`, docs/sandbox.md) forked before step 1, so that the
reference's results are never in its memory: `_candidate_side` there, the rest here. What the worker sends back
is checked (`isolation.wire`); a worker that ends without a well-formed answer makes the candidate REJECTED
(it exited, or tried what the worker refuses) or UNSUPPORTED (time, memory, a crash), never EQUIVALENT.

With `ragged`, the same check runs again at sizes that are not multiples of typical tile sizes, reported
apart: a candidate may legitimately assume the benchmark's divisibility.
"""
from __future__ import annotations

import os
import signal
import sys
import time
import traceback
from dataclasses import dataclass, field
from fractions import Fraction

from volta.config import IntegerInputs
from volta.equiv.check import _exact
from volta.errors import Unsupported, UsageError, VoltaError
from volta.exec import limits
from volta.kernelbench import candidate as C
from volta.kernelbench import witness
from volta.kernelbench.compare import Comparison, Difference, compare
from volta.kernelbench.engine import Host, Stop
from volta.kernelbench.failures import TorchError
from volta.kernelbench.isolation import guard
from volta.kernelbench.isolation import process as isolation
from volta.kernelbench.isolation import wire
from volta.kernelbench.libm import Readings
from volta.kernelbench.memory import DeviceMemory
from volta.kernelbench.problem import Problem, load_problem
from volta.kernelbench.tensor import SymTensor
from volta.kernelbench.torchsym import installed
from volta.symbolic import expr as E
from volta.symbolic.search import inputs_of

VOLTA_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RAGGED_MIN = 4     # sizes below this stay as they are in the ragged run
CANDIDATE_SECONDS = 600.0    # the candidate's worker's time limit when no --timeout is given
CONFIRM_SECONDS = 120.0      # one exact re-run of the candidate's forward


@dataclass
class KernelbenchReport:
    problem: str
    candidate: str
    verdict: str = "equivalent"     # equivalent | not-equivalent | findings | unsupported | unknown | rejected
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
    input_names: list = field(default_factory=list)
    seconds: dict = field(default_factory=dict)
    notes: list = field(default_factory=list)
    ragged: "KernelbenchReport | None" = None
    witness_file: str | None = None
    candidate_output: str = ""      # what the candidate's code printed in its worker (shown, never parsed)

    @property
    def exit_code(self) -> int:
        own = {"equivalent": 0, "not-equivalent": 1, "findings": 1, "rejected": 1}.get(self.verdict, 3)
        if self.ragged is not None and self.ragged.exit_code == 1:
            return 1
        return own


def check(problem_path: str, candidate_path: str, sizes: dict | None = None, *, ragged: bool = False,
          timeout_ms: int = 10_000, save_counterexample: str | None = None, progress=None,
          arch: str = "sm_80") -> KernelbenchReport:
    """Check a candidate file against a problem file (the library call behind `volta kernelbench`)."""
    workers = [_start_worker(candidate_path) for _ in range(2 if ragged else 1)]    # before any reference runs
    try:
        return _check(problem_path, candidate_path, sizes, ragged, timeout_ms, save_counterexample, progress,
                      arch, workers)
    finally:
        for worker in workers:
            worker.close()


def _check(problem_path, candidate_path, sizes, ragged, timeout_ms, save_counterexample, progress, arch, workers):
    report = _check_once(problem_path, candidate_path, sizes or {}, timeout_ms, save_counterexample, progress, arch,
                         workers[0])
    if ragged and report.sizes:
        odd = _ragged_sizes(report.sizes, sizes or {})
        if not odd:
            report.notes.append("--ragged: no size is large enough to make ragged")
        else:
            if progress:
                progress("ragged sizes: " + ", ".join(f"{k}={v}" for k, v in odd.items()))
            try:
                report.ragged = _check_once(problem_path, candidate_path, {**(sizes or {}), **odd}, timeout_ms,
                                            None, progress, arch, workers[1])
            except (UsageError, Unsupported) as err:
                report.notes.append(f"--ragged: the problem does not run at sizes {odd}: {err.message}")
    return report


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


def _start_worker(candidate_path: str) -> isolation.Worker:
    """A confined worker for the candidate's side of one check, forked now; it waits for `_check_once`."""
    lim = limits.current()
    seconds = max(lim.deadline - time.monotonic(), 1.0) + 2.0 if lim.deadline is not None else CANDIDATE_SECONDS
    full = os.path.abspath(candidate_path)     # the worker runs in its own folder
    return isolation.Worker(lambda channel: _candidate_side(channel, full),
                            isolation.Limits(seconds=seconds, memory=lim.memory_limit))


def _check_once(problem_path, candidate_path, sizes, timeout_ms, save_counterexample, progress, arch, worker):
    report = KernelbenchReport(problem_path, candidate_path)
    worker.request(("start", os.path.abspath(problem_path), sizes, arch))
    start = time.perf_counter()
    if progress:
        progress(f"running the reference {problem_path} symbolically")
    problem = load_problem(problem_path, sizes)
    report.sizes, report.input_names = problem.sizes, problem.input_names
    ref_outs = problem.reference_outputs()
    report.seconds["reference"] = time.perf_counter() - start
    try:
        start = time.perf_counter()
        if progress:
            progress(f"running the candidate {candidate_path} in its worker: building its extensions, running its "
                     f"host code")
        cand_outs = _candidate_outputs(report, problem, worker)
        report.seconds["candidate"] = time.perf_counter() - start      # waited for, beyond the reference
        if cand_outs is None:
            return report
        start = time.perf_counter()
        if progress:
            progress("comparing outputs")
        readings = Readings()
        confirm = _Confirmer(problem, _Asker(worker), ref_outs, readings)
        report.comparison = compare(ref_outs, cand_outs, confirm, timeout_ms, progress, readings.apply,
                                    confirm.integers)
        if readings.note():
            report.notes.append(readings.note())
        report.seconds["compare"] = time.perf_counter() - start
        report.verdict = report.comparison.verdict
        if report.verdict == "not-equivalent" and save_counterexample:
            witness.save(save_counterexample, problem, report.comparison.difference)
            report.witness_file = str(save_counterexample)
    finally:
        worker.close()
        report.candidate_output = worker.printed()
    return report


def _candidate_outputs(report, problem: Problem, worker: isolation.Worker) -> list | None:
    """The candidate's outputs as its worker computed them (checked), or None with the report saying why not."""
    try:
        paths = {os.path.abspath(p): p for p in (report.problem, report.candidate)}
        report.notes += worker.ready()
        kind, payload = worker.receive("running the candidate")
        if kind == "usage" and type(payload) is tuple and len(payload) == 2 and type(payload[0]) is str:
            span = payload[1]
            raise UsageError(payload[0], wire.to_span(span, paths) if type(span) is tuple else None)
        if kind in ("exited", "unsupported") and type(payload) is str:
            raise isolation.Ended("rejected" if kind == "exited" else "unsupported", payload)
        if kind == "internal" and type(payload) is str:
            raise RuntimeError(f"volta's candidate worker failed: {payload}")
        if kind != "outcome":
            raise isolation.Ended("rejected", f"the worker answered `{kind}`, not the candidate's outcome")
        return wire.apply(payload, report, problem.run.session, paths)
    except wire.Malformed as err:
        report.verdict, report.unsupported = "rejected", Rejected(f"the worker's outcome is malformed: {err}")
    except isolation.Ended as end:
        report.verdict = end.verdict
        report.unsupported = Rejected(end.reason) if end.verdict == "rejected" else Unsupported(end.reason)
    except limits.Timeout as err:          # the parent's own --timeout, while it waited for the worker
        report.verdict = "unsupported"
        report.unsupported = Unsupported(f"{err.message} while the candidate ran in its worker (stopped)")
    return None


class Rejected(VoltaError):
    """The candidate's code reached for the verdict or for Volta's process (docs/sandbox.md): never equivalent."""

    exit_code = 1
    kind = "rejected"


def _candidate_side(channel, candidate_path: str) -> None:
    """The worker's job: the candidate's file, model and forward (`_run_candidate`) on the problem loaded as the
    parent loads it, its outcome sent back; then exact re-runs of its forward for the parent's confirmations."""
    _, problem_path, sizes, arch = channel.receive()
    lim = limits.current()
    lim.progress = None        # the worker's stderr is the candidate's output; progress is the parent's to show
    if lim.deadline is not None:
        signal.setitimer(signal.ITIMER_REAL, max(lim.deadline - time.monotonic(), 0.001), 0.5)
    report = KernelbenchReport(problem_path, candidate_path)
    try:
        problem = load_problem(problem_path, sizes)
    except VoltaError:
        channel.send("internal", "the problem does not load in the worker")   # the parent reports its own error
        return
    channel.install_guard()         # the problem is the user's; from here on the candidate's code runs
    run = problem.candidate_run()
    host = Host(candidate_path, problem.run.session, arch=arch)
    run.host = host
    untouched = guard.snapshot()
    try:
        start = time.perf_counter()
        try:
            outs, model = _run_candidate(report, problem, run, host, candidate_path)
            report.seconds["candidate"] = time.perf_counter() - start
            patched = guard.changed(untouched)
            if patched is not None:
                channel.send("refused", f"the candidate ({candidate_path}) tried to {patched}")
                return
            message = ("outcome", wire.outcome_of(report, outs))
        except UsageError as err:
            message = ("usage", (err.message, None if err.span is None else (err.span.file, err.span.line,
                                                                              err.span.col)))
        except (SystemExit, KeyboardInterrupt) as exit_:
            span = C.span_in(candidate_path, sys.exc_info()[2])
            where = f" at {span.file}:{span.line}" if span else ""
            message = ("exited", f"the candidate raised {type(exit_).__name__}({exit_}){where} (sys.exit, or an "
                                 f"interrupt) instead of returning a result")
        except MemoryError:
            message = ("unsupported", "the candidate's worker ran out of memory (--max-memory bounds it)")
        except Exception as err:     # a bug in Volta's code in the worker (the candidate's errors are reported)
            message = ("internal", "".join(traceback.format_exception(err, limit=-4)).strip())
        channel.send(*message)
        while message[0] == "outcome":
            request = channel.receive()
            if request[0] != "confirm":
                return
            channel.send("element", _candidate_element(problem, run, host, model, *request[1:]))
    finally:
        host.close()


def _candidate_element(problem, run, host: Host, model, values: dict, k: int, i: int):
    """Output k's element i of the candidate's forward re-run on constants (`values`, else 1), or None."""
    held = C.held_storages(model)
    saved = [(s, s.values.copy()) for s in held]
    memory, exact = host.memory, host.exact
    host.memory, host.exact = DeviceMemory(), True
    try:
        for s in held:
            s.values[:] = C.substitute(s.values, values)
        outs = C.forward(model, C.constant_inputs(problem, values), run)
        return outs[k].values()[i]
    except (Stop, VoltaError, Exception):
        return None
    finally:
        for s, v in saved:
            s.values[:] = v
        host.memory, host.exact = memory, exact


class _Asker:
    """The parent's side of a confirmation: the worker re-runs the candidate, its answer is checked."""

    def __init__(self, worker: isolation.Worker):
        self.worker = worker

    def __call__(self, values: dict, k: int, i: int):
        self.worker.request(("confirm", values, k, i))
        try:
            kind, payload = self.worker.receive("re-running the candidate on constants", CONFIRM_SECONDS)
            return wire.element(payload) if kind == "element" else None
        except (isolation.Ended, wire.Malformed):
            return None


def _run_candidate(report, problem: Problem, run, host: Host, path: str):
    """The candidate's outputs on the problem's symbolic inputs, or None with the report saying why not."""
    model = None
    try:
        namespace = C.execute_file(path, problem, run)
        cls = C.model_class(namespace, path)
        with installed(run):
            model = cls(*problem.init_inputs)
        report.bindings = C.bind_parameters(problem, run, model)
        outs = C.forward(model, problem.fresh_inputs(), run)
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
        outs = None
    finally:
        _collect(report, host)
    return outs, model


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
    if host.queries:
        report.notes.append("host code read " + ", ".join(sorted(set(host.queries))) + " (the stand-in device "
                            "answers with sm_80 limits; a path chosen from them is the one checked)")
    for kernel, why in host.refused:
        report.notes.append(f"a launch of {kernel} was refused as CUDA refuses it: {why}; it did nothing")


class _Confirmer:
    """Exact re-execution of a candidate counterexample: the reference's element evaluated exactly, the
    candidate's forward re-run on constant tensors (its launches on constants, no symbolic leaves)."""

    def __init__(self, problem, candidate_element, ref_outs, readings: Readings):
        self.problem, self.candidate_element = problem, candidate_element     # (values, k, i) -> element or None
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
        return Difference(k, i, tuple(self.ref_outs[k].shape), ref_value, cand_value, values)

    def inputs(self, model, a, b) -> dict:
        values: dict = {}
        for leaf, v in (model or {}).items():
            if leaf.op is E.VAR:
                values.setdefault(leaf.data[0], {})[leaf.data[1]] = v
        return values

    def candidate_value(self, values: dict, k: int, i: int):
        element = self.candidate_element(values, k, i)
        return None if element is None else _exact(self.readings.apply(element))


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

