"""`volta races --junit FILE`: JUnit XML for test dashboards.

One `<testsuite name="volta races">`; one `<testcase>` per kernel analyzed (classname: the manifest or PTX file;
name: the role and kernel) — with one `<failure type="findings">` summing up its findings, or an
`<error type="unsupported">` when it left the structured class — and one `<testcase>` per finding group (findings
of one kind at one source site; name: the kernel, the kind and the site) with one `<failure type=KIND>` holding
the example finding and the number of instances.
"""
from __future__ import annotations

import xml.etree.ElementTree as ET

from volta.report.common import demangle_text, display_path, group_findings, verdict_name
from volta.report.text import group_text


def _cases(suite, classname: str, r, prefix: str = "") -> tuple:
    """The kernel's testcase and one per finding group; returns (tests, failures, errors)."""
    kernel = f"{prefix}{r.role} {r.kernel}" if r.role != "kernel" else f"{prefix}{r.kernel}"
    case = ET.SubElement(suite, "testcase", classname=classname, name=kernel, time=f"{r.seconds:.3f}")
    props = ET.SubElement(case, "properties")
    for key, value in (("grid", r.grid), ("block", r.block), ("threads", r.threads),
                       ("thread_instructions", r.thread_instructions), ("verdict", r.verdict),
                       ("findings", len(r.findings))):
        ET.SubElement(props, "property", name=key, value=str(value))
    groups = group_findings(r.findings)
    tests, failures, errors = 1, 0, 0
    if r.error is not None:
        err = ET.SubElement(case, "error", type="unknown" if r.verdict == "unknown" else "unsupported",
                            message=r.error.message)
        err.text = " ".join(str(r.error).split())
        errors += 1
    elif groups:
        n = len(r.findings)
        fail = ET.SubElement(case, "failure", type="findings",
                             message=f"{n} finding{'s' if n != 1 else ''} at {len(groups)} source "
                                     f"site{'s' if len(groups) != 1 else ''}")
        fail.text = "\n".join(f"{verdict_name(g.kind)} x{g.count} at {g.where}" for g in groups)
        failures += 1
    elif r.verdict == "clean-for-inputs":  # not a pass: nothing is proved beyond the inputs tried
        ET.SubElement(case, "skipped", message=f"no finding on {len(r.inputs)} concrete input set(s) of a "
                                               f"data-dependent kernel; not a proof for other inputs")
    for g in groups:
        gcase = ET.SubElement(suite, "testcase", classname=classname,
                              name=f"{kernel}: {verdict_name(g.kind)} at {g.where}", time="0.000")
        message = demangle_text(g.example.message) + (f" ({g.count} instances)" if g.count > 1 else "")
        fail = ET.SubElement(gcase, "failure", type=g.kind, message=message)
        fail.text = group_text(g)
        tests, failures = tests + 1, failures + 1
    return tests, failures, errors


def format(result) -> str:
    seconds = sum(r.seconds for r in result.reports)
    suites = ET.Element("testsuites", name="volta races")
    suite = ET.SubElement(suites, "testsuite", name="volta races")
    totals = [0, 0, 0]
    for r in result.reports:
        for i, n in enumerate(_cases(suite, display_path(result.source or r.ptx) or "volta", r)):
            totals[i] += n
    for el in (suites, suite):
        el.set("tests", str(totals[0]))
        el.set("failures", str(totals[1]))
        el.set("errors", str(totals[2]))
        el.set("time", f"{seconds:.3f}")
    suite.set("skipped", str(sum(1 for r in result.reports if r.verdict == "clean-for-inputs" and r.error is None)))
    ET.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"
