"""Presentation of `volta races` results: a registry of `format(result) -> str`, one module per format.

No analysis happens here: every formatter reads a `volta.exec.races.RacesResult` and returns text.
`text` is for people, `json` follows SCHEMA.md, `sarif` is SARIF 2.1.0 for code scanning, `junit`
is JUnit XML for test dashboards (one testcase per kernel, one failure per finding).
"""
from __future__ import annotations

from volta.report import json_report, junit, sarif, text

FORMATS = {
    "text": text.format,
    "json": json_report.format,
    "sarif": sarif.format,
    "junit": junit.format,
}


def render(result, fmt: str = "text", **options) -> str:
    """Format `result` with the named formatter (options go to formatters that take them)."""
    return FORMATS[fmt](result, **options)
