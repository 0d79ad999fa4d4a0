"""Every example manifest through `volta races`: the verdict matches `expect.races`.

The sweep runs the CLI command (`volta races MANIFEST --json`) and asserts on the reports it made: no traceback or
internal error (the guard of tests/cli/test_no_traceback.py, whose sweep runs `volta run` on every example) and
the expected verdict, one execution for both.

clean -> no findings; race / deadlock / out-of-bounds / uninitialized-read -> a finding of that kind,
and, when the manifest gives `defect_line`, one of those findings points at that CUDA line (`.loc`);
unsupported -> the run left the structured class (exit 3); clean-for-inputs -> a data-dependent kernel
ran on concrete inputs (`expect.inputs`, default random:0,zeros,equal,colliding) with no finding (exit 3:
not a proof); benign-race -> a race where every write stores the same value. `expect.lockstep` is the
expectation under --lockstep-warps. For pairs the expectation is about `opt`; `ref` is a correct kernel
and must be clean (for a data-dependent pair: no finding on the same inputs either).
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from volta.cli import run
from volta.session import races as session_races
from volta.launch.spec import load_manifest
from volta.session.races import CLEAN, CLEAN_FOR_INPUTS, FINDINGS, UNSUPPORTED, RacesOptions, analyze, roles

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
CASES = sorted(p.parent.name for p in EXAMPLES.glob("*/manifest.toml"))

# Semantics being written now (tensor cores, cp.async, wgmma, mbarrier): these start passing when it lands.
PENDING = {
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


@pytest.mark.slow
@pytest.mark.parametrize("case", [_param(c) for c in CASES])
def test_example_races(case, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)   # nothing is written beside the examples
    spec = load_manifest(EXAMPLES / case / "manifest.toml")
    inputs = spec.expect.get("inputs")
    made = []

    def recorded(*args, **kwargs):
        made.append(analyze(*args, **kwargs))
        return made[-1]

    monkeypatch.setattr(session_races, "analyze", recorded)   # where `volta races` imports it from when it runs
    code = run(["races", str(EXAMPLES / case / "manifest.toml"), "-q", "--json",
                *(["--inputs", inputs] if inputs else [])])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err and "internal error" not in err, err[-3000:]
    assert code in (0, 1, 3), (code, err)
    assert [k["role"] for k in json.loads(out)["kernels"]] == [r.role for r in made] == roles(spec)
    _expect(made, spec.expect, spec.expect["races"])


LOCKSTEP = sorted(p.parent.name for p in EXAMPLES.glob("*/manifest.toml")
                  if "lockstep" in load_manifest(p).expect)


@pytest.mark.slow
@pytest.mark.parametrize("case", LOCKSTEP)
def test_example_races_lockstep(case):
    """`expect.lockstep`: the verdict under --lockstep-warps (pre-Volta warps), next to the ITS default."""
    spec = load_manifest(EXAMPLES / case / "manifest.toml")
    options = RacesOptions(inputs=spec.expect.get("inputs"), lockstep_warps=True)
    _expect([analyze(spec, role, options=options) for role in roles(spec)], spec.expect, spec.expect["lockstep"])


def _expect(reports, expect: dict, want: str) -> None:
    """The reports of every role of a manifest (ref and opt for a pair) against the expected verdict `want`."""
    for report in reports:
        role = report.role
        if role == "ref":   # (a data-dependent pair's reference is too: no finding on the same inputs)
            ok = (CLEAN, CLEAN_FOR_INPUTS) if want == "clean-for-inputs" else (CLEAN,)
            assert report.verdict in ok, f"ref kernel of a pair: {_describe(report)}"
            continue
        if want == "clean":
            assert report.verdict == CLEAN, _describe(report)
        elif want == "clean-for-inputs":
            assert report.verdict == CLEAN_FOR_INPUTS and report.exit_code == 3 and report.inputs, _describe(report)
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
