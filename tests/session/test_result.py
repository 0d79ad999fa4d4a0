"""One result type per command (volta/session): what the CLI renders is what the API returns, and
`result.report(fmt)` formats through the renderers volta/report registers — hand-made results, no executor."""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest

import volta
import volta.report
from volta.errors import Unsupported, UsageError
from volta.exec.findings import Finding, Site, ThreadId
from volta.launch.kernel import Dim3, KernelLaunch
from volta.session.check import CheckResult
from volta.session.races import RaceReport, RacesResult
from volta.session.replay import RunResult
from volta.session.result import Reported

RACE = Finding("race", "write-read race on `tile`", (ThreadId((1, 0, 0), (0, 0, 0)), ThreadId((1, 0, 0), (33, 0, 0))),
               (Site("k.ptx", 40, 2, "st.shared.f32", None), Site("k.ptx", 44, 2, "ld.shared.f32", None)),
               buffer="tile", offset=8, address=0x1000008, bounds=512)


def _races(role: str, findings: list, seconds: float) -> RaceReport:
    return RaceReport(kernel="k", role=role, ptx="k.ptx", grid="4", block="128", threads=512,
                      verdict="findings" if findings else "clean", findings=findings, seconds=seconds)


def test_the_api_names_the_session_types():
    assert (volta.CheckResult, volta.RacesResult, volta.RunResult) == (CheckResult, RacesResult, RunResult)


def test_a_races_result_answers_what_the_api_reads():
    result = RacesResult([_races("ref", [], 0.25), _races("opt", [RACE], 0.5)], "m.toml")
    assert (result.verdict, result.exit_code, result.ok) == ("findings", 1, False)
    assert result.findings == [RACE] and result.kernels == result.reports and result.raw is result
    assert result.timings == {"ref": 0.25, "opt": 0.5, "total": 0.75}
    assert result.report("json") == volta.report.render(result, "json")
    assert result.report("text", max_findings=0) == volta.report.render(result, "text", max_findings=0)
    with pytest.raises(UsageError, match="unknown report format `xml`"):
        result.report("xml")


def test_a_check_result_reports_as_its_mode_allows():
    @dataclass
    class Bits:   # the fields of a BitsReport the exit code reads
        verdict: str = "bits-differ"
        unsupported: object = None
        findings: dict = None
        identical: bool = False
        within_tolerance: bool = False

    result = CheckResult(Bits(findings={"ref": [], "opt": [RACE]}), mode="bits")
    assert (result.exit_code, result.findings, result.counterexample, result.parting) == (1, [RACE], None, None)
    with pytest.raises(UsageError, match="a bit-exact check reports as text or json, not sarif"):
        result.report("sarif")
    with pytest.raises(ValueError, match="mode"):
        CheckResult(Bits(), mode="exact")


def test_a_result_with_no_renderer_says_so():
    @dataclass
    class Lonely(Reported):
        exit_code: int = 0

    assert Lonely().ok
    with pytest.raises(LookupError, match="no report formats for Lonely"):
        Lonely().report()


def test_an_unsupported_run_reports_its_error():
    err = Unsupported("no semantics for `foo.b32`")
    result = RunResult(KernelLaunch(Path("k.ptx"), "k", Dim3(1), Dim3(1), ()), {}, {}, {}, [], 0, 0.0, "ieee",
                       error=err)
    assert (result.verdict, result.exit_code) == ("unsupported", err.exit_code)
    assert json.loads(result.report("json")) == {"verdict": "unsupported", "error": str(err)}
