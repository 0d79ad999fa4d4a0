"""Presentation of results: a registry of `format(result) -> str`, one module per format.

No analysis happens here. `volta races` results (`volta.session.races.RacesResult`) use the modules
`text`, `json_report` (SCHEMA.md), `sarif` (SARIF 2.1.0) and `junit` (JUnit XML: one testcase per
kernel, one failure per finding). `volta check` results (`volta.session.check.CheckResult`, and
`ReplayResult` for `--replay`) use `check_report` over the reals and `bits_report` for bits, which reuse the
races formatters for findings; `volta run` results (`volta.session.replay.RunResult`) use `run_report`.
Importing this package registers each command result's renderer in `volta.session.result.RENDERERS`, so
`result.report(fmt)` formats it (what the Python API's callers call).
"""
from __future__ import annotations

import json

from volta.errors import UsageError
from volta.report import (bits_report, check_report, json_report, junit, kernelbench_report, run_report, sarif, text,
                          triton_report)
from volta.session.check import CheckResult
from volta.session.races import RacesResult
from volta.session.replay import RunResult
from volta.session.result import RENDERERS

FORMATS = {
    "text": text.format,
    "json": json_report.format,
    "sarif": sarif.format,
    "junit": junit.format,
}


def render(result, fmt: str = "text", **options) -> str:
    """Format `result` with the named formatter (options go to formatters that take them)."""
    if isinstance(result, CheckResult):
        return check_formats(result)[fmt](result, **options)
    if type(result).__name__ == "KernelbenchReport":
        return kernelbench_report.FORMATS[fmt](result, **options)
    if isinstance(result, check_report.ReplayResult):
        return check_report.REPLAY_FORMATS[fmt](result, **options)
    if type(result).__name__ == "TritonResult":   # volta.kernelbench.triton_check (volta triton)
        return triton_report.FORMATS[fmt](result, **options)
    return FORMATS[fmt](result, **options)


def check_formats(result: CheckResult) -> dict:
    """The formats of a check result: text, json, sarif, junit over the reals; text, json for bits."""
    return {"real": check_report.FORMATS, "bits": bits_report.FORMATS, "proof": bits_report.PROOF_FORMATS}[result.mode]


def _check_fmt(fmt: str, allowed) -> None:
    if fmt not in allowed:
        raise UsageError(f"unknown report format `{fmt}`: choose {', '.join(allowed)}")


def _report_check(result: CheckResult, fmt: str = "text") -> str:
    formats = check_formats(result)
    if result.mode != "real" and fmt not in formats:
        what = "a bit-identity proof" if result.mode == "proof" else "a bit-exact check"
        raise UsageError(f"{what} reports as {' or '.join(formats)}, not {fmt}")
    _check_fmt(fmt, tuple(formats))
    return formats[fmt](result)


def _report_races(result: RacesResult, fmt: str = "text", max_findings: int = text.DEFAULT_MAX_FINDINGS) -> str:
    _check_fmt(fmt, tuple(FORMATS))
    return render(result, fmt, max_findings=max_findings) if fmt == "text" else render(result, fmt)


def _report_run(result: RunResult, fmt: str = "text") -> str:
    _check_fmt(fmt, ("text", "json"))
    if result.error is not None:
        if fmt == "text":
            return str(result.error)
        return json.dumps({"verdict": result.verdict, "error": str(result.error)})
    if fmt == "json":
        return json.dumps(run_report.to_json(result), indent=2)
    return run_report.format_text(result)


RENDERERS.update({CheckResult: _report_check, RacesResult: _report_races, RunResult: _report_run})
