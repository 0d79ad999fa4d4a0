"""Shared assertions of the tests of volta/exec's real-number model."""
from __future__ import annotations

from volta.equiv.check import check, replay
from volta.equiv.witness import save_inputs


def not_equivalent_replayed(spec, tmp_path):
    """A NOT EQUIVALENT verdict whose witness, saved and replayed concretely, gives the two values again."""
    report = check(spec)
    assert report.verdict == "not-equivalent", (report.verdict, report.unsupported, report.unknown)
    cex = report.counterexample
    assert cex is not None and cex.ref_value != cex.opt_value and cex.inputs
    path = tmp_path / "cex.json"
    save_inputs(cex, path, spec)
    again = replay(spec, path)
    assert again["ref"] == cex.ref_value and again["opt"] == cex.opt_value and again["ref"] != again["opt"]
    return report
