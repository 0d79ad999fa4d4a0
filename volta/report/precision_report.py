"""Presentation of the PRECISION part of a `volta kernelbench` result (`volta.kernelbench.precision`): the
text lines and the JSON object. No analysis happens here.

    PRECISION LOSS: ModelNew (gemm_half.py) vs Model (gemm_problem.py)
      equal over the reals, but computes output values through narrower formats than the reference (float32):
        float16: float16 values at gemm_half.py:11  `y = self.linear(x.half().float())`
      tolerance atol=0.01 rtol=0.01: FAIL on 48 inputs tried; worst found: output 0 [11] ...
"""
from __future__ import annotations

from volta.report.common import display_path


def text_lines(result, verdict: str, witness_file: str | None = None) -> list:
    if result is None:
        return []
    formats = ", ".join(result.reference_names)
    lines = []
    if result.findings:
        head = ("equal over the reals, but computes" if verdict in ("precision", "within-tolerance")
                else "also computes")
        lines.append(f"  {head} outputs through narrower formats than the reference ({formats}):")
        lines += [f"    {_where(ev)}" for ev in result.findings]
    if result.unused:
        lines.append("  narrow values no output depends on (not a finding): "
                     + "; ".join(_where(ev) for ev in result.unused))
    e = result.evaluation
    if e is not None:
        tol = f"tolerance atol={e.atol:g} rtol={e.rtol:g}"
        if e.passed is None:
            lines.append(f"  {tol}: not evaluated: {e.why}; the finding stands")
        else:
            lines.append(f"  {tol}: {'PASS' if e.passed else 'FAIL'} on the {e.tried} inputs tried (a search, "
                         f"not a bound)")
            if e.worst is not None:
                w = e.worst
                lines.append(f"  worst found: output {w.output} [{w.index}] on {w.input_class} inputs: reference "
                             f"{w.reference:.6g}, candidate {w.candidate:.6g} ("
                             + (f"{w.excess:.3g}x the tolerance)" if w.excess != float("inf") else "not finite)"))
            failing = [name for name, x in e.per_class.items() if x > 1.0]
            if failing:
                lines.append("  input classes past the tolerance: " + ", ".join(failing))
            if witness_file and verdict == "precision":
                lines.append(f"  the worst input found saved to {witness_file} (get_inputs-shaped arrays, parameters "
                             f"as param:NAME)")
    elif result.findings and verdict == "precision":
        lines.append("  pass --atol/--rtol (KernelBench's: 1e-2) to evaluate it in its actual precision")
    return lines


def _where(ev) -> str:
    where = f"{display_path(ev.file)}:{ev.line}" if ev.file and ev.line else "(in host code, no line recorded)"
    code = f"  `{ev.code}`" if ev.code else ""
    return f"{ev.format_name}: {ev.what} at {where}{code}"


def to_dict(result) -> dict | None:
    if result is None:
        return None
    e = result.evaluation
    return {
        "reference_formats": list(result.reference_formats),
        "findings": [_event(ev) for ev in result.findings],
        "unused": [_event(ev) for ev in result.unused],
        "evaluation": None if e is None else {
            "atol": e.atol, "rtol": e.rtol, "result": {True: "pass", False: "fail", None: "not-evaluated"}[e.passed],
            "why": e.why or None, "inputs_tried": e.tried, "per_class_worst_excess": dict(e.per_class),
            "worst": None if e.worst is None else {
                "output": e.worst.output, "index": e.worst.index, "input_class": e.worst.input_class,
                "reference": e.worst.reference, "candidate": e.worst.candidate, "excess": e.worst.excess}},
    }


def _event(ev) -> dict:
    return {"kind": ev.kind, "format": ev.format, "what": ev.what, "file": ev.file, "line": ev.line, "code": ev.code}
