"""Presentation of results: a registry of `format(result) -> str`, one module per format.

No analysis happens here. `volta races` results (`volta.session.races.RacesResult`) use the modules
`text`, `json_report` (SCHEMA.md), `sarif` (SARIF 2.1.0) and `junit` (JUnit XML: one testcase per
kernel, one failure per finding). `volta check` results (`check_report.CheckResult`, and
`ReplayResult` for `--replay`) use `check_report`, which reuses the races formatters for findings.
"""
from __future__ import annotations

from volta.report import check_report, json_report, junit, kernelbench_report, sarif, text, triton_report

FORMATS = {
    "text": text.format,
    "json": json_report.format,
    "sarif": sarif.format,
    "junit": junit.format,
}


def render(result, fmt: str = "text", **options) -> str:
    """Format `result` with the named formatter (options go to formatters that take them)."""
    if isinstance(result, check_report.CheckResult):
        return check_report.FORMATS[fmt](result, **options)
    if type(result).__name__ == "KernelbenchReport":
        return kernelbench_report.FORMATS[fmt](result, **options)
    if isinstance(result, check_report.ReplayResult):
        return check_report.REPLAY_FORMATS[fmt](result, **options)
    if type(result).__name__ == "TritonResult":   # volta.kernelbench.triton_check (volta triton)
        return triton_report.FORMATS[fmt](result, **options)
    return FORMATS[fmt](result, **options)
