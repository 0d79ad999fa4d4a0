"""The check of a KernelBench candidate in confined workers; the parent reads back only validated data.

`run(problem, candidate, sizes, options, ...)` is what the user-facing doors call (`volta kernelbench`,
`volta.kernelbench(...)`, batch, the pytest helper). Each worker (`process.Worker`: limits, namespaces,
private folder, scrubbed environment, output captured) installs the audit hook of `guard.py` before any of
the problem's or candidate's code runs, takes the snapshot of Volta's functions, runs
`volta.kernelbench.check.check(...)`, compares the snapshot, and sends JSON messages: the report as
`kernelbench_report.to_dict`, the text/SARIF/JUnit strings, the exit code. The parent checks every type and
value (a known verdict, an exit code in {0, 1, 3} that the verdict gives), copies a saved counterexample only
if it is a .npz of numeric arrays, and adds what the candidate printed.

Two runs (docs/sandbox.md, "Two runs"). The first worker runs the candidate without the reference
(`check(..., reference=...)`): it is forked before this process runs the reference, gets only the formats
the reference computes in, and claims EQUIVALENT unless its own run shows otherwise; this process decides
the claim from the evidence (what the candidate computed: `kernelbench/evidence.py`, as `wire.py` expression
tables; `verify.py`) and sends back the comparison counts its report shows. Call 1 is decided before the later
calls are made: once it returned with no finding, the worker sends its evidence and waits (`_first_call`), and
this process answers `stop` where it differs (`_decide_first`: the later calls would not change the verdict),
else `go` (its comparison then stands for the claim's call 1 when the outputs sent are the same elements). A
difference this process finds in call 1 is confirmed by asking the worker to re-run the candidate concretely
on the input found (the worker keeps it loaded: `check.Held`), and the worker reports it with the reference's
value left for this process to fill in; a report that does not pass is settled here (`verify.settle`) and stands. Only where the
first run does not decide (several paths, --ragged, a later call, an undecided comparison, an input written)
does the whole check run in a fresh worker (the reference there too), whose passing verdict is decided here
the same way; a pass there after the first run did not pass is REJECTED (the candidate's outputs come from
the check's state). With --atol/--rtol only the whole check runs.

A worker that ends without a well-formed answer (an exit, a signal, a crash, a refusal of the audit hook, a
patch of Volta's code, a malformed message) gives REJECTED, exit 1; past its time or memory, UNSUPPORTED,
exit 3 — never EQUIVALENT; a claim the evidence does not bear is REJECTED (or UNKNOWN where this process
cannot decide). The residual risk (the candidate's torch ops are computed in its interpreter) is in
docs/sandbox.md.

One deadline bounds the command (docs/sandbox.md, Time): `limits.current()` made it when the command started, and
every stage gets what is left of it — a worker (`_worker`: its own timer at the deadline, the parent's kill
MARGIN_SECONDS past it), a stage in this process (`_stage`). A stage that starts with nothing left is not started:
UNKNOWN naming it (`OutOfTime`), a report in every format all the same.
"""
from __future__ import annotations

import contextlib
import json
import os
import shutil
from dataclasses import dataclass, field, replace
from fractions import Fraction
from xml.etree import ElementTree
from xml.sax.saxutils import escape

import numpy as np

from volta.errors import PtxSyntaxError, Span, Unsupported, UsageError, VoltaError
from volta.exec import limits
from volta.kernelbench import calls as S
from volta.kernelbench import candidate as C
from volta.kernelbench.check import CheckOptions, Held, KernelbenchReport, check
from volta.kernelbench.compare import Difference
from volta.kernelbench.evidence import Evidence, ReferenceFacts
from volta.kernelbench.isolation import guard, process, verify, wire
from volta.report import kernelbench_report, render
from volta.report.check_report import value_text

FORMATS = ("text", "json", "sarif", "junit")
EXIT_OF = {"equivalent": 0, "within-tolerance": 0, "not-equivalent": 1, "findings": 1, "precision": 1,
           "rejected": 1, "unsupported": 3, "unknown": 3}
DEFAULT_SECONDS = 1800.0    # the worker's wall-clock and CPU limit when no --timeout is given
MARGIN_SECONDS = 10.0       # beyond the command's deadline: the parent kills a worker that its own timer did not
#                             stop (candidate code that ignores SIGALRM, a long C call), or that is still reporting
RAISED = {"usage": UsageError, "parse": PtxSyntaxError, "unknown": limits.Timeout, "unsupported": Unsupported,
          "error": UsageError}    # the errors a check raises, by the name the worker sends (VoltaError: exit 2)
WITNESS_NAME = "counterexample.npz"
NUMERIC_KINDS = "biufcU"    # numpy dtype kinds a counterexample holds (numbers, and witness.py's JSON string)


class Malformed(Exception):
    """The worker's answer is not what Volta's worker sends."""


class OutOfTime(process.Ended):
    """The command's --timeout ran out before or during one of its stages (a worker's start, the reference run
    here, a decision here, the re-run of a difference): UNKNOWN, naming the stage; nothing is claimed."""

    def __init__(self, lim: limits.Limits, stage: str):
        super().__init__("unknown", f"--timeout {lim.timeout:g} s ran out {stage}: nothing is claimed about "
                                    f"equivalence (a longer --timeout may decide)")


@dataclass
class Confined:
    """A validated answer: the report as JSON data, the strings each format prints, and the exit code."""

    verdict: str
    exit_code: int
    report: dict
    rendered: dict = field(default_factory=dict)     # format -> the string `volta kernelbench` prints


@dataclass(frozen=True)
class _Job:
    """One check's request, as both runs of its worker read it."""

    names: tuple            # (problem, candidate) as the user gave them (the report shows these)
    absolute: tuple         # the same, absolute (the worker runs in its private folder)
    cwd: str
    sizes: dict
    options: CheckOptions
    explain: bool
    limits: limits.Limits   # of the command: its deadline, made when it started, bounds every stage


def _worker(job: _Job, work, doing: str) -> process.Worker:
    """A worker for `work`, killed MARGIN_SECONDS past the command's deadline (its own timer ends its check at
    the deadline); not started when nothing is left."""
    left = _time_left(job, doing)
    seconds = DEFAULT_SECONDS if left is None else round(left + MARGIN_SECONDS, 1)
    return process.Worker(work, process.Limits(seconds=seconds, memory=job.limits.memory_limit))


def _time_left(job: _Job, doing: str) -> float | None:
    """Seconds left of the command's deadline (None without --timeout); OutOfTime when none are: the stage
    `doing` is not started."""
    left = job.limits.left()
    if left is not None and left <= 0:
        raise OutOfTime(job.limits, f"before {doing}")
    return left


@contextlib.contextmanager
def _stage(job: _Job, doing: str):
    """A stage of the command in this process (the reference run, a decision), within what is left of the
    command's deadline: OutOfTime when nothing is left at its start (it is not started) or it runs out."""
    lim = job.limits
    _time_left(job, doing)
    try:
        with limits.using(max_memory=lim.max_memory, timeout=lim.timeout, deadline=lim.deadline):
            yield
    except limits.Timeout:
        raise OutOfTime(lim, f"while {doing}") from None


def run(problem: str, candidate: str, sizes: dict, options: CheckOptions, *, save_counterexample: str | None = None,
        explain: bool = False) -> Confined:
    """Check `candidate` against `problem` under `options` in a confined worker, bounded by the
    current `limits` (--timeout, --max-memory).

    First the candidate alone (`_candidate_side`): the reference runs in this process only, the worker's run
    is decided here from its evidence, a difference in call 1 confirmed by re-running the candidate on
    request. That is the answer where it decides; else the whole check runs in a fresh worker (`_whole`: the
    reference there too), and a pass there after the first run did not pass is REJECTED: the candidate's
    outputs agreed only where the reference's existed in its process. With --atol/--rtol only the whole check
    runs."""
    lim = limits.current()
    job = _Job((problem, candidate), (os.path.abspath(problem), os.path.abspath(candidate)), os.getcwd(),
               sizes, options, explain, lim)
    limits.disarm()       # each stage keeps the deadline (a worker its own timer, then the parent's kill; `_stage`)
    try:
        if options.tolerance is not None:
            return _stage_named(_whole(job, save_counterexample), "the check in its worker")
        first = _candidate_side(job, save_counterexample)
        if isinstance(first, Confined):
            return first
        reason, reference = first
        second = _whole(job, save_counterexample, reference)
    except OutOfTime as end:            # before a worker started: it printed nothing
        return _ended(job.names, end, "", explain)
    if second.exit_code != 0:
        return _stage_named(second, f"the whole check in a fresh worker, after the first run (without the "
                                    f"reference) did not decide: {reason[:300]}")
    return _ended(job.names, process.Ended("rejected", f"{ONLY_WITH_REFERENCE} Without them, {reason}"),
                  second.report.get("candidate_output", ""), job.explain, STATE_READ)


def _stage_named(answer: Confined, stage: str) -> Confined:
    """`answer` with a note naming the stage that ran out of --timeout, where one did (the check's own message says
    only that the deadline passed)."""
    why = answer.report.get("unsupported")
    if answer.exit_code != 3 or type(why) is not dict or "ran out" not in str(why.get("message")):
        return answer
    note = f"what ran out of --timeout: {stage}"
    answer.report["notes"] = list(answer.report["notes"]) + [note]
    answer.rendered = dict(answer.rendered, text=f"{answer.rendered['text']}\n  note: {note}",
                           json=json.dumps(answer.report, indent=2))
    return answer


def _checked(channel: process.Channel, job: _Job, witness: str | None, evidence: Evidence, reference=None,
             held: list | None = None):
    """The worker's side of either run: the guard, the check, the snapshot compared; the report, or None
    after the failure was sent."""
    channel.install_guard()
    untouched = guard.snapshot()
    failed = report = None
    lim = job.limits
    try:
        with limits.using(max_memory=lim.max_memory, max_steps=lim.max_steps, timeout=lim.timeout,
                          deadline=lim.deadline):
            report = check(*job.absolute, job.sizes, job.options, save_counterexample=witness, evidence=evidence,
                           reference=reference, held=held)
            limits.disarm()
    except VoltaError as err:
        span = err.span
        failed = ("error", {"kind": next((k for k, c in RAISED.items() if isinstance(err, c)), "error"),
                            "message": err.message,
                            "span": [span.file, span.line, span.col] if span is not None else None})
    except Exception as err:
        failed = ("refused", f"the check ended with an uncaught {type(err).__name__}: {str(err)[:500]}")
    except BaseException as err:     # SystemExit, KeyboardInterrupt: what ends a process, from its code
        failed = ("refused", f"the candidate raised {type(err).__name__}({', '.join(map(repr, err.args))}) "
                             f"out of the check, to end the worker without a result")
    patched = guard.changed(untouched)
    if patched is not None:
        failed = ("refused", f"the candidate tried to {patched}")
    if failed is not None:
        channel.send(*failed)
        return None
    return report


def _send_report(channel: process.Channel, job: _Job, report: KernelbenchReport) -> None:
    os.chdir(job.cwd)            # the report shows paths as the command's working directory sees them
    for r in (report, report.ragged):
        if r is not None:
            r.problem, r.candidate = job.names
    channel.send("report", {"report": json.loads(json.dumps(kernelbench_report.to_dict(report), default=str)),
                            "rendered": {f: render(report, f, explain=job.explain) for f in ("text", "sarif", "junit")},
                            "exit_code": report.exit_code})


def _report_of(worker: process.Worker, job: _Job, doing: str) -> "Confined":
    """The worker's next message as a validated report (the error a check raised, raised again here)."""
    kind, payload = worker.receive(doing)
    if kind == "error":
        raise _error(payload, dict(zip(job.absolute, job.names)))
    if kind != "report":
        raise process.Ended("rejected", f"the worker answered `{kind}`, not the report")
    return _validated(payload)


def _candidate_side(job: _Job, save_counterexample: str | None):
    """The candidate's run with no reference in its process (`check(..., reference=...)`): the reference runs
    here, its formats go to the worker, the worker's evidence is decided here (a pass: `verify.decide`; else
    `verify.settle`), a difference in call 1 confirmed by request (`_confirmed`). The final answer (a pass, a
    confirmed difference, a report that stands, a worker that ended without one, UNKNOWN), else (why the
    first run does not decide, the reference made here) for the whole check."""
    def work(channel: process.Channel) -> None:
        facts = []

        def reference():
            if not facts:
                kind, payload = channel.receive()
                facts.append(ReferenceFacts.of_plain(payload) if kind == "reference" else ReferenceFacts())
            return facts[0]

        evidence, held = Evidence(), []
        if not job.options.ragged:       # a ragged run's difference is decided by the whole check (Two runs)
            evidence.ask = lambda inst: _first_call(channel, inst)
        try:
            report = _checked(channel, job, None, evidence, reference, held)
            if report is not None:
                _answer(channel, job, report, evidence, held)
        finally:
            for h in held:
                h.close()

    def _answer(channel, job, report, evidence, held) -> None:
        limited = _limited(report)
        channel.send("claim", {"report": json.loads(json.dumps(kernelbench_report.to_dict(report), default=str)),
                               "limited": limited})
        if limited:
            _send_report(channel, job, report)
            return
        channel.send_bytes(wire.evidence_frame(evidence))
        kind, compared = channel.receive()
        if kind == "confirm" and len(held) == 1:
            _differs(channel, job, held[0], compared)
            return
        if kind != "compared":
            return
        for inst, counts in zip(evidence.instances, compared):
            if counts:
                inst.compared(counts["calls"], counts["notes"])
        _send_report(channel, job, report)

    worker = _worker(job, work, "starting the candidate's worker")
    try:
        missing = worker.ready()
        with _stage(job, "running the reference in Volta's process"):
            reference = verify.reference(job.names[0], job.sizes, job.options)
        worker.send("reference", reference.facts.to_plain())
        kind, payload = worker.receive("running the candidate")
        first = None
        if kind == "call1":
            first = _decide_first(worker, job, reference)
            kind, payload = worker.receive("running the candidate")
        if kind == "error":
            raise _error(payload, dict(zip(job.absolute, job.names)))
        if not (kind == "claim" and type(payload) is dict and set(payload) == {"report", "limited"}
                and type(payload["limited"]) is bool and type(payload["report"]) is dict):
            raise process.Ended("rejected", f"the worker answered `{kind}`, not the candidate's run")
        claim = payload["report"]
        _checked_report(claim, claim.get("exit_code"))
        if claim["exit_code"] == 3 and payload["limited"]:     # past a limit: the whole check would be too
            answer = _report_of(worker, job, "reporting the candidate's run")
            if answer.exit_code != 3:
                raise process.Ended("rejected", "the worker's report is not the run it claimed")
            return _stage_named(_passed(answer, verify.Decided(), missing, worker.printed(), None, None, None),
                                "the candidate's first run in its worker (without the reference)")
        instances = wire.read_evidence(worker.receive_bytes("sending what the candidate computed", wire.MAX_FRAME))
        with _stage(job, "deciding the candidate's run in Volta's process"):
            if first is not None and first.verdict == "differs" and claim["exit_code"] == 0:
                # the worker stopped after call 1, as asked: its difference is confirmed by request where the run
                # is one (no other path), else the whole check decides, as for any difference not confirmed so
                decided = first if len(instances) == 1 and not claim.get("paths") else verify.Decided(
                    "rejected", first.reason)
            elif claim["exit_code"] == 0:
                decided = verify.decide(job.names[0], job.sizes, job.options, claim, instances, reference,
                                        confirm=True, first=first.first if first is not None else None)
            elif len(instances) == 1 and not claim.get("paths") and not claim.get("ragged"):
                decided = verify.settle(reference, claim, instances[0], job.options)
            else:
                decided = verify.Decided("whole", "its run took several paths or ragged sizes")
        if decided.verdict == "differs":
            answer = _confirmed(worker, job, decided, reference, save_counterexample)
            if answer is None:
                return decided.reason, reference
            return _passed(answer, verify.Decided(), missing, worker.printed(), save_counterexample, None,
                           os.path.join(worker.folder, WITNESS_NAME))
        if decided.verdict in ("rejected", "whole"):
            return (decided.reason if claim["exit_code"] == 0 else _not_passed(claim)), reference
        if decided.verdict is not None:
            return _ended(job.names, process.Ended(decided.verdict, decided.reason), worker.printed(), job.explain,
                          NOT_BORNE)
        worker.send("compared", decided.compared)
        answer = _report_of(worker, job, "reporting the candidate's run")
        if (answer.exit_code, answer.verdict, answer.report.get("paths"), bool(answer.report.get("ragged"))) != (
                claim["exit_code"], claim["verdict"], claim.get("paths"), bool(claim.get("ragged"))):
            raise process.Ended("rejected", "the worker's report is not the run it claimed")
        printed = worker.printed()
    except process.Ended as end:
        return _ended(job.names, end, worker.printed(), job.explain)
    except (Malformed, wire.Malformed) as err:
        return _malformed(job, worker, err)
    finally:
        worker.close()
    return _passed(answer, decided, missing, printed, None, None, None)


def _first_call(channel: process.Channel, inst) -> bool:
    """The worker's side of call 1 decided first: call 1's evidence (its outputs, inputs and parameters after it,
    its extension calls and call trace so far) to Volta's process; whether to make the later calls."""
    channel.send("call1", None)
    channel.send_bytes(wire.evidence_frame(Evidence([inst])))
    kind, _ = channel.receive()
    return kind != "stop"


def _decide_first(worker: process.Worker, job: _Job, reference) -> verify.Decided:
    """Call 1 of the candidate's run decided here before its later calls are made (`verify.settle`, as for a
    report that does not pass): a difference stops the worker ("stop"), and is confirmed by request once the
    worker has sent its claim; anything else lets it go on, and its claim is decided as ever."""
    instances = wire.read_evidence(worker.receive_bytes("sending call 1", wire.MAX_FRAME))
    first = verify.Decided("whole", "the worker sent other than one run at call 1")
    if len(instances) == 1 and not instances[0]["ragged"]:
        with _stage(job, "deciding the candidate's call 1 in Volta's process"):
            first = verify.settle(reference, {"verdict": "equivalent"}, instances[0], job.options)
        if first.verdict == "differs":
            first.reason = "call 1's outputs differ from the reference's"
    try:
        worker.send("stop" if first.verdict == "differs" else "go", None)
    except process.Ended:
        pass   # its time ran out while this process decided: what it sent before ending says so (read next)
    return first


def _differs(channel: process.Channel, job: _Job, held: Held, request: dict) -> None:
    """The worker's side of a difference Volta's process found in call 1: the candidate re-run concretely on the
    input found, its value sent back; then, when Volta's process confirms the difference, the report of it, the
    reference's value a placeholder Volta's process fills in (it never enters the worker)."""
    inputs = {name: {int(i): v if type(v) is int else Fraction(v) for i, v in elements.items()}
              for name, elements in request["inputs"].items()}
    k, i = request["output"], request["index"]
    untouched = guard.snapshot()       # Volta's functions as _checked found them unpatched
    lim = job.limits
    try:
        with limits.using(max_memory=lim.max_memory, timeout=lim.timeout, deadline=lim.deadline):
            value = held.value(inputs, k, i)
    except limits.Timeout:
        value = None                   # not confirmed: Volta's process sees its deadline passed
    patched = guard.changed(untouched)
    if patched is not None:
        channel.send("refused", f"the candidate tried to {patched}")
        return
    channel.send("value", str(value) if type(value) in (int, Fraction) else None)
    kind, payload = channel.receive()
    if kind != "differs":
        return
    witness = os.path.join(channel.folder, WITNESS_NAME) if payload["save"] else None
    held.differs(Difference(k, i, tuple(payload["shape"]), REFERENCE_SLOT, value, inputs), payload["counts"], witness)
    _send_report(channel, job, held.report)


def _confirmed(worker: process.Worker, job: _Job, decided: verify.Decided, reference, save_counterexample):
    """A difference this process found in call 1 (`decided.differs`), confirmed as the whole check confirms one:
    the reference's element evaluated exactly here, the candidate re-run concretely in its worker on the input
    found (`Held.value`); the worker's report of it with the reference's value filled in here, the witness
    saved here. None when not confirmed (the whole check then decides)."""
    comparison = decided.differs
    d = comparison.difference
    if type(d.ref_value) not in (int, Fraction):
        return None
    worker.send("confirm", {"output": d.output, "index": d.index,
                            "inputs": {n: {str(i): v if type(v) is int else str(Fraction(v)) for i, v in e.items()}
                                       for n, e in d.inputs.items()}})
    kind, value = worker.receive("re-running the candidate on the input found")
    if kind != "value" or not (value is None or (type(value) is str and len(value) <= MAX_VALUE_CHARS)):
        raise Malformed("the candidate's value on the input found is not a number")
    try:
        found = None if value is None else Fraction(value)
    except (ValueError, ZeroDivisionError):
        raise Malformed(f"the candidate's value on the input found, {value[:80]!r}, is not a number") from None
    if found is None or found == d.ref_value:
        if job.limits.expired():
            raise OutOfTime(job.limits, "while re-running the candidate on the input found")
        return None
    worker.send("differs", {"shape": list(d.shape), "save": save_counterexample is not None,
                            "counts": {"compared": comparison.compared, "proved_by": dict(comparison.proved_by),
                                       "seconds": comparison.seconds}})
    answer = _report_of(worker, job, "reporting the difference")
    shown = answer.report.get("counterexample")
    if answer.verdict != "not-equivalent" or type(shown) is not dict or (
            shown.get("output"), shown.get("index"), shown.get("cand_value")) != (d.output, list(d.position), value):
        raise process.Ended("rejected", "the worker's report is not the difference confirmed")
    difference = replace(d, cand_value=found, derived=C.derived_values(reference.problem, d.inputs))
    if save_counterexample:
        S.save_witness(save_counterexample, reference.problem, difference, 1)
    shown["ref_value"], shown["note"] = str(d.ref_value), d.note
    notes = [CONFIRMED] + ([d.note] if d.note else [])   # a difference of rounding names its constants
    answer.report["notes"] = list(answer.report["notes"]) + notes
    text = value_text(d.ref_value)
    answer.rendered = {"text": answer.rendered["text"].replace(REFERENCE_SLOT, text)
                       + "".join(f"\n  note: {n}" for n in notes),
                       "sarif": answer.rendered["sarif"].replace(REFERENCE_SLOT, json.dumps(text)[1:-1]),
                       "junit": answer.rendered["junit"].replace(REFERENCE_SLOT, escape(text))}
    return answer


def _limited(report: KernelbenchReport) -> bool:
    """Whether a run said to decide nothing stopped at --timeout or --max-memory (which the whole check, doing
    more, would reach too: it is not run, so that a loaded machine never makes a REJECTED of it)."""
    return report.exit_code == 3 and any(r is not None and r.unsupported is not None
                                         and "ran out" in r.unsupported.message for r in (report, report.ragged))


def _not_passed(claim: dict) -> str:
    """What the candidate's run without the reference showed, in words (the worker's word: only shown)."""
    verdict = claim.get("verdict_text") if type(claim.get("verdict_text")) is str else "no pass"
    why, raised = claim.get("unsupported"), claim.get("raised")
    message = why.get("message") if type(why) is dict and type(why.get("message")) is str else ""
    if type(raised) is dict and type(raised.get("type")) is str and type(raised.get("message")) is str:
        message = f"{raised['type']}: {raised['message']}" + (f" at line {raised['line']}"
                                                               if type(raised.get("line")) is int else "")
    return f"its run gave {verdict[:40]}" + (f" ({message[:300]})" if message else "")


def _whole(job: _Job, save_counterexample: str | None, reference=None) -> Confined:
    """The whole check in a fresh worker (the reference there too); a passing verdict decided again here
    from its evidence (against `reference`, when this process has run it already)."""
    def work(channel: process.Channel) -> None:
        witness = os.path.join(channel.folder, WITNESS_NAME) if save_counterexample else None
        evidence = Evidence()
        report = _checked(channel, job, witness, evidence)
        if report is None:
            return
        _send_report(channel, job, report)
        channel.send_bytes(wire.evidence_frame(evidence if report.exit_code == 0 else Evidence()))

    worker = _worker(job, work, "starting the whole check in a fresh worker")
    witness = os.path.join(worker.folder, WITNESS_NAME)
    try:
        missing = worker.ready()
        answer = _report_of(worker, job, "checking the candidate")
        instances = wire.read_evidence(worker.receive_bytes("sending what the candidate computed", wire.MAX_FRAME))
        printed = worker.printed()
        saved = _copy_witness(witness, save_counterexample) if save_counterexample else None
    except process.Ended as end:
        return _ended(job.names, end, worker.printed(), job.explain)
    except (Malformed, wire.Malformed) as err:
        return _malformed(job, worker, err)
    finally:
        worker.close()
    decided = verify.Decided()
    if answer.exit_code == 0:       # only a passing verdict is decided again here (`verify.decide`)
        try:
            with _stage(job, "deciding the whole check's passing verdict in Volta's process"):
                decided = verify.decide(job.names[0], job.sizes, job.options, answer.report, instances, reference)
        except OutOfTime as end:
            return _ended(job.names, end, printed, job.explain)
    if decided.verdict is not None:
        return _ended(job.names, process.Ended(decided.verdict, decided.reason), printed, job.explain, NOT_BORNE)
    return _passed(answer, decided, missing, printed, save_counterexample, saved, witness)


def _passed(answer: Confined, decided: verify.Decided, missing: list, printed: str, save_counterexample, saved,
            witness) -> Confined:
    """The worker's validated report with what only this process knows added: what this OS did not isolate,
    the decision here, what the candidate printed, the counterexample copied."""
    report = answer.report
    report["notes"] = list(report["notes"]) + [f"worker: {m}" for m in missing]
    report["candidate_output"] = printed
    if decided.runs:
        report["notes"].append(_verified(decided))
    if save_counterexample and report["counterexample"] is not None:
        report["counterexample"]["file"] = save_counterexample if saved is None else None
        if saved is not None:
            report["notes"].append(saved)
    text = answer.rendered["text"].replace(witness, str(save_counterexample)) if witness else answer.rendered["text"]
    extra = ([f"  note: worker: {m}" for m in missing] + ([f"  note: {_verified(decided)}"] if decided.runs else [])
             + kernelbench_report.output_lines(printed))
    if save_counterexample and saved is not None:
        extra.append(f"  note: {saved}")
    rendered = {"text": "\n".join([text, *extra]) if extra else text,
                "json": json.dumps(report, indent=2),
                "sarif": answer.rendered["sarif"], "junit": answer.rendered["junit"]}
    return Confined(answer.verdict, answer.exit_code, report, rendered)


def _verified(decided: verify.Decided) -> str:
    replayed = (f"; {decided.host_calls} extension call(s) ({decided.launches} launch(es)) replayed on its own "
                f"machine from the candidate's source" if decided.host_calls else "")
    values = (f"; each forward call's values replayed here from the candidate's calls in {decided.values} run(s)"
              if decided.values else "")
    left = (f"; forward's values NOT replayed here (the worker's word) in {len(decided.not_replayed)} run(s): "
            f"{decided.not_replayed[0]}" if decided.not_replayed else "")
    return (f"decided in Volta's process, outside the candidate's worker: {decided.calls} forward call(s) of "
            f"{decided.runs} run(s) compared with the reference run here{replayed}{values}{left} "
            f"({decided.seconds:.1f} CPU s)")


def _error(payload, shown: dict) -> Exception:
    """The Volta error the check raised in the worker, raised again here as the same kind (bad input exit 2,
    unsupported or past --timeout exit 3), as the command raised it before it had a worker."""
    if not (type(payload) is dict and type(payload.get("message")) is str and payload.get("kind") in RAISED):
        return process.Ended("rejected", "the worker's error message is malformed")
    span = payload.get("span")
    ok = type(span) is list and len(span) == 3 and type(span[0]) is str and type(span[1]) is int and type(
        span[2]) is int
    return RAISED[payload["kind"]](payload["message"], Span(shown.get(span[0], span[0]), *span[1:]) if ok else None)


def _validated(payload) -> Confined:
    """The worker's report message checked for shape, types and consistency."""
    if not (type(payload) is dict and set(payload) == {"report", "rendered", "exit_code"}):
        raise Malformed("not a {report, rendered, exit_code} object")
    report, rendered, code = payload["report"], payload["rendered"], payload["exit_code"]
    _checked_report(report, code)
    if not (type(rendered) is dict and set(rendered) == {"text", "sarif", "junit"}
            and all(type(v) is str for v in rendered.values())):
        raise Malformed("the rendered reports are not text, SARIF and JUnit strings")
    try:
        json.loads(rendered["sarif"])
        ElementTree.fromstring(rendered["junit"])
    except (ValueError, ElementTree.ParseError) as err:
        raise Malformed(f"a rendered report does not parse ({err})") from None
    return Confined(report["verdict"], code, report, dict(rendered))


def _checked_report(report, code) -> None:
    """A report as JSON data (`kernelbench_report.to_dict`) checked for shape, types and consistency with the
    exit code `code`."""
    if type(code) is not int or code not in (0, 1, 3):
        raise Malformed(f"exit code {code!r} is not 0, 1 or 3")
    if type(report) is not dict or report.get("schema") != kernelbench_report.SCHEMA:
        raise Malformed("the report is not a volta.kernelbench/1 object")
    verdict = report.get("verdict")
    if verdict not in EXIT_OF or verdict == "rejected":
        raise Malformed(f"verdict {verdict!r} is not one a check gives")
    ragged = report.get("ragged")
    if ragged is not None and (type(ragged) is not dict or ragged.get("verdict") not in EXIT_OF):
        raise Malformed("the ragged report is malformed")
    expected = 1 if ragged is not None and EXIT_OF[ragged["verdict"]] == 1 else EXIT_OF[verdict]
    if code != expected or report.get("exit_code") != code:
        raise Malformed(f"exit code {code} does not follow from the verdict {verdict}")
    notes, cex = report.get("notes"), report.get("counterexample", 0)
    if not (type(notes) is list and all(type(n) is str for n in notes) and (cex is None or type(cex) is dict)):
        raise Malformed("the report's notes or counterexample are malformed")
    for r in [report] + ([ragged] if ragged is not None else []):
        if not _plain_fields(r):
            raise Malformed("the report's sizes, parameters, findings or stats are malformed")
        if not (r.get("paths") is None or (type(r["paths"]) is list and all(type(p) is dict for p in r["paths"]))):
            raise Malformed("the report's paths are malformed")


def _plain_fields(report: dict) -> bool:
    """The fields the Python API reads (volta/kernelbench/api.py) have their types."""
    lists = [report.get(k) for k in ("sizes", "parameters", "findings", "hack_findings")]
    return (all(type(x) is list and all(type(e) is dict for e in x) for x in lists)
            and all(type(s.get("name")) is str for s in report["sizes"])
            and type(report.get("stats")) is dict
            and all(type(v) in (int, float) for v in report["stats"].values()))


def _copy_witness(source: str, target: str) -> str | None:
    """Copy the worker's counterexample to the user's path if it is a .npz of numeric arrays (and strings; no
    objects: nothing is unpickled); a note why not
    (None when copied, or when the worker saved none)."""
    if not os.path.isfile(source) or os.path.islink(source):
        return None
    try:
        with np.load(source, allow_pickle=False) as archive:
            bad = [k for k in archive.files if archive[k].dtype.kind not in NUMERIC_KINDS]
    except (OSError, ValueError) as err:
        return f"the worker's counterexample is not a numpy archive ({err}): not saved to {target}"
    if bad:
        return f"the worker's counterexample holds non-numeric arrays ({', '.join(bad[:4])}): not saved to {target}"
    shutil.copyfile(source, target)
    return None


REFERENCE_SLOT = "VOLTA_REFERENCE_VALUE"   # where the worker's report of a difference shows the reference's value
MAX_VALUE_CHARS = 100_000                  # the candidate's exact value on the input found, as the worker sends it
CONFIRMED = ("compared with the reference in Volta's process (its outputs never entered the candidate's worker); "
             "the difference confirmed by the reference's element evaluated exactly there and the candidate re-run "
             "concretely in its worker on the input found")
NO_REPORT = "the candidate's worker gave no well-formed report: nothing is claimed about equivalence"
OUT_OF_TIME = ("one deadline bounds the whole command, made when it started: each stage (the candidate's run in its "
               "worker, the reference run and the decisions in Volta's process, the whole check) gets what is left "
               "of --timeout (docs/sandbox.md, Time)")
ONLY_WITH_REFERENCE = ("the candidate's outputs agree with the reference's only when the reference's outputs are "
                       "in its process (the check run whole in its worker), not when the reference runs in Volta's "
                       "process only: they come from the check's state, not from its inputs.")
STATE_READ = ("the candidate's outputs depend on whether the reference ran in its process: nothing is claimed about "
              "equivalence")
NOT_BORNE = ("the worker's report passed the candidate and what it sent does not bear that out in Volta's "
             "process: nothing is claimed about equivalence")


def _malformed(job: _Job, worker, err: Exception) -> Confined:
    """REJECTED: the worker's answer did not parse as what was asked for."""
    return _ended(job.names, process.Ended("rejected", f"the worker's answer is malformed: {err}"), worker.printed(),
                  job.explain)


def _ended(names: tuple, end: process.Ended, printed: str, explain: bool, note: str | None = None) -> Confined:
    """The report of a worker that gave no well-formed answer (or one its evidence does not bear out), or of a
    command out of time, built and rendered here (no candidate code)."""
    r = KernelbenchReport(*names, verdict=end.verdict, unsupported=Unsupported(end.reason), candidate_output=printed)
    r.notes.append(note or (OUT_OF_TIME if isinstance(end, OutOfTime) else NO_REPORT))
    report = json.loads(json.dumps(kernelbench_report.to_dict(r), default=str))
    return Confined(r.verdict, r.exit_code, report, {f: render(r, f, explain=explain) for f in FORMATS})
