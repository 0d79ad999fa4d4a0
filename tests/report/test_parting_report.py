"""`values first part at:` in the NOT EQUIVALENT report (text, --json, the Python API): presentation of
volta.equiv.parting's result, on hand-made results and end to end on one example."""
from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

import volta
from volta.cli import run as cli
from volta.equiv.check import CheckReport, Counterexample
from volta.equiv.parting import Parting, PartingPoint
from volta.exec.findings import ThreadId
from volta.launch.spec import load_manifest
from volta.report.check_report import CheckResult, format_json, format_text

EX = Path(__file__).resolve().parents[2] / "examples"
SPEC = load_manifest(EX / "neq_gemm_swapped" / "manifest.toml")


def _point(role, opcode, line, cuda_line, value, element=None):
    return PartingPoint(role, opcode, f"{role}.ptx", line, 2, f"/src/{role}.cu" if cuda_line else None, cuda_line,
                        value, ThreadId((0, 0, 0), (3, 0, 0)), 7, element)


def _result(parting):
    cex = Counterexample({"A": {0: Fraction(2)}}, "C", 0, Fraction(-11), Fraction(-17), depends={"A": [0]},
                         parting=parting)
    report = CheckReport("not-equivalent", counterexample=cex, kernels={"ref": "r", "opt": "o"})
    return CheckResult(report, SPEC, ["m.toml"])


def test_text_names_both_points_with_cuda_lines_and_values():
    p = Parting("C", 0, _point("ref", "add.f32", 41, 12, Fraction(3, 2)), _point("opt", "fma.rn.f32", 57, None,
                                                                              Fraction(7, 4)), {"ref": 9, "opt": 8})
    text = format_text(_result(p))
    line = next(x for x in text.splitlines() if "values first part at" in x)
    assert line.startswith("  values first part at: ref add.f32 ref.ptx:41 (/src/ref.cu:12) = 3/2 (≈ 1.5); "
                           "opt fma.rn.f32 opt.ptx:57 = 7/4 (≈ 1.75) (")
    assert "C[0]" in line
    # after the inputs and the exact-replay line, before the replay hint
    lines = text.splitlines()
    assert lines.index(line) > next(i for i, x in enumerate(lines) if "exact rational arithmetic" in x)


def test_text_one_side_and_an_input_element():
    p = Parting("C", 0, None, _point("opt", "ld.global.f32", 60, 9, Fraction(1), "A[32]"), {"ref": 3, "opt": 4})
    line = next(x for x in format_text(_result(p)).splitlines() if "values first part at" in x)
    assert "ref computes no value opt lacks" in line and "opt ld.global.f32 opt.ptx:60 (/src/opt.cu:9) = 1 (A[32])" in line


def test_no_parting_no_line_and_json_null():
    result = _result(None)
    assert "values first part" not in format_text(result)
    assert json.loads(format_json(result))["counterexample"]["parting"] is None


def test_json_parting_fields():
    p = Parting("C", 0, _point("ref", "add.f32", 41, 12, Fraction(3, 2)), None, {"ref": 9, "opt": 8},
                {"ref": [], "opt": ["vote.sync.ballot.b32 at opt.ptx:30"]})
    data = json.loads(format_json(_result(p)))["counterexample"]["parting"]
    assert data["opt"] is None and data["float_instructions"] == {"ref": 9, "opt": 8}
    assert data["ref"] == {"instruction": "add.f32", "ptx": {"file": "ref.ptx", "line": 41, "col": 2},
                           "cuda": {"file": "/src/ref.cu", "line": 12}, "value": "3/2", "element": None,
                           "block": [0, 0, 0], "thread": [3, 0, 0], "position": 7}
    assert data["not_followed"]["opt"] == ["vote.sync.ballot.b32 at opt.ptx:30"]
    assert "vote.sync.ballot.b32 at opt.ptx:30" in format_text(_result(p))


@pytest.mark.slow
def test_end_to_end_cli_json_and_api(capsys):
    manifest = str(EX / "neq_gemm_swapped" / "manifest.toml")
    assert cli(["check", manifest, "--json", "-q"]) == 1
    data = json.loads(capsys.readouterr().out)
    opt = data["counterexample"]["parting"]["opt"]
    assert opt["instruction"].startswith("fma") and opt["cuda"]["line"] == SPEC.expect["defect_line"]
    assert Path(opt["ptx"]["file"]).name == "opt.sm80.ptx"
    r = volta.check(manifest)
    assert r.parting is not None and r.parting.opt.cuda_line == SPEC.expect["defect_line"]
    assert f"opt.cu:{SPEC.expect['defect_line']}) = " in r.report()
