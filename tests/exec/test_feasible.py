"""Feasible paths only (volta/exec/drivers/feasible.py): findings between the two sides of branches on tensor data."""
from __future__ import annotations

from pathlib import Path

from volta.launch.spec import from_options, load_manifest
from volta.session.races import CLEAN, FINDINGS, analyze

PTX = str(Path(__file__).parent / "data" / "feasible" / "feasible.ptx")
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_contradictory_conditions_are_no_race():
    for case in ("closure_modes", "closure_modes_O0"):   # -O3 and -G: p[0] read once or twice, unchanged between
        spec = load_manifest(EXAMPLES / case / "manifest.toml")
        assert analyze(spec).verdict == CLEAN


def test_conditions_that_hold_together_keep_the_race_with_them():
    spec = from_options(PTX, "overlapping_modes", "2", "32", "m,a,out,64",
                        ["m=s32[1]:in", "a=s32[64]:inout", "out=s32[64]:inout"])
    report = analyze(spec)
    assert report.verdict == FINDINGS
    (f,) = report.findings
    assert f.kind == "race" and "m[0]" in f.details["condition"]


def test_float_conditions_are_never_decided():
    spec = from_options(PTX, "float_modes", "2", "32", "x,a,out,64",
                        ["x=f32[1]:in", "a=f32[64]:inout", "out=f32[64]:inout"])
    assert analyze(spec).verdict == FINDINGS   # x[0] < 0 and !(x[0] < 0): both true of no real, of NaN neither


def test_a_condition_on_the_thread_index_too():
    spec = from_options(PTX, "thread_and_data", "2", "32", "v,out,64", ["v=s32[1]:in", "out=s32[64]:out"])
    assert analyze(spec).verdict == CLEAN   # `v[0] > 0 && i == 0`: only thread 0 stores out[0]
