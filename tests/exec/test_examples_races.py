"""Every example manifest through `volta races`: the verdict matches `expect.races`.

clean -> no findings; race / deadlock / out-of-bounds / uninitialized-read -> a finding of that kind,
and, when the manifest gives `defect_line`, one of those findings points at that CUDA line (`.loc`);
unsupported -> the run left the structured class (exit 3). For pairs the expectation is about `opt`;
`ref` is a correct kernel and must be clean.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from volta.exec.launch import load_manifest
from volta.exec.races import CLEAN, FINDINGS, UNSUPPORTED, analyze, roles

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
CASES = sorted(p.parent.name for p in EXAMPLES.glob("*/manifest.toml"))

# Semantics being written now (tensor cores, cp.async, wgmma, mbarrier): these start passing when it lands.
PENDING = {
    "wgmma_m64n8k16": "wgmma semantics are being written",
}

# The finding is right but names a different CUDA line than the manifest's `defect_line` (see the reasons);
# strict, so the suite says so as soon as the executor reports the line the manifest names.
LINE_MISMATCH = {
}


def _param(case):
    marks = [pytest.mark.xfail(reason=PENDING[case], strict=False)] if case in PENDING else []
    if case in LINE_MISMATCH:
        marks.append(pytest.mark.xfail(reason=LINE_MISMATCH[case], strict=True))
    return pytest.param(case, marks=marks, id=case)


def _cuda_lines(findings) -> set:
    lines = set()
    for f in findings:
        for s in f.sites:
            lines.update(s.cuda_lines)  # any frame of an inlined_at chain
    return lines


def _describe(report) -> str:
    if report.error is not None:
        return f"{report.verdict}: {report.error}"
    return f"{report.verdict}: " + "; ".join(f"{f.kind}: {f.message}" for f in report.findings[:5])


@pytest.mark.parametrize("case", [_param(c) for c in CASES])
def test_example_races(case):
    spec = load_manifest(EXAMPLES / case / "manifest.toml")
    expect = spec.expect
    want = expect["races"]
    for role in roles(spec):
        report = analyze(spec, role)
        if role == "ref":
            assert report.verdict == CLEAN, f"ref kernel of a pair: {_describe(report)}"
            continue
        if want == "clean":
            assert report.verdict == CLEAN, _describe(report)
        elif want == "unsupported":
            assert report.verdict == UNSUPPORTED and report.exit_code == 3, _describe(report)
        else:
            assert report.verdict == FINDINGS, _describe(report)
            of_kind = [f for f in report.findings if f.kind == want]
            assert of_kind, f"expected a {want} finding; got {_describe(report)}"
            if "defect_line" in expect:
                lines = _cuda_lines(of_kind)
                assert expect["defect_line"] in lines, (
                    f"no {want} finding at CUDA line {expect['defect_line']}; {want} findings point at {sorted(lines)}")
