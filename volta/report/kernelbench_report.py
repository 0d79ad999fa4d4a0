"""Presentation of `volta kernelbench` results: text, JSON (`volta.kernelbench/1`, SCHEMA.md), SARIF 2.1.0.

No analysis happens here. Launch findings are formatted by the `volta races` formatters (one `RaceReport` for
the launch that made them), with CUDA lines named in the candidate's Python file where the source string
was found there. The report always says at which sizes the verdict holds.

    NOT EQUIVALENT: ModelNew (neq_sub.py) vs Model (problem.py), output 0 [0] differs: reference = 2, candidate = 0
      sizes: n=64 (scaled from 1048576)
      inputs: a[0] = 1, b[0] = 1 (every other input and parameter element is 1)
      both values confirmed exactly: the reference evaluated, the candidate's launches re-run on these constants
"""
from __future__ import annotations

import json
from fractions import Fraction

import volta
from volta.session.races import RaceReport, RacesResult
from volta.report import json_report, sarif
from volta.report import text as races_text
from volta.report.check_report import HOW, value_text
from volta.report.common import demangle, display_path
from volta.symbolic.enclose import Enclosure

SCHEMA = "volta.kernelbench/1"
KB_HOW = {"ring-form": "the same polynomial over the same atoms"}
MAX_INPUTS_SHOWN = 16
VERDICT_TEXT = {"equivalent": "EQUIVALENT", "not-equivalent": "NOT EQUIVALENT", "unsupported": "UNSUPPORTED",
                "unknown": "UNKNOWN", "findings": "FINDINGS", "rejected": "REJECTED"}
OUTPUT_LINES_SHOWN = 12


def kernel_name(mangled: str) -> str:
    """`add_kernel`, `scale_kernel<c10::Half>`: the demangled name without return type and parameters."""
    text = demangle(mangled) or mangled
    depth, cut = 0, len(text)
    for i, ch in enumerate(text):
        depth += ch == "<"
        depth -= ch == ">"
        if ch == "(" and depth == 0:
            cut = i
            break
    name = text[:cut]
    return name[5:] if name.startswith("void ") else name


def verdict_text(r) -> str:
    if r.verdict == "findings":
        if r.findings:
            kinds = list(dict.fromkeys(f.kind.upper().replace("-", " ") for f in r.findings))
            return ", ".join(kinds)
        return "UNINITIALIZED OUTPUT"
    if r.verdict == "unsupported" and r.raised is not None:
        return "CANDIDATE RAISED"
    return VERDICT_TEXT[r.verdict]


def sizes_text(r) -> str:
    parts = []
    for c in r.sizes:
        if c.how == "scaled":
            parts.append(f"{c.name}={c.value} (scaled from {c.original})")
        elif c.how == "given":
            parts.append(f"{c.name}={c.value} (--size)")
        else:
            parts.append(f"{c.name}={c.value}")
    return ", ".join(parts) or "the problem's own"


def _race_report(r) -> RaceReport:
    launch = r.finding_launch
    return RaceReport(kernel=launch.kernel if launch else "?", role="candidate", ptx=launch.ptx if launch else "",
                      grid="x".join(map(str, launch.grid)) if launch else "", block="x".join(map(str, launch.block))
                      if launch else "", threads=_count(launch.grid) * _count(launch.block) if launch else 0,
                      verdict="findings", findings=list(r.findings))


def _count(dims) -> int:
    n = 1
    for d in dims:
        n *= d
    return n


def _value(v) -> str:
    return value_text(v) if not isinstance(v, str) else v


def _inputs_line(difference) -> str:
    shown = [f"{name}[{i}] = {v}" for name, values in difference.inputs.items()
             for i, v in sorted(values.items()) if v != 1]
    head = ", ".join(shown[:MAX_INPUTS_SHOWN]) + (" …" if len(shown) > MAX_INPUTS_SHOWN else "")
    return (f"inputs: {head} (every other input and parameter element is 1)" if shown
            else "inputs: every input and parameter element is 1")


# ---- text ----------------------------------------------------------------------------------------
def format_text(r, indent: str = "") -> str:
    lines = [f"{verdict_text(r)}: {_summary(r)}", f"  sizes: {sizes_text(r)}"]
    c = r.comparison
    if r.verdict == "equivalent":
        how = ", ".join(f"{n:,} by {KB_HOW.get(k) or HOW.get(k, k)}" for k, n in c.proved_by.items())
        lines.append(f"  {c.compared:,} output elements compared: {how or 'none'}; over the reals, at these sizes")
    elif r.verdict == "not-equivalent":
        d = c.difference
        if d.structural:
            lines.append(f"  {d.structural} (for every input)")
        else:
            lines.append(f"  {_inputs_line(d)}")
            lines.append("  both values confirmed by exact re-execution: the reference evaluated, the candidate "
                         "re-run (its launches on these constants)")
        if r.witness_file:
            lines.append(f"  counterexample saved to {r.witness_file} (get_inputs-shaped arrays, parameters as "
                         f"param:NAME)")
    elif r.verdict == "findings" and r.findings:
        block = races_text._kernel(_race_report(r), races_text.DEFAULT_MAX_FINDINGS)
        lines.append("  " + block.replace("\n", "\n  "))
    elif r.verdict == "findings":
        for k, missing in c.unwritten.items():
            lines.append(f"  output {k}: {len(missing):,} element(s) never written by any kernel or torch op "
                         f"(first: {missing[:8]}); on a GPU they hold whatever the allocator left there")
    elif r.verdict == "unsupported" and r.raised is not None:
        kind, message, span = r.raised
        where = f" at {display_path(span.file)}:{span.line}" if span else ""
        lines.append(f"  the candidate raised {kind}{where}: {message}")
        lines.append("  nothing is claimed: the candidate does not run at these sizes (choose others with --size)")
    elif r.verdict == "unsupported":
        err = r.unsupported
        lines.append(f"  {err.message}")
        if err.span is not None:
            lines.append(f"  at {display_path(err.span.file)}:{err.span.line}:{err.span.col}")
        lines.append("  nothing is claimed about equivalence")
    elif r.verdict == "rejected":
        lines.append(f"  {r.unsupported.message}")
        lines.append("  the candidate's code reached for the verdict or for Volta's process: it is not accepted "
                     "(docs/sandbox.md)")
    elif r.verdict == "unknown":
        lines.append(f"  {len(c.unknown)} element(s) undecided (nothing is claimed); "
                     f"{sum(c.proved_by.values()):,} of {c.compared:,} compared were proved equal")
        lines += [f"  output {k}[{i}]: {why}" for k, i, why in c.unknown]
    lines += _binding_lines(r)
    if r.launches:
        kernels = list(dict.fromkeys(f"{kernel_name(x.kernel)} (grid {'x'.join(map(str, x.grid))}, block "
                                     f"{'x'.join(map(str, x.block))})" for x in r.launches))
        lines.append(f"  launches: {len(r.launches)}: " + "; ".join(kernels[:6]) + (" …" if len(kernels) > 6 else ""))
    if r.host_ops:
        lines.append("  torch ops called from host code: " + ", ".join(dict.fromkeys(r.host_ops)))
    lines += [f"  note: {n}" for n in r.notes]
    printed = r.candidate_output.strip().splitlines()
    if printed:
        lines.append(f"  the candidate printed ({len(printed)} line(s), shown, not read by Volta; the last "
                     f"{min(len(printed), OUTPUT_LINES_SHOWN)}):")
        lines += [f"  | {ln[:200]}" for ln in printed[-OUTPUT_LINES_SHOWN:]]
    if r.ragged is not None:
        lines.append("")
        lines.append("ragged sizes (not multiples of typical tile sizes; a candidate may assume the benchmark's "
                     "divisibility):")
        lines.append("  " + format_text(r.ragged).replace("\n", "\n  "))
    return "\n".join(indent + ln for ln in lines)


def _summary(r) -> str:
    head = f"ModelNew ({display_path(r.candidate)}) vs Model ({display_path(r.problem)})"
    c = r.comparison
    if r.verdict == "not-equivalent" and c.difference is not None and not c.difference.structural:
        d = c.difference
        return (f"{head}: output {d.output} {list(d.position)} differs: reference = "
                f"{_value(d.ref_value)}, candidate = {_value(d.cand_value)}")
    return head


def _binding_lines(r) -> list:
    if not r.bindings:
        return []
    parts = []
    for b in r.bindings:
        if b.how == "unbound":
            parts.append(f"{b.candidate} (unbound: its own leaves)")
        elif b.how == "name":
            parts.append(f"{b.candidate} = {b.reference}")
        else:
            parts.append(f"{b.candidate} = {b.reference} (by creation order and shape)")
    return ["  parameters: " + "; ".join(parts)]


# ---- JSON ----------------------------------------------------------------------------------------
def _json_value(v):
    if isinstance(v, Fraction):
        return str(v)
    if isinstance(v, Enclosure):
        return {"lo": str(v.lo), "hi": str(v.hi)}
    return None if v is None else str(v)


def _error(err):
    if err is None:
        return None
    span = err.span
    return {"message": err.message, "file": span.file if span else None, "line": span.line if span else None,
            "col": span.col if span else None}


def to_dict(r, nested: bool = False) -> dict:
    c = r.comparison
    d = c.difference if c else None
    out = {
        "schema": SCHEMA,
        "tool": {"name": "volta", "version": getattr(volta, "__version__", "0")},
        "problem": r.problem,
        "candidate": r.candidate,
        "verdict": r.verdict,
        "verdict_text": verdict_text(r),
        "exit_code": r.exit_code if not nested else {"equivalent": 0, "not-equivalent": 1, "findings": 1,
                                                     "rejected": 1}.get(
            r.verdict, 3),
        "sizes": [{"name": s.name, "original": s.original, "value": s.value, "how": s.how} for s in r.sizes],
        "parameters": [{"candidate": b.candidate, "reference": b.reference, "how": b.how, "shape": list(b.shape)}
                       for b in r.bindings],
        "compared": c.compared if c else 0,
        "proved_by": dict(c.proved_by) if c else {},
        "stats": {**{f"{k}_seconds": round(v, 6) for k, v in r.seconds.items()},
                  "thread_instructions": sum(x.thread_instructions for x in r.launches)},
        "counterexample": None if d is None else {
            "output": d.output, "index": list(d.position), "structural": d.structural,
            "ref_value": _json_value(d.ref_value), "cand_value": _json_value(d.cand_value),
            "inputs": {n: {str(i): str(v) for i, v in vals.items()} for n, vals in d.inputs.items()},
            "default_input": "1", "file": r.witness_file},
        "findings": [json_report.finding_dict(f) for f in r.findings],
        "groups": json_report.groups_list(r.findings),
        "unwritten": [{"output": k, "count": len(v), "first": v[:16]} for k, v in (c.unwritten.items() if c else ())],
        "unsupported": _error(r.unsupported),
        "raised": None if r.raised is None else {"type": r.raised[0], "message": r.raised[1],
                                                 "file": r.raised[2].file if r.raised[2] else None,
                                                 "line": r.raised[2].line if r.raised[2] else None},
        "unknown": [{"output": k, "index": i, "reason": why} for k, i, why in (c.unknown if c else ())],
        "launches": [{"kernel": x.kernel, "extension": getattr(x, "extension", None), "grid": list(x.grid),
                      "block": list(x.block), "thread_instructions": x.thread_instructions,
                      "seconds": round(x.seconds, 6)} for x in r.launches],
        "refused_launches": [{"kernel": k, "reason": why} for k, why in r.refused],
        "host_torch_ops": list(dict.fromkeys(r.host_ops)),
        "notes": list(r.notes),
        "candidate_output": r.candidate_output,
    }
    if not nested:
        out["ragged"] = to_dict(r.ragged, nested=True) if r.ragged is not None else None
    return out


def format_json(r) -> str:
    return json.dumps(to_dict(r), indent=2, default=str)


# ---- SARIF ---------------------------------------------------------------------------------------
def format_sarif(r) -> str:
    reports = [_race_report(r)] if r.findings else []
    doc = sarif.to_dict(RacesResult(reports, r.problem))
    run = doc["runs"][0]
    run["invocations"][0]["exitCode"] = r.exit_code
    rules, results = run["tool"]["driver"]["rules"], run["results"]
    if r.verdict != "equivalent" and not r.findings:
        kind = r.verdict if r.verdict != "findings" else "uninitialized-output"
        level = "error" if r.verdict in ("not-equivalent", "findings", "rejected") else "warning"
        rules.append(sarif.rule_entry(kind, f"volta kernelbench: {VERDICT_TEXT.get(r.verdict, r.verdict)}", level))
        span = (r.raised[2] if r.raised else r.unsupported.span if r.unsupported else None)
        loc = sarif._location(span.file, span.line) if span else sarif._location(r.candidate, None)
        results.append({"ruleId": kind, "ruleIndex": len(rules) - 1, "level": level,
                        "message": {"text": format_text(r).splitlines()[0]}, "locations": [loc]})
    return json.dumps(doc, indent=2)


FORMATS = {"text": format_text, "json": format_json, "sarif": format_sarif}
