"""The whole check of a KernelBench candidate in a confined worker; the parent reads back only validated JSON.

`run(problem, candidate, sizes, options, ...)` is what the user-facing doors call (`volta kernelbench`,
`volta.kernelbench(...)`, batch, the pytest helper). It forks a worker (`process.Worker`: limits, namespaces,
private folder, scrubbed environment, output captured), which installs the audit hook of `guard.py` before any
of the problem's or candidate's code runs, takes the snapshot of Volta's functions, runs
`volta.kernelbench.check.check(...)` unchanged, compares the snapshot, and sends one JSON message: the report
as `kernelbench_report.to_dict`, the text/SARIF/JUnit strings asked for, and the exit code. The parent checks
every type and value (a known verdict, an exit code in {0, 1, 3} that the verdict gives), copies a saved
counterexample only if it is a .npz of numeric arrays, and adds what the candidate printed.

A worker that ends without such an answer (an exit, a signal, a crash, a refusal of the audit hook, a patch of
Volta's code, a malformed message) gives REJECTED, exit 1; past its time or memory, UNSUPPORTED, exit 3 — never
EQUIVALENT. The check shares the worker's interpreter with the candidate, so the report is a claim: after it,
the worker sends the evidence of a passing verdict (what the candidate computed: `kernelbench/evidence.py`, as
`wire.py` expression tables), and `verify.py` decides that verdict again here against a reference run here;
a claim the evidence does not bear is REJECTED (or UNKNOWN where this process cannot decide). The residual
risk (the candidate's outputs are computed in its interpreter) is in docs/sandbox.md.
"""
from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass, field
from xml.etree import ElementTree

import numpy as np

from volta.errors import PtxSyntaxError, Span, Unsupported, UsageError, VoltaError
from volta.exec import limits
from volta.kernelbench.check import CheckOptions, KernelbenchReport, check
from volta.kernelbench.evidence import Evidence
from volta.kernelbench.isolation import guard, process, verify, wire
from volta.report import kernelbench_report, render

FORMATS = ("text", "json", "sarif", "junit")
EXIT_OF = {"equivalent": 0, "within-tolerance": 0, "not-equivalent": 1, "findings": 1, "precision": 1,
           "rejected": 1, "unsupported": 3, "unknown": 3}
DEFAULT_SECONDS = 1800.0    # the worker's wall-clock and CPU limit when no --timeout is given
MARGIN_SECONDS = 10.0       # beyond --timeout: the worker's start, the rounding up of a check past its deadline
RAISED = {"usage": UsageError, "parse": PtxSyntaxError, "unknown": limits.Timeout, "unsupported": Unsupported,
          "error": UsageError}    # the errors a check raises, by the name the worker sends (VoltaError: exit 2)
WITNESS_NAME = "counterexample.npz"
NUMERIC_KINDS = "biufcU"    # numpy dtype kinds a counterexample holds (numbers, and witness.py's JSON string)


class Malformed(Exception):
    """The worker's answer is not what Volta's worker sends."""


@dataclass
class Confined:
    """A validated answer: the report as JSON data, the strings each format prints, and the exit code."""

    verdict: str
    exit_code: int
    report: dict
    rendered: dict = field(default_factory=dict)     # format -> the string `volta kernelbench` prints


def run(problem: str, candidate: str, sizes: dict, options: CheckOptions, *, save_counterexample: str | None = None,
        explain: bool = False) -> Confined:
    """Check `candidate` against `problem` under `options` in a confined worker, bounded by the
    current `limits` (--timeout, --max-memory)."""
    lim = limits.current()
    seconds = lim.timeout + MARGIN_SECONDS if lim.timeout is not None else DEFAULT_SECONDS
    bounds = process.Limits(seconds=seconds, memory=lim.memory_limit)
    absolute = os.path.abspath(problem), os.path.abspath(candidate)
    names = problem, candidate
    cwd = os.getcwd()

    def job(channel: process.Channel) -> None:
        channel.install_guard()
        untouched = guard.snapshot()
        witness = os.path.join(channel.folder, WITNESS_NAME) if save_counterexample else None
        failed = None
        evidence = Evidence()
        try:
            with limits.using(max_memory=lim.max_memory, max_steps=lim.max_steps, timeout=lim.timeout):
                report = check(*absolute, sizes, options, save_counterexample=witness, evidence=evidence)
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
            return
        os.chdir(cwd)            # the report shows paths as the command's working directory sees them
        for r in (report, report.ragged):
            if r is not None:
                r.problem, r.candidate = names
        channel.send("report", {"report": json.loads(json.dumps(kernelbench_report.to_dict(report), default=str)),
                                "rendered": {f: render(report, f, explain=explain) for f in ("text", "sarif", "junit")},
                                "exit_code": report.exit_code})
        channel.send_bytes(wire.evidence_frame(evidence if report.exit_code == 0 else Evidence()))

    limits.disarm()       # the worker keeps the deadline (its own timer, then the parent's kill), not this process
    worker = process.Worker(job, bounds)
    witness = os.path.join(worker.folder, WITNESS_NAME)
    try:
        missing = worker.ready()
        kind, payload = worker.receive("checking the candidate")
        if kind == "error":
            raise _error(payload, dict(zip(absolute, names)))
        if kind != "report":
            raise process.Ended("rejected", f"the worker answered `{kind}`, not the report")
        answer = _validated(payload)
        instances = wire.read_evidence(worker.receive_bytes("sending what the candidate computed", wire.MAX_FRAME))
        printed = worker.printed()
        saved = _copy_witness(witness, save_counterexample) if save_counterexample else None
    except process.Ended as end:
        return _ended(names, end, worker.printed(), explain)
    except (Malformed, wire.Malformed) as err:
        return _ended(names, process.Ended("rejected", f"the worker's answer is malformed: {err}"), worker.printed(),
                      explain)
    finally:
        worker.close()
    with limits.using(max_memory=lim.max_memory, timeout=lim.timeout):     # --timeout again, for the decision
        decided = verify.decide(problem, sizes, options, answer.report, instances)
    if decided.verdict is not None:
        return _ended(names, process.Ended(decided.verdict, decided.reason), printed, explain, NOT_BORNE)
    report = answer.report
    report["notes"] = list(report["notes"]) + [f"worker: {m}" for m in missing]
    report["candidate_output"] = printed
    if decided.runs:
        report["notes"].append(_verified(decided))
    if save_counterexample and report["counterexample"] is not None:
        report["counterexample"]["file"] = save_counterexample if saved is None else None
        if saved is not None:
            report["notes"].append(saved)
    text = answer.rendered["text"].replace(witness, str(save_counterexample))
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
    return (f"decided in Volta's process, outside the candidate's worker: {decided.calls} forward call(s) of "
            f"{decided.runs} run(s) compared with the reference run here{replayed} ({decided.seconds:.1f} CPU s)")


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
    if not (type(rendered) is dict and set(rendered) == {"text", "sarif", "junit"}
            and all(type(v) is str for v in rendered.values())):
        raise Malformed("the rendered reports are not text, SARIF and JUnit strings")
    try:
        json.loads(rendered["sarif"])
        ElementTree.fromstring(rendered["junit"])
    except (ValueError, ElementTree.ParseError) as err:
        raise Malformed(f"a rendered report does not parse ({err})") from None
    return Confined(verdict, code, report, dict(rendered))


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


NO_REPORT = "the candidate's worker gave no well-formed report: nothing is claimed about equivalence"
NOT_BORNE = ("the worker's report passed the candidate and what it sent does not bear that out in Volta's "
             "process: nothing is claimed about equivalence")


def _ended(names: tuple, end: process.Ended, printed: str, explain: bool, note: str = NO_REPORT) -> Confined:
    """The report of a worker that gave no well-formed answer (or one its evidence does not bear out), built
    and rendered here (no candidate code)."""
    r = KernelbenchReport(*names, verdict=end.verdict, unsupported=Unsupported(end.reason), candidate_output=printed)
    r.notes.append(note)
    report = json.loads(json.dumps(kernelbench_report.to_dict(r), default=str))
    return Confined(r.verdict, r.exit_code, report, {f: render(r, f, explain=explain) for f in FORMATS})
