"""The candidate's `forward` watched for what gaming a benchmark takes, and the findings that come of it.

`forward` runs the candidate's forward (as `candidate.forward` does) with an `Observer` on its host events and
its Python lines (`coverage.py`), host threads deferred (`streams.deferred_threads`) and the stream order
reset (`streams.Ordering`); afterwards it turns what was seen into findings (`findings.py`):

- INPUT_WRITTEN: an input's or parameter's element changed, except elements the reference's own forward
  changed in its inputs (an in-place op both do); named with the launch, host op or line that wrote it;
- STREAM_RACE: work on another stream not ordered before the return;
- HOST_THREAD: a thread started in forward and not joined by its return;
- UNINITIALIZED_READ: a torch op in the candidate read an element nothing wrote;
- the coverage table (which output elements a custom kernel took part in), and with `require_kernel`
  TORCH_ONLY for outputs computed without one.

`conclude` adds UNINITIALIZED_OUTPUT for the elements the comparison found unwritten and makes the verdict
FINDINGS when there is any (a candidate with a finding is never EQUIVALENT).
"""
from __future__ import annotations

import sys

from volta.kernelbench import candidate as C
from volta.kernelbench import coverage
from volta.kernelbench import findings as F
from volta.kernelbench.elements import UnwrittenRead
from volta.kernelbench.streams import deferred_threads
from volta.kernelbench.tensor import SymTensor
from volta.symbolic import expr as E
from volta.symbolic.ringform import RingForms


def forward(report, problem, run, host, model, namespace: dict, path: str, inputs: list,
            require_kernel: bool = False, allowed: dict | None = None, recorder=None):
    """The candidate's outputs on `inputs` (None when a finding stops the run); findings and the coverage
    table go to report.hacks and report.coverage. `allowed`: the reference's own writes to its inputs
    (`reference_writes`), or None where INPUT WRITTEN is judged elsewhere (Volta's process, from the
    evidence, when the reference does not run where the candidate does). `recorder`: the call trace
    (`isolation.calltrace.Recorder`) that goes on through forward, for Volta's process to find races from."""
    watched = [(n, t.storage) for n, t in zip(problem.input_names, inputs) if isinstance(t, SymTensor)]
    taken = {id(s) for _, s in watched}
    for name, t in model.named_parameters():
        if isinstance(t, SymTensor) and id(t.storage) not in taken:
            watched.append((name, t.storage))
            taken.add(id(t.storage))
    observer = coverage.Observer(path, run.streams, watched)
    run.streams.begin()
    host.observer = observer
    observer.recorder = recorder
    if recorder is not None:
        recorder.forward()
    outs = None
    try:
        with deferred_threads(path) as pending, observer.trace(namespace):
            try:
                outs = C.forward(model, inputs, run)
            except UnwrittenRead:
                span = C.span_in(path, sys.exc_info()[2])
                report.hacks.append(F.HackFinding(
                    F.UNINITIALIZED_READ, "a torch op reads an element nothing wrote (torch.empty)",
                    span.file if span else path, span.line if span else None, "an uninitialized tensor"))
                report.verdict = "findings"
    finally:
        host.observer = None
        if recorder is not None:
            recorder.settle()
        if allowed is not None:     # a write is made even if the run stops after it
            report.hacks += _written(observer, allowed, path)
    if outs is not None:     # order and threads are judged at the return, so only when forward returned
        report.hacks += _races(run.streams, path) + _threads(pending)
        report.coverage = coverage.table(observer, outs)
        if require_kernel:
            report.hacks += _torch_only(report.coverage, outs, path)
    return outs


def conclude(report, path: str) -> None:
    """Unwritten outputs as findings; the verdict FINDINGS when any finding stands beside a verdict that
    would otherwise claim equivalence or nothing (a run stopped by what Volta does not model after the
    finding was made still made it; the report keeps why it stopped as a note)."""
    c = report.comparison
    if c is not None:
        for k, missing in c.unwritten.items():
            line = next((s.line for s in report.coverage if s.output == k), None)
            report.hacks.append(F.HackFinding(
                F.UNINITIALIZED_OUTPUT, f"output {k}: {len(missing):,} element(s) no kernel and no torch op "
                f"wrote (on a GPU: whatever the allocator left there)", path, line, f"output {k}",
                list(missing[:F.MAX_ELEMENTS]), len(missing)))
    if report.hacks and report.verdict in ("equivalent", "within-tolerance", "unknown", "unsupported"):
        if report.unsupported is not None:
            report.notes.append(f"the run then stopped: {report.unsupported.message}")
        elif report.raised is not None:
            report.notes.append(f"the run then stopped: the candidate raised {report.raised[0]}: "
                                f"{report.raised[1]}")
        report.verdict = "findings"


def reference_writes(problem) -> dict:
    """input name -> {element: the value the reference's forward left there} for the elements it changed."""
    out = {}
    for name, before, after in zip(problem.input_names, problem.inputs, problem.reference_inputs):
        if isinstance(before, SymTensor) and isinstance(after, SymTensor):
            b, a = before.values(), after.values()
            out[name] = {i: a[i] for i in range(a.shape[0]) if a[i] is not b[i]}
    return out


def same_value(forms: RingForms, a, b) -> bool:
    return type(a) is E.Expr and type(b) is E.Expr and forms.equal(a, b)


def _written(observer, allowed: dict, path: str) -> list:
    """INPUT_WRITTEN for each watched tensor with elements written that the reference leaves alone, or leaves
    holding another value (identical or the same polynomial counts as the same; anything else is reported)."""
    found, forms = [], RingForms()
    for w, changed in observer.written():
        reference = allowed.get(w.name, {})
        values = w.storage.values
        extra = [i for i in changed if i not in reference
                 or not (values[i] is reference[i] or same_value(forms, values[i], reference[i]))]
        if extra:
            label, file, line = w.writer.get(extra[0], ("a torch op in forward", None, None))
            found.append(F.HackFinding(
                F.INPUT_WRITTEN, f"`{w.name}`: {len(extra):,} element(s) written ({label})", file or path, line,
                w.name, extra[:F.MAX_ELEMENTS], len(extra), label))
    return found


def _races(ordering, path: str) -> list:
    return [F.HackFinding(F.STREAM_RACE, f"{w.label} on stream {w.stream[1]} is not ordered before forward "
                          f"returns", w.file or path, w.line, by=w.label)
            for w in ordering.unordered()]


def _threads(pending: list) -> list:
    return [F.HackFinding(F.HOST_THREAD, f"{p.label} started in forward and not joined before it returns",
                          p.file, p.line, by=p.label)
            for p in pending if not p.ran]


def _torch_only(rows: list, outs: list, path: str) -> list:
    found = []
    for k, t in enumerate(outs):
        spans = [s for s in rows if s.output == k and s.origin not in coverage.WITH_KERNEL]
        if not spans:
            continue
        elements = [i for s in spans for i in range(s.start, s.stop)]
        first = t.values()[elements[0]]
        op = E.Op(first.op).name.lower() if type(first) is E.Expr else "a constant"
        origin = spans[0].origin
        by = f"{origin}, the result's last step `{op}`" if origin != coverage.INPUT else "an input or constant"
        found.append(F.HackFinding(F.TORCH_ONLY, f"output {k}: {len(elements):,} element(s) computed without a "
                                   f"custom kernel ({by})", path, spans[0].line, f"output {k}",
                                   elements[:F.MAX_ELEMENTS], len(elements), by))
    return found
