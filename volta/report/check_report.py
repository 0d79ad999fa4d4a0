"""Presentation of `volta check` results: text, JSON (`volta.check/1`, SCHEMA.md), SARIF 2.1.0, JUnit XML.

No analysis happens here. A `CheckResult` (volta/session/check.py) holds the decider's `CheckReport` with what
only the front door knows (the launch spec, where the counterexample was saved, the replay command).
Findings of either kernel are formatted by the `volta races` formatters (a `RaceReport` per
kernel), so a race looks the same under `volta races` and `volta check`.

    NOT EQUIVALENT: C[0] differs: ref = -11, opt = -17
      ref gemm_naive (ref.sm80.ptx): grid 2x2, block 16x16; C[0] last written by block (0, 0, 0) thread (0, 0, 0) …
      opt gemm_tiled_swapped (opt.sm80.ptx): grid 2x2, block 16x16; …
      inputs (the 64 elements C[0] depends on; every other input element is 1):
        A[0] = 1  A[1] = -2 …
      both values computed by executing each kernel on these inputs in exact rational arithmetic
      values first part at: ref fma.rn.f32 ref.sm80.ptx:82 (ref.cu:10) = 6; opt fma.rn.f32 opt.sm80.ptx:108
        (opt.cu:17) = -5 (each kernel's earlier values on its path to C[0] all occur on the other's)
      counterexample saved to cex.json              (with --save-counterexample cex.json)
      replay: volta check examples/neq_gemm_swapped/manifest.toml --replay cex.json
"""
from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from fractions import Fraction

import volta
from volta.launch.spec import sequence
from volta.session.check import CheckResult
from volta.session.races import RaceReport, RacesResult
import volta.report.json_report as json_report
import volta.report.sarif as sarif
import volta.report.text as races_text
from volta.report.common import (cuda_site, demangle_text, display_path, group_findings, kernel_title, launch_path,
                                 note_lines, resolve_cuda, verdict_name)
from volta.symbolic.enclose import Enclosure

SCHEMA = "volta.check/1"
MAX_INPUTS_SHOWN = 24

VERDICT_TEXT = {"equivalent": "EQUIVALENT", "not-equivalent": "NOT EQUIVALENT", "unsupported": "UNSUPPORTED",
                "unknown": "UNKNOWN", "equivalent-for-inputs": "EQUIVALENT ON THESE INPUTS"}
HOW = {"identical": "identical expressions", "normal-form": "equal normal forms", "z3": "z3 (unsat)",
       "case-split": "case splits on max/min argument orders",
       "lifted-selects": "equal normal forms once selects on one condition were fused (a record chosen whole)",
       "cut-points": "equal normal forms over cut points (shared sub-expressions proved equal once)",
       "shared-terms": "equal normal forms with shared sums kept whole",
       "renaming": "a proved element with its inputs renamed"}


@dataclass
class ReplayResult:
    """`volta check --replay FILE`: both kernels' exact values of the saved element."""

    buffer: str
    index: int
    ref: object  # Fraction | 'untouched' | None (undefined)
    opt: object
    file: str

    @property
    def differ(self) -> bool:
        return self.ref != self.opt

    @property
    def exit_code(self) -> int:
        return 1 if self.differ else 0


MAX_EXACT_CHARS = 40  # a longer exact rational is shown as a decimal only (--json and the saved file keep it)


def value_text(v, other=None) -> str:
    """A value for the headline: exact when short, else a decimal with enough digits to tell it from
    `other` (the other kernel's value): two outputs agreeing to 9 digits must not print identically."""
    if v is None:
        return "undefined"
    if isinstance(v, Enclosure):
        v_mid = (v.lo + v.hi) / 2
        return f"≈ {_decimal(v_mid, other)} (certified: within {float(v.hi - v.lo):.1e} of it)"
    if not isinstance(v, Fraction) or v.denominator == 1 and len(str(v)) <= MAX_EXACT_CHARS:
        return str(v)
    approx = _decimal(v, other)
    if len(str(v)) > MAX_EXACT_CHARS:
        size = (f"an integer of {len(str(abs(v.numerator)))} digits" if v.denominator == 1 else
                f"a ratio of {len(str(abs(v.numerator)))}- and {len(str(v.denominator))}-digit integers")
        return f"≈ {approx} (exact: {size})"
    return f"{v} (≈ {approx})"


def _decimal(v: Fraction, other) -> str:
    if isinstance(other, Enclosure):
        other = (other.lo + other.hi) / 2
    for digits in (9, 12, 15, 20, 30):
        text = _sci(v, digits)
        if not isinstance(other, Fraction) or text != _sci(other, digits):
            return text
    return text


def _sci(v: Fraction, digits: int) -> str:
    """v in scientific notation to `digits` significant digits, exactly (float() would overflow or round)."""
    from decimal import Context, Decimal

    ctx = Context(prec=digits)
    return f"{ctx.divide(Decimal(v.numerator), Decimal(v.denominator)):g}"


def relative_text(c) -> str:
    """`; relative difference 0.25`, and whether it is below the output dtype's resolution."""
    rel = getattr(c, "relative", None)
    if rel is None:
        return ""
    below = getattr(c, "below_resolution", None)
    if below:
        return (f"; they differ by {rel:.2g} relative, below {below} resolution: an approximation choice, "
                f"not a lost term?")
    return f"; relative difference {rel:.2g}"


def verdict_text(result: CheckResult) -> str:
    r = result.decision
    if r.verdict == "findings":
        kinds = []
        for role in ("ref", "opt"):
            for f in r.findings.get(role, ()):
                name = f.kind.upper().replace("-", " ")
                if name not in kinds:
                    kinds.append(name)
        return ", ".join(kinds) or "FINDINGS"
    if r.verdict == "equivalent" and getattr(r, "coverage", None):
        return "EQUIVALENT ON THE SELECTED CTAS"
    return VERDICT_TEXT[r.verdict]


def race_reports(result: CheckResult) -> list:
    """One `RaceReport` per kernel, so the races formatters can show the check's findings."""
    r, spec = result.decision, result.spec
    out = []
    for role in ("ref", "opt"):   # (a sequence: its first kernel launch, not a host step before it)
        launch = next((x for x in sequence(spec, role) if x.host is None), spec.launches[role])
        findings = list(r.findings.get(role, ()))
        error = r.unsupported[1] if r.unsupported and r.unsupported[0] == role else None
        verdict = "findings" if findings else "unsupported" if error is not None else "clean"
        out.append(RaceReport(kernel=r.kernels.get(role) or launch.kernel or "", role=role, ptx=str(launch.ptx),
                              grid=str(launch.grid), block=str(launch.block),
                              threads=launch.grid.count * launch.block.count, verdict=verdict,
                              findings=findings, error=error))
    return out


def shown_inputs(cex) -> dict:
    """The input values that matter: those the differing element depends on (all, if none is known)."""
    deps = cex.depends or {}
    out = {}
    for name, values in cex.inputs.items():
        keep = deps.get(name)
        if keep is None:
            continue
        out[name] = {i: values[i] for i in keep if i in values}
    return out


# ---- text ----------------------------------------------------------------------------------------
def format_text(result: CheckResult) -> str:
    r = result.decision
    lines = [f"{verdict_text(result)}: {_summary(result)}"]
    if r.verdict in ("equivalent", "equivalent-for-inputs"):
        how = ", ".join(f"{n:,} by {HOW.get(k, k)}" for k, n in r.proved_by.items())
        n = (getattr(r, "fixed_inputs", None) or {}).get("assignments", 1)
        per = f" ({r.compared // n:,} elements × {n} assignments of the integer inputs)" if n > 1 else ""
        lines.append(f"  {r.compared:,} output element{'' if r.compared == 1 else 's'} compared{per}: {how or 'none'}")
        lines += _kernel_lines(result)
    elif r.verdict == "not-equivalent":
        lines += _counterexample_lines(result)
    elif r.verdict == "findings":
        blocks = [races_text._kernel(rr, races_text.DEFAULT_MAX_FINDINGS) for rr in race_reports(result)]
        lines.append("\n\n".join("  " + b.replace("\n", "\n  ") for b in blocks))
    elif r.verdict == "unsupported":
        role, err = r.unsupported
        lines.append(f"  {role} kernel: {err.message}")
        if err.span is not None:
            lines.append(f"  at {display_path(err.span.file)}:{err.span.line}:{err.span.col}: "
                         f"{_source_line(err.span)}")
        lines.append("  nothing is claimed about equivalence")
        if "NaN" in err.message or "infinit" in err.message:
            lines.append("  hint: --fp ieee runs both kernels on IEEE floats, NaN and infinities included, and says "
                         "where their bits differ")
    elif r.verdict == "unknown":
        if r.unknown or not getattr(r, "timed_out", None):
            lines.append(f"  {len(r.unknown)} element(s) undecided (nothing is claimed); "
                         f"{sum(r.proved_by.values()):,} of {r.compared:,} compared were proved equal")
        for buffer, index, reason in r.unknown:
            lines.append(f"  {buffer}[{index}]: {reason}")
        timed_out = getattr(r, "timed_out", None)
        if timed_out:
            lines.append(f"  stopped: {timed_out}; a longer --timeout may decide them")
        else:
            lines.append("  a longer --timeout-ms may decide them")
    lines += _fixed_lines(r)
    if r.verdict in ("equivalent", "equivalent-for-inputs", "not-equivalent", "unknown"):
        lines += _coverage_lines(r)
        lines += constants_lines(r)
        lines += [f"  note: {n}" for n in note_lines(getattr(r, "notes", ()), result.verbose)]
        lines += listed_lines(r.findings)
    return "\n".join(lines)


def constants_lines(r) -> list:
    """One line: the float literals read as the named constants they round (log2 e, π, …)."""
    read = getattr(r, "constants", None)
    if not read:
        return []
    items = [f"{c['name']} ({', '.join(c['literals'])}" + ("" if len(c["roles"]) == 2 else f"; {c['roles'][0]} only")
             + ")" for c in read]
    return [f"  constants read as exact reals (a lo part of a hi/lo split as 0): {'; '.join(items)}; "
            f"--exact-constants reads each literal as the rational it is"]


def listed_lines(findings: dict) -> list:
    """Findings that leave a verdict over the reals alone (benign races, nondeterministic bits), one line each
    with the PTX (and source) line of its first access."""
    lines = []
    for role, found in findings.items():
        for f in found:
            where = f.sites[0] if f.sites else None
            at = f"  at {display_path(where.ptx)}:{where.line}" + (f" ({where.cuda})" if where.cuda else "") \
                if where is not None else ""
            lines.append(f"  listed ({role}): {verdict_name(f.kind)}: {f.message}{at}")
    return lines


def _fixed_lines(r) -> list:
    """Addresses depend on integer inputs (volta/equiv/fixed_inputs.py): say how the verdict was decided."""
    fx = getattr(r, "fixed_inputs", None)
    if not fx:
        return []
    names = ", ".join(f"`{n}`" for n in fx["buffers"])
    if fx["enumerated"]:
        done = (f"every one of its {fx['assignments']:,} assignments (each element anywhere in its declared range "
                f"or dtype), checked one by one" if r.verdict == "equivalent" else
                f"assignment {fx['decided']} of its {fx['assignments']:,}, enumerated: {fx['inputs'][-1]}")
        return [f"  addresses depend on the integer input(s) {names}: decided over {done}"]
    if r.verdict == "equivalent-for-inputs":
        lines = [f"  addresses depend on the integer input(s) {names}: equal on the {fx['assignments']} concrete "
                 f"assignment(s) checked (every float input symbolic); not a proof for other values of {names}:"]
        return lines + [f"    assignment {k + 1}: {d}" for k, d in enumerate(fx["inputs"])]
    return [f"  addresses depend on the integer input(s) {names}: decided on concrete assignment {fx['decided']} of "
            f"{fx['assignments']}: {fx['inputs'][-1]}"]


def _coverage_lines(r) -> list:
    """--ctas: which CTAs ran, and that the verdict says nothing about the other outputs."""
    cov = getattr(r, "coverage", None)
    if not cov:
        return []
    return [f"  partial check (--ctas): ref ran {cov['ref']}; opt ran {cov['opt']}",
            f"  {cov['not_compared']:,} output element(s) a side's selected CTAs did not write were not compared "
            f"({cov['one_side']:,} of them written by the other side): nothing is claimed about them, nor about "
            f"races involving the CTAs that did not run"]


def _summary(result: CheckResult) -> str:
    r = result.decision
    names = " vs ".join(kernel_title(r.kernels.get(role)) or "?" for role in ("ref", "opt"))
    if r.verdict == "equivalent" and getattr(r, "coverage", None):
        return f"{names}: every output element both kernels' selected CTAs write is equal for every input (over the reals)"
    if r.verdict == "equivalent":
        return f"{names}: every output element equal for every input (over the reals)"
    if r.verdict == "equivalent-for-inputs":
        return (f"{names}: every output element equal for every float input, on the integer inputs tried "
                f"(over the reals)")
    if r.verdict == "not-equivalent":
        c = r.counterexample
        return (f"{c.buffer}[{c.index}] differs: ref = {value_text(c.ref_value, c.opt_value)}, "
                f"opt = {value_text(c.opt_value, c.ref_value)}{relative_text(c)}")
    if r.verdict == "findings":
        return f"{names}: a kernel has findings, so its output is not one function of its inputs"
    if r.verdict == "unsupported":
        return f"{names}: the {r.unsupported[0]} kernel left the structured class"
    if getattr(r, "timed_out", None) and not r.unknown:
        return f"{names}: --timeout ran out before any element was decided"
    return f"{names}: could not decide {len(r.unknown)} element(s)"


def _kernel_lines(result: CheckResult, writers: dict | None = None, element: str = "") -> list:
    lines = []
    for role in ("ref", "opt"):   # (a sequence: its first kernel launch, not a host step before it)
        seq = [x for x in sequence(result.spec, role) if x.host is None] or [result.spec.launches[role]]
        files = ", ".join(dict.fromkeys(launch_path(x.ptx, result.verbose) for x in seq))
        grids, blocks = (" → ".join(str(getattr(x, k)) for x in seq) for k in ("grid", "block"))
        line = (f"  {role} {kernel_title(result.decision.kernels.get(role) or seq[0].kernel) or '?'} "
                f"({files}): grid {grids}, block {blocks}")
        writer = (writers or {}).get(role)
        if writer is not None:
            tid, site = writer
            line += (f"; {element} last written by {tid}  {site.text}  "
                     f"{display_path(site.ptx)}:{site.line}:{site.col}")
            file, cuda_line = cuda_site(site)
            if file:
                line += f"  {file}:{cuda_line}"
        lines.append(line)
    return lines


def _counterexample_lines(result: CheckResult) -> list:
    c = result.decision.counterexample
    element = f"{c.buffer}[{c.index}]"
    lines = _kernel_lines(result, c.writers, element)
    shown = shown_inputs(c)
    n = sum(len(v) for k, v in shown.items() if k != "__symbols__")
    lines.append(f"  inputs ({n} element{'s' if n != 1 else ''} {element} depends on; "
                 f"every other input element is 1):")
    items = [f"{name}[{i}] = {v}" for name, vals in shown.items() if name != "__symbols__" for i, v in vals.items()]
    for i in range(0, min(len(items), MAX_INPUTS_SHOWN), 6):
        lines.append("    " + "  ".join(items[i:min(i + 6, MAX_INPUTS_SHOWN)]))
    if len(items) > MAX_INPUTS_SHOWN:
        lines.append(f"    ... and {len(items) - MAX_INPUTS_SHOWN} more"
                     + (f" (all in {result.cex_file})" if result.cex_file else ""))
    symbols = shown.get("__symbols__", {})
    if symbols:
        lines.append("  symbols: " + "  ".join(f"{k} = {v}" for k, v in symbols.items()))
    lines.append("  both values computed by executing each kernel on these inputs in exact rational arithmetic"
                 + (" (irrational values enclosed by certified interval arithmetic, and the enclosures disjoint)"
                    if any(isinstance(v, Enclosure) for v in (c.ref_value, c.opt_value)) else ""))
    if getattr(c, "parting", None) is not None:
        lines += parting_lines(c.parting, element)
    if result.cex_file:
        lines.append(f"  counterexample saved to {result.cex_file}")
        lines.append(f"  replay: {result.replay_command}")
    else:
        lines.append("  to replay it, save it: add --save-counterexample FILE (then --replay FILE re-executes both "
                     "kernels on it)")
    return lines


def parting_lines(p, element: str) -> list:
    """`values first part at: ref add.f32 k.ptx:41 (k.cu:12) = 3/2; opt …` (volta.equiv.parting)."""
    points = {"ref": p.ref, "opt": p.opt}
    parts = []
    for role, other in (("ref", "opt"), ("opt", "ref")):
        pt = points[role]
        if pt is None:
            parts.append(f"{role} computes no value {other} lacks")
            continue
        twin = points[other].value if points[other] is not None else None
        where = display_path(pt.ptx_file) + f":{pt.ptx_line}"
        if pt.cuda_file:
            where += f" ({resolve_cuda(pt.cuda_file, pt.ptx_file)}:{pt.cuda_line})"
        parts.append(f"{role} {pt.opcode} {where} = {value_text(pt.value, twin)}"
                     + (f" ({pt.element})" if pt.element else ""))
    if p.ref is not None and p.opt is not None:
        why = f"each kernel's earlier values on its path to {element} all occur on the other's"
    else:
        one = "ref" if p.ref is not None else "opt"
        why = f"{one}'s earlier values on its path to {element} all occur on the other's"
    lines = [f"  values first part at: {'; '.join(parts)} ({why})"]
    stops = [f"{role}: {', '.join(w)}" for role, w in getattr(p, "not_followed", {}).items() if w]
    if stops:
        lines.append(f"    (paths not followed through warp collectives: {'; '.join(stops)})")
    return lines


def _source_line(span) -> str:
    try:
        with open(span.file) as fh:
            for n, line in enumerate(fh, 1):
                if n == span.line:
                    return line.strip()
    except OSError:
        pass
    return ""


def format_replay_text(rep: ReplayResult) -> str:
    status = "DIFFER" if rep.differ else "EQUAL"
    return (f"{status}: {rep.buffer}[{rep.index}] replayed from {rep.file}: "
            f"ref = {value_text(rep.ref, rep.opt)}, opt = {value_text(rep.opt, rep.ref)}")


# ---- JSON ----------------------------------------------------------------------------------------
def to_dict(result: CheckResult) -> dict:
    r = result.decision
    c = r.counterexample
    return {
        "schema": SCHEMA,
        "tool": {"name": "volta", "version": getattr(volta, "__version__", "0")},
        "source": result.spec.source,
        "verdict": r.verdict,
        "verdict_text": verdict_text(result),
        "exit_code": r.exit_code,
        "kernels": [{"role": rr.role, "kernel": rr.kernel, "ptx": rr.ptx, "grid": rr.grid, "block": rr.block,
                     "threads": rr.threads} for rr in race_reports(result)],
        "compared": r.compared,
        "proved_by": dict(r.proved_by),
        "stats": {k: (round(v, 6) if isinstance(v, float) else v) for k, v in r.stats.items()},
        "counterexample": None if c is None else {
            "buffer": c.buffer, "index": c.index,
            "ref_value": _json_value(c.ref_value), "opt_value": _json_value(c.opt_value),
            "relative_difference": getattr(c, "relative", None),
            "below_resolution": getattr(c, "below_resolution", None),
            "inputs": {k: {str(i): str(v) for i, v in vals.items()} for k, vals in shown_inputs(c).items()},
            "default_input": "1",
            "writers": {role: _writer(w) for role, w in c.writers.items()},
            "parting": _parting(getattr(c, "parting", None)),
            "file": result.cex_file, "replay_command": result.replay_command,
        },
        "findings": {role: [json_report.finding_dict(f) for f in fs] for role, fs in r.findings.items()},
        "groups": {role: json_report.groups_list(fs) for role, fs in r.findings.items()},
        "unsupported": None if r.unsupported is None else {"role": r.unsupported[0],
                                                             **json_report._error(r.unsupported[1])},
        "unknown": [{"buffer": b, "index": i, "reason": why} for b, i, why in r.unknown],
        "timed_out": getattr(r, "timed_out", None),
        "fixed_inputs": getattr(r, "fixed_inputs", None),
        "notes": list(getattr(r, "notes", ())),
        "constants": list(getattr(r, "constants", ())),
        "coverage": getattr(r, "coverage", None),
    }


def _json_value(v):
    return None if v is None else str(v)


def _parting(p):
    if p is None:
        return None
    return {"ref": _parting_point(p.ref), "opt": _parting_point(p.opt),
            "float_instructions": dict(p.float_events), "not_followed": dict(getattr(p, "not_followed", {}))}


def _parting_point(pt):
    if pt is None:
        return None
    return {"instruction": pt.opcode, "ptx": {"file": pt.ptx_file, "line": pt.ptx_line, "col": pt.ptx_col},
            "cuda": {"file": resolve_cuda(pt.cuda_file, pt.ptx_file), "line": pt.cuda_line} if pt.cuda_file else None,
            "value": _json_value(pt.value), "element": pt.element,
            "block": list(pt.thread.block), "thread": list(pt.thread.thread), "position": pt.position}


def _writer(w) -> dict:
    tid, site = w
    file, line = cuda_site(site)
    return {"block": list(tid.block), "thread": list(tid.thread), "instruction": site.text,
            "ptx": {"file": site.ptx, "line": site.line, "col": site.col},
            "cuda": {"file": file, "line": line} if file else None}


def format_json(result: CheckResult) -> str:
    return json.dumps(to_dict(result), indent=2)


def format_replay_json(rep: ReplayResult) -> str:
    return json.dumps({"schema": SCHEMA + "+replay", "file": rep.file, "buffer": rep.buffer, "index": rep.index,
                       "ref_value": _json_value(rep.ref), "opt_value": _json_value(rep.opt),
                       "differ": rep.differ, "exit_code": rep.exit_code}, indent=2)


# ---- SARIF ---------------------------------------------------------------------------------------
CHECK_RULES = {
    "not-equivalent": "Two kernels compute different outputs for some input (confirmed by exact replay).",
    "unknown": "The decision procedure gave up on some output elements; nothing is claimed about them.",
    "equivalent-for-inputs": "Equal outputs for every float input on the assignments of integer inputs checked "
                             "(addresses depend on them); not a proof for other assignments.",
}


def format_sarif(result: CheckResult) -> str:
    r = result.decision
    doc = sarif.to_dict(RacesResult(race_reports(result), result.spec.source))
    run = doc["runs"][0]
    run["invocations"][0]["exitCode"] = r.exit_code
    rules, results = run["tool"]["driver"]["rules"], run["results"]
    if r.verdict in CHECK_RULES:
        rules.append({"id": r.verdict, "name": verdict_text(result).title().replace(" ", ""),
                      "shortDescription": {"text": verdict_text(result).capitalize()},
                      "fullDescription": {"text": CHECK_RULES[r.verdict]},
                      "defaultConfiguration": {"level": "error" if r.verdict == "not-equivalent" else "note"}})
        text = format_text(result).splitlines()[0]
        opt = result.spec.launches["opt"]
        c = r.counterexample
        writer = c.writers.get("opt") if c is not None else None
        if writer:  # the CUDA line of the opt kernel's last store to the element (its PTX related)
            loc, related = sarif.site_locations([writer[1]], ["opt kernel's last store to the element"])
        else:
            loc, related = sarif._location(str(opt.ptx), None), []
        ref_writer = c.writers.get("ref") if c is not None else None
        if ref_writer:
            first, rest = sarif.site_locations([ref_writer[1]], ["ref kernel's last store to the element"])
            related += [dict(first, message={"text": "ref kernel's last store to the element"})] + rest
        for i, rel in enumerate(related, 1):
            rel["id"] = i
        results.append({"ruleId": r.verdict, "ruleIndex": len(rules) - 1,
                        "level": "error" if r.verdict == "not-equivalent" else "note",
                        "message": {"text": text + (f"; replay: {result.replay_command}" if c and result.cex_file
                                                    else "")},
                        "locations": [loc],
                        **({"relatedLocations": related} if related else {}),
                        "properties": {"buffer": c.buffer, "index": c.index,
                                       "ref_value": _json_value(c.ref_value),
                                       "opt_value": _json_value(c.opt_value)} if c else
                        {"unknown": [f"{b}[{i}]: {why}" for b, i, why in r.unknown]}})
    return json.dumps(doc, indent=2)


# ---- JUnit ---------------------------------------------------------------------------------------
def format_junit(result: CheckResult) -> str:
    r = result.decision
    seconds = sum(v for k, v in r.stats.items() if k.endswith("_seconds"))
    failed = r.verdict in ("not-equivalent", "findings")
    errored = r.verdict in ("unsupported", "unknown")
    suites = ET.Element("testsuites", name="volta check", tests="1", failures=str(int(failed)),
                        errors=str(int(errored)), time=f"{seconds:.3f}")
    suite = ET.SubElement(suites, "testsuite", name="volta check", tests="1", failures=str(int(failed)),
                          errors=str(int(errored)), skipped="0", time=f"{seconds:.3f}")
    ref, opt = (r.kernels.get(role) or result.spec.launches[role].kernel or "?" for role in ("ref", "opt"))
    classname = display_path(result.spec.source or str(result.spec.launches["opt"].ptx)) or "volta"
    case = ET.SubElement(suite, "testcase", classname=classname, name=f"{ref} == {opt}", time=f"{seconds:.3f}")
    props = ET.SubElement(case, "properties")
    for key, value in (("verdict", r.verdict), ("compared", r.compared),
                       *((f"proved_by_{k}", v) for k, v in r.proved_by.items())):
        ET.SubElement(props, "property", name=key, value=str(value))
    body = format_text(result)
    first = body.splitlines()[0]
    tests, failures = 1, int(failed)
    if r.verdict == "findings":  # the pair fails once; each finding group is a testcase of its own
        fail = ET.SubElement(case, "failure", type="findings", message=first)
        fail.text = body
        for rr in race_reports(result):
            for g in group_findings(rr.findings):
                gcase = ET.SubElement(suite, "testcase", classname=classname,
                                      name=f"{rr.role} {rr.kernel}: {verdict_name(g.kind)} at {g.where}", time="0.000")
                gfail = ET.SubElement(gcase, "failure", type=g.kind,
                                      message=f"{rr.role}: {demangle_text(g.example.message)}"
                                              + (f" ({g.count} instances)" if g.count > 1 else ""))
                gfail.text = races_text.group_text(g)
                tests, failures = tests + 1, failures + 1
        for el in (suites, suite):
            el.set("tests", str(tests))
            el.set("failures", str(failures))
    elif failed:
        fail = ET.SubElement(case, "failure", type=r.verdict, message=first)
        fail.text = body
    elif errored:
        err = ET.SubElement(case, "error", type=r.verdict, message=first)
        err.text = body
    elif r.verdict == "equivalent-for-inputs":   # not a pass: nothing is proved beyond the assignments checked
        ET.SubElement(case, "skipped", message=first)
        suite.set("skipped", "1")
    ET.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"


FORMATS = {"text": format_text, "json": format_json, "sarif": format_sarif, "junit": format_junit}
REPLAY_FORMATS = {"text": format_replay_text, "json": format_replay_json}
