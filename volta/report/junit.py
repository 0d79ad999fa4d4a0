"""`volta races --junit FILE`: JUnit XML for test dashboards.

One `<testsuite name="volta races">`, one `<testcase>` per kernel analyzed (classname: the manifest
or PTX file; name: the role and kernel), one `<failure type=KIND>` per finding, and an
`<error type="unsupported">` for a kernel that left the structured class.
"""
from __future__ import annotations

import xml.etree.ElementTree as ET

from volta.report.common import display_path
from volta.report.text import finding_text


def format(result) -> str:
    failures = sum(len(r.findings) for r in result.reports)
    errors = sum(1 for r in result.reports if r.error is not None)
    seconds = sum(r.seconds for r in result.reports)
    suites = ET.Element("testsuites", name="volta races", tests=str(len(result.reports)),
                        failures=str(failures), errors=str(errors), time=f"{seconds:.3f}")
    suite = ET.SubElement(suites, "testsuite", name="volta races", tests=str(len(result.reports)),
                          failures=str(failures), errors=str(errors), skipped="0", time=f"{seconds:.3f}")
    for r in result.reports:
        case = ET.SubElement(suite, "testcase", classname=display_path(result.source or r.ptx) or "volta",
                             name=f"{r.role} {r.kernel}" if r.role != "kernel" else r.kernel,
                             time=f"{r.seconds:.3f}")
        props = ET.SubElement(case, "properties")
        for key, value in (("grid", r.grid), ("block", r.block), ("threads", r.threads),
                           ("thread_instructions", r.thread_instructions), ("verdict", r.verdict)):
            ET.SubElement(props, "property", name=key, value=str(value))
        for f in r.findings:
            fail = ET.SubElement(case, "failure", type=f.kind, message=f.message)
            fail.text = finding_text(f)
        if r.error is not None:
            err = ET.SubElement(case, "error", type="unsupported", message=r.error.message)
            err.text = " ".join(str(r.error).split())
    ET.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"
