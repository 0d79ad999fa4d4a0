"""Reports of `volta triton` (`volta.kernelbench.triton_check.TritonResult`): text and JSON (`volta.triton/1`).

The text leads with the verdict, then the inputs and sizes, each launch as the launcher made it (its line,
grid, threads, the specialisation Triton compiled), the comparison, and the findings: blocking ones in the
races report's form, benign ones listed beside the verdict. No analysis happens here.
"""
from __future__ import annotations

import json
from fractions import Fraction

from volta.session.races import RaceReport
import volta.report.json_report as json_report
import volta.report.text as races_text
from volta.report.common import display_path, verdict_name

VERDICTS = {"equivalent": "EQUIVALENT", "not-equivalent": "NOT EQUIVALENT", "findings": "FINDINGS",
            "unknown": "UNKNOWN", "unsupported": "UNSUPPORTED", "clean": "CLEAN"}
HOW = {"identical": "identical expressions", "normal-form": "equal normal forms", "z3": "Z3",
       "cut-points": "equal normal forms over cut points"}


def _name(spec: str | None) -> str:
    if not spec:
        return "?"
    path, _, fn = spec.rpartition(":")
    return f"{fn} ({display_path(path)})"


def _headline(r) -> str:
    who = _name(r.launcher) + (f" vs {_name(r.ref)}" if r.ref else "")
    if r.verdict == "equivalent":
        return f"{who}: every output element equal for every input (over the reals)"
    if r.verdict == "clean":
        return f"{who}: no races, deadlocks, out-of-bounds accesses or uninitialized reads in its launches"
    if r.verdict == "findings":
        what = "an output element the launcher never wrote" if r.unwritten and not r.blocking else \
            "a launch has findings, so the outputs are not one function of the inputs"
        return f"{who}: {what}"
    if r.verdict == "not-equivalent":
        d = r.difference
        if d.structural:
            return f"{who}: {d.structural}"
        return f"{who}: output {d.output}{list(d.position)} differs: reference = {_value(d.ref_value)}, " \
               f"launcher = {_value(d.launcher_value)}"
    if r.verdict == "unsupported":
        return f"{who}: {r.error.message}"
    return f"{who}: {len(r.unknown)} element(s) undecided; nothing is claimed about them"


def _value(v) -> str:
    if isinstance(v, Fraction):
        return f"{float(v):.9g}" + ("" if v.denominator == 1 or abs(v.denominator) > 1 << 20 else f" ({v})")
    return str(v)


def _launch_lines(k: int, launch) -> list:
    kern = launch.kernel
    threads = kern.block
    for d in launch.grid:
        threads *= d
    spec = []
    for p, t, v in launch.specialization:
        if t == "constexpr":
            spec.append(f"{p}={v!r}")
        elif v == "D":
            spec.append(f"{p} {t} %16")
    lines = [f"  launch {k}: {kern.name}[{launch.grid}] at {display_path(launch.where[0])}:{launch.where[1]}: "
             f"{threads:,} threads ({kern.num_warps} warps), {launch.executed.thread_instructions:,} "
             f"thread-instructions in {launch.executed.seconds:.2f} s",
             f"    compiled as Triton launches it: {', '.join(spec) or 'no specialisation'}"]
    if kern.functions:
        lines.append("    libdevice read over the reals as: " +
                     ", ".join(f"{s} = {m}" for s, m in sorted(kern.functions.items())))
    return lines


def format_text(r) -> str:
    lines = [f"{VERDICTS[r.verdict]}: {_headline(r)}"]
    if r.inputs:
        lines.append("  inputs: " + ", ".join(f"{n} {d}{list(s)}" if s is not None else f"{n} = {d}"
                                              for n, s, d in r.inputs))
    shown = [c for c in r.sizes if c.how != "kept"]
    if r.sizes:
        lines.append("  sizes: " + ", ".join(f"{c.name}={c.value}" + (f" (file: {c.original}, {c.how})"
                                                                      if c in shown else "") for c in r.sizes))
    for k, launch in enumerate(r.launches, 1):
        lines += _launch_lines(k, launch)
    if r.verdict == "equivalent":
        how = ", ".join(f"{n:,} by {HOW.get(h, h)}" for h, n in r.proved_by.items())
        lines.append(f"  {r.compared:,} output elements compared: {how or 'none'}")
    if r.verdict == "not-equivalent" and r.difference is not None and r.difference.inputs:
        shown_inputs = {n: v for n, v in r.difference.inputs.items() if v}
        lines.append("  on inputs (every other element 1): " + "; ".join(
            f"{n}" + "".join(f" [{i}]={_value(x)}" for i, x in sorted(vals.items())[:8])
            for n, vals in shown_inputs.items()))
        lines.append("  (both sides re-run on these values exactly: the launcher's kernels executed again)")
    for k, idx in r.unwritten.items():
        lines.append(f"  UNINITIALIZED OUTPUT: output {k} has {len(idx)} element(s) no launch wrote "
                     f"(first: element {idx[0]}): their value is whatever the allocator left")
    for output, index, reason in r.unknown[:8]:
        lines.append(f"  output {output} element {index}: {reason}")
    if r.blocking:
        for k, launch in enumerate(r.launches, 1):
            if launch.executed.blocked:
                lines.append(f"  launch {k} ({launch.kernel.name}):")
                lines.append("  " + races_text._kernel(_as_races(launch), races_text.DEFAULT_MAX_FINDINGS)
                             .replace("\n", "\n  "))
    else:
        for k, launch in enumerate(r.launches, 1):
            for f in launch.executed.findings:
                site = f.sites[0] if f.sites else None
                at = f"  at {site.cuda or display_path(site.ptx) + ':' + str(site.line)}" if site else ""
                lines.append(f"  listed (launch {k}): {verdict_name(f.kind)}: {f.message}{at}")
    if r.verdict == "unsupported" and r.error is not None and r.error.span is not None:
        span = r.error.span
        lines.append(f"  at {display_path(span.file)}:{span.line}")
    lines.append(f"  {r.seconds:.1f} s")
    return "\n".join(lines)


def _as_races(launch) -> RaceReport:
    k = launch.kernel
    threads = k.block
    for d in launch.grid:
        threads *= d
    return RaceReport(kernel=k.name, role="kernel", ptx=launch.executed.ptx, grid="x".join(map(str, launch.grid)),
                      block=str(k.block), threads=threads, verdict="findings", findings=launch.executed.findings,
                      thread_instructions=launch.executed.thread_instructions, seconds=launch.executed.seconds)


def format_json(r) -> str:
    d = r.difference
    data = {
        "schema": "volta.triton/1", "verdict": r.verdict, "exit_code": r.exit_code, "launcher": r.launcher,
        "ref": r.ref, "inputs": [{"name": n, "shape": list(s), "dtype": t} if s is not None else
                                  {"name": n, "shape": None, "value": t} for n, s, t in r.inputs],
        "sizes": [{"name": c.name, "value": c.value, "file": c.original, "how": c.how} for c in r.sizes],
        "launches": [{
            "kernel": x.kernel.name, "at": {"file": x.where[0], "line": x.where[1]}, "grid": list(x.grid),
            "block": x.kernel.block, "num_warps": x.kernel.num_warps,
            "specialization": [{"param": p, "type": t, "value": v if t == "constexpr" else None,
                                "divisible_by_16": v == "D"} for p, t, v in x.specialization],
            "args": {p: a for p, a in x.args}, "libdevice": dict(x.kernel.functions),
            "findings": [json_report.finding_dict(f) for f in x.executed.findings],
            "blocking": x.executed.blocked, "thread_instructions": x.executed.thread_instructions,
            "seconds": round(x.executed.seconds, 3)} for x in r.launches],
        "compared": r.compared, "proved_by": r.proved_by,
        "unknown": [{"output": o, "index": i, "reason": why} for o, i, why in r.unknown],
        "unwritten": {str(k): v for k, v in r.unwritten.items()},
        "difference": None if d is None else {
            "output": d.output, "index": d.index, "position": list(d.position) if d.shape else [],
            "structural": d.structural, "ref": None if d.ref_value is None else str(d.ref_value),
            "launcher": None if d.launcher_value is None else str(d.launcher_value),
            "inputs": {n: {str(i): str(v) for i, v in vals.items()} for n, vals in d.inputs.items()}},
        "error": None if r.error is None else r.error.message,
        "seconds": round(r.seconds, 3),
    }
    return json.dumps(data, indent=1, default=str)


FORMATS = {"text": format_text, "json": format_json}
