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
import xml.etree.ElementTree as ET
from fractions import Fraction

import volta
from volta.session.races import RaceReport, RacesResult
import volta.report.calls_report as calls_report
import volta.report.json_report as json_report
import volta.report.precision_report as precision_report
import volta.report.sarif as sarif
import volta.report.text as races_text
from volta.report.check_report import HOW, value_text
from volta.report.common import demangle, display_path
from volta.symbolic.enclose import Enclosure

SCHEMA = "volta.kernelbench/1"
KB_HOW = {"ring-form": "the same polynomial over the same atoms"}
MAX_INPUTS_SHOWN = 16
VERDICT_TEXT = {"equivalent": "EQUIVALENT", "not-equivalent": "NOT EQUIVALENT", "unsupported": "UNSUPPORTED",
                "unknown": "UNKNOWN", "findings": "FINDINGS", "precision": "PRECISION LOSS",
                "within-tolerance": "EQUIVALENT WITHIN TOLERANCE", "rejected": "REJECTED"}
OUTPUT_LINES_SHOWN = 12      # lines of the candidate's printed output the text report shows (the last ones)


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
    if r.verdict == "findings" and calls_report.verdict_text(r.calls):
        return calls_report.verdict_text(r.calls)
    if r.verdict == "findings":
        kinds = list(dict.fromkeys([f.kind.upper().replace("-", " ") for f in r.findings] +
                                   [f.title for f in r.hacks]))
        return ", ".join(kinds) or "FINDINGS"
    if r.verdict == "unsupported" and r.raised is not None:
        return "BUILD FAILED" if any(b.escaped for b in r.builds) else "CANDIDATE RAISED"
    if getattr(r, "unchecked", None) and r.exit_code == 0:
        return f"{VERDICT_TEXT[r.verdict]} ON THE MACHINE ANSWERS CHECKED ({len(r.unchecked)} NOT CHECKED)"
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
    """The witness's inputs. Where get_inputs derives an input from random leaves (`torch.rand(n) + 0.5`), the
    input's elements with the leaves' values beside them: the tensor is what a user feeds the models."""
    derived = getattr(difference, "derived", {}) or {}

    def element(name, i, v):
        d = derived.get(name, ({}, None))[0].get(i)
        return f"{name}[{i}] = {v}" if d is None else f"{name}[{i}] = {_value(d)} from random leaf {v}"

    shown = [element(name, i, v) for name, values in difference.inputs.items()
             for i, v in sorted(values.items()) if v != 1]
    head = ", ".join(shown[:MAX_INPUTS_SHOWN]) + (" …" if len(shown) > MAX_INPUTS_SHOWN else "")
    if not derived:
        return (f"inputs: {head} (every other input and parameter element is 1)" if shown
                else "inputs: every input and parameter element is 1")
    rest = ", ".join(f"{name}'s {'other ' if shown else ''}elements {_value(r) if r is not None else 'as derived'}"
                     for name, (_, r) in derived.items())
    tail = f"every {'other ' if shown else ''}random leaf of get_inputs is 1 ({rest}), every parameter element is 1"
    return f"inputs: {head} ({tail})" if shown else f"inputs: {tail}"


# ---- text ----------------------------------------------------------------------------------------
def format_text(r, indent: str = "", explain: bool = False) -> str:
    lines = [f"{verdict_text(r)}: {_summary(r)}", f"  sizes: {sizes_text(r)}"]
    c = r.comparison
    if r.verdict in ("equivalent", "precision", "within-tolerance"):
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
            if getattr(d, "note", None):
                lines.append(f"  note: {d.note}")
        if r.witness_file:
            lines.append(f"  counterexample saved to {r.witness_file} (get_inputs-shaped arrays, parameters as "
                         f"param:NAME)")
    elif r.verdict == "findings" and calls_report.verdict_text(r.calls):
        pass    # OUTPUT_ALIASED: calls_report's lines below
    elif r.verdict == "findings" and r.findings:
        block = races_text._kernel(_race_report(r), races_text.DEFAULT_MAX_FINDINGS)
        lines.append("  " + block.replace("\n", "\n  "))
    elif r.verdict == "unsupported" and any(b.escaped for b in r.builds):
        lines.append("  the candidate's extension does not build with torch and nothing caught the error: it runs "
                     "on no GPU machine (nothing is claimed about its kernels)")
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
        lines.append("  the candidate's code ended its worker without a result or reached for the verdict or Volta's "
                     "process: it is not accepted (docs/sandbox.md)")
    elif r.verdict == "unknown" and c is None:   # decided in Volta's process from the worker's evidence
        lines.append(f"  {r.unsupported.message if r.unsupported else 'undecided'}")
        lines.append("  nothing is claimed about equivalence")
    elif r.verdict == "unknown":
        lines.append(f"  {len(c.unknown)} element(s) undecided (nothing is claimed); "
                     f"{sum(c.proved_by.values()):,} of {c.compared:,} compared were proved equal")
        lines += [f"  output {k}[{i}]: {why}" for k, i, why in c.unknown]
    lines += _hack_lines(r, explain)
    lines += calls_report.text_lines(r)
    lines += precision_report.text_lines(r.precision, r.verdict, r.witness_file)
    lines += _paths_lines(r)
    lines += _binding_lines(r)
    lines += _build_lines(r)
    if r.launches:
        kernels = list(dict.fromkeys(f"{kernel_name(x.kernel)} (grid {'x'.join(map(str, x.grid))}, block "
                                     f"{'x'.join(map(str, x.block))})" for x in r.launches))
        lines.append(f"  launches: {len(r.launches)}: " + "; ".join(kernels[:6]) + (" …" if len(kernels) > 6 else ""))
    if r.host_ops:
        lines.append("  torch ops called from host code: " + ", ".join(dict.fromkeys(r.host_ops)))
    gemms = list(dict.fromkeys(g.describe() for g in r.gemms))
    if gemms:
        lines.append(f"  cuBLAS GEMMs: {len(r.gemms)}: " + "; ".join(gemms[:4]) + (" …" if len(gemms) > 4 else ""))
    lines += [f"  note: {n}" for n in r.notes]
    lines += output_lines(r.candidate_output)
    if r.ragged is not None:
        lines.append("")
        lines.append("ragged sizes (not multiples of typical tile sizes; a candidate may assume the benchmark's "
                     "divisibility):")
        lines.append("  " + format_text(r.ragged, explain=explain).replace("\n", "\n  "))
    return "\n".join(indent + ln for ln in lines)


def output_lines(printed: str) -> list:
    """What the candidate printed in its worker, as the text report shows it (the last lines; never parsed)."""
    shown = printed.strip().splitlines()
    if not shown:
        return []
    return ([f"  the candidate printed ({len(shown)} line(s), shown, not read by Volta; the last "
             f"{min(len(shown), OUTPUT_LINES_SHOWN)}):"] + [f"  | {ln[:200]}" for ln in shown[-OUTPUT_LINES_SHOWN:]])


def _summary(r) -> str:
    head = f"ModelNew ({display_path(r.candidate)}) vs Model ({display_path(r.problem)})"
    c = r.comparison
    if r.verdict == "not-equivalent" and c.difference is not None and not c.difference.structural:
        d = c.difference
        return (f"{head}: output {d.output} {list(d.position)} differs: reference = "
                f"{_value(d.ref_value)}, candidate = {_value(d.cand_value)}")
    return head


def _hack_lines(r, explain: bool) -> list:
    """The findings of what forward did (hacks.py), and the coverage table."""
    lines = []
    for f in r.hacks:
        where = f" at {display_path(f.file)}:{f.line}" if f.file and f.line else ""
        lines.append(f"  {f.title}{where}: {f.message}")
        if f.count:
            lines.append(f"    {f.elements_text}")
        if explain:
            lines.append(f"    what the candidate did: {f.explanation}")
    if r.coverage:
        lines.append("  coverage: " + "; ".join(
            f"output {s.output}[{s.start}:{s.stop}] {s.origin}" + (f" (line {s.line})" if s.line else "")
            for s in r.coverage[:8]) + (" …" if len(r.coverage) > 8 else ""))
    return lines


def _paths_lines(r) -> list:
    """The machine answers checked for a candidate that reads a clock or the device (paths.py)."""
    if not r.paths:
        return []
    lines = [f"  the candidate reads the machine ({'; '.join(r.asked)}): {len(r.paths)} answer(s) checked, this "
             f"report is the worst path's:"]
    lines += [f"    {p.answers}: {VERDICT_TEXT.get(p.verdict, p.verdict.upper())}" for p in r.paths]
    if r.unchecked:
        lines.append(f"  NOT checked (limit of {len(r.paths)} runs): " + "; ".join(r.unchecked))
    return lines


def _binding_lines(r) -> list:
    if not r.bindings:
        return []
    parts = []
    for b in r.bindings:
        if b.how == "unbound":
            parts.append(f"{b.candidate} (unbound: its own leaves)")
        elif b.how == "name":
            parts.append(f"{b.candidate} = {b.reference}")
        elif b.how == "reshaped":
            parts.append(f"{b.candidate} = {b.reference} (by name and element count, as shape "
                         f"{tuple(b.shape)}: element i is element i)")
        else:
            parts.append(f"{b.candidate} = {b.reference} (by creation order and shape)")
    return ["  parameters: " + "; ".join(parts)]


def _build_lines(r) -> list:
    """Which extensions built and which did not (torch rejects them too), and whether the candidate's own
    fallback ran in their place: the verdict covers what ran."""
    out = []
    for b in r.builds:
        where = f" (called at {display_path(b.where[0])}:{b.where[1]})" if b.where else ""
        if b.built:
            out.append(f"  extension {b.name}: built{where}")
            continue
        what = "nothing caught the error" if b.escaped else "the candidate caught it and its fallback ran instead"
        out.append(f"  extension {b.name}: did not build{where}: torch raises {b.exception} too; {what}")
        out += [f"    | {ln}" for ln in b.first_lines()]
    return out


def _build_dict(b) -> dict:
    return {"name": b.name, "built": b.built, "fell_back": not b.built and not b.escaped, "escaped": b.escaped,
            "exception": None if b.built else b.exception, "reason": b.reason or None,
            "message": b.first_lines(8), "file": b.where[0] if b.where else None,
            "line": b.where[1] if b.where else None}


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
        "exit_code": r.exit_code if not nested else {"equivalent": 0, "within-tolerance": 0, "not-equivalent": 1,
                                                     "findings": 1, "precision": 1, "rejected": 1}.get(r.verdict, 3),
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
            "default_input": "1", "file": r.witness_file, "note": getattr(d, "note", None),
            "derived_inputs": {n: {"elements": {str(i): str(v) for i, v in elements.items()},
                                   "others": None if rest is None else str(rest)}
                               for n, (elements, rest) in (d.derived or {}).items()}},
        "findings": [json_report.finding_dict(f) for f in r.findings],
        "groups": json_report.groups_list(r.findings),
        "hack_findings": [f.to_dict() for f in r.hacks],
        "coverage": [{"output": s.output, "start": s.start, "stop": s.stop, "origin": s.origin, "line": s.line}
                     for s in r.coverage],
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
        "builds": [_build_dict(b) for b in r.builds],
        "gemms": [{"call": g.call, "m": g.m, "n": g.n, "k": g.k, "batch": g.batch, "transa": g.transa,
                   "transb": g.transb, "math_mode": g.math_mode, "compute_type": g.compute_type,
                   "precision": g.precision} for g in r.gemms],
        "notes": list(r.notes),
        "calls": calls_report.to_dict(r),
        "eval_mode": r.eval_mode,
        "precision": precision_report.to_dict(r.precision),
        "paths": [{"answers": p.answers, "verdict": p.verdict, "exit_code": p.exit_code}
                  for p in getattr(r, "paths", [])],
        "paths_unchecked": list(getattr(r, "unchecked", [])),
        "machine_queries": list(getattr(r, "asked", [])),
        "candidate_output": r.candidate_output,
    }
    if not nested:
        out["ragged"] = to_dict(r.ragged, nested=True) if r.ragged is not None else None
    return out


def format_json(r, explain: bool = False) -> str:
    return json.dumps(to_dict(r), indent=2, default=str)


# ---- SARIF ---------------------------------------------------------------------------------------
def format_sarif(r, explain: bool = False) -> str:
    reports = [_race_report(r)] if r.findings else []
    doc = sarif.to_dict(RacesResult(reports, r.problem))
    run = doc["runs"][0]
    run["invocations"][0]["exitCode"] = r.exit_code
    rules, results = run["tool"]["driver"]["rules"], run["results"]
    for f in r.hacks:
        if not any(rule["id"] == f.kind for rule in rules):
            rules.append(sarif.rule_entry(f.kind, f.summary, "error"))
        index = next(i for i, rule in enumerate(rules) if rule["id"] == f.kind)
        results.append({"ruleId": f.kind, "ruleIndex": index, "level": "error",
                        "message": {"text": f"{f.title}: {f.message}. {f.explanation}"},
                        "locations": [sarif._location(f.file or r.candidate, f.line)]})
    if r.verdict not in ("equivalent", "within-tolerance") and not r.findings and not r.hacks:
        kind = r.verdict if r.verdict != "findings" else (
            "output-aliased" if calls_report.verdict_text(r.calls) else "uninitialized-output")
        level = "error" if r.verdict in ("not-equivalent", "findings", "precision", "rejected") else "warning"
        rules.append(sarif.rule_entry(kind, f"volta kernelbench: {VERDICT_TEXT.get(r.verdict, r.verdict)}", level))
        span = (r.raised[2] if r.raised else r.unsupported.span if r.unsupported else None)
        loc = sarif._location(span.file, span.line) if span else sarif._location(r.candidate, None)
        if r.verdict == "precision" and r.precision.findings[0].line:
            loc = sarif._location(r.precision.findings[0].file, r.precision.findings[0].line)
        results.append({"ruleId": kind, "ruleIndex": len(rules) - 1, "level": level,
                        "message": {"text": format_text(r).splitlines()[0]}, "locations": [loc]})
    return json.dumps(doc, indent=2)


# ---- JUnit ---------------------------------------------------------------------------------------
def format_junit(r, explain: bool = False) -> str:
    """One testcase for the check (failed on NOT EQUIVALENT or findings, an error when nothing is claimed) and
    one failed testcase per finding (type: its kind)."""
    suite = ET.Element("testsuite", name="volta kernelbench")
    classname = display_path(r.candidate)
    case = ET.SubElement(suite, "testcase", classname=classname, name=f"ModelNew vs {display_path(r.problem)}",
                         time=f"{sum(r.seconds.values()):.3f}")
    first = format_text(r).splitlines()[0]
    failures = errors = 0
    if r.exit_code == 1:
        ET.SubElement(case, "failure", type=r.verdict, message=first).text = format_text(r, explain=explain)
        failures += 1
    elif r.exit_code != 0:
        ET.SubElement(case, "error", type=r.verdict, message=first).text = format_text(r)
        errors += 1
    cases = [(f.kind, f"{f.title}: {f.message}", f"{f.message}\n{f.explanation}", f.line) for f in r.hacks]
    cases += [(f.kind, f"{f.kind}: {f.message}" if hasattr(f, "message") else f.kind, str(f), None)
              for f in r.findings]
    for kind, message, text, line in cases:
        c = ET.SubElement(suite, "testcase", classname=classname,
                          name=f"{kind}" + (f" at line {line}" if line else ""), time="0")
        ET.SubElement(c, "failure", type=kind, message=message).text = text
        failures += 1
    suite.set("tests", str(1 + len(cases)))
    suite.set("failures", str(failures))
    suite.set("errors", str(errors))
    return ET.tostring(suite, encoding="unicode")


FORMATS = {"text": format_text, "json": format_json, "sarif": format_sarif, "junit": format_junit}
