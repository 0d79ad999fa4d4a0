"""`volta run --sarif/--junit/-q` and the `schema` key of `volta run --json`."""
import json
import xml.etree.ElementTree as ET
from pathlib import Path

from volta.cli import run as cli

E = Path(__file__).resolve().parents[2] / "examples"
T = E / "triton"
OOB = [str(T / "add_offbyone.b128.w4.sm80.ptx"), "--grid", "4", "--block", "128", "--args", "x,y,out,500,0,0",
       "--buffer", "x=f32[500]:in", "--buffer", "y=f32[500]:in", "--buffer", "out=f32[500]:out"]


def test_run_json_has_schema_and_verdict(capsys):
    assert cli(["run", str(E / "vector_add" / "manifest.toml"), "--json", "-q"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["schema"] == "volta.run/1" and data["verdict"] == "clean" and data["exit_code"] == 0


def test_run_sarif_and_junit_with_findings(tmp_path, capsys):
    junit = tmp_path / "run.xml"
    assert cli(["run", *OOB, "--sarif", "--junit", str(junit), "-q"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert doc["version"] == "2.1.0" and doc["runs"][0]["invocations"][0]["exitCode"] == 1
    results = doc["runs"][0]["results"]
    assert {r["ruleId"] for r in results} == {"out-of-bounds"} and all(r["locations"] for r in results)
    root = ET.parse(junit).getroot()
    assert int(root.get("failures")) >= 2 and int(root.get("tests")) == 1 + len(results)


def test_run_clean_junit_is_skipped_not_passed(tmp_path, capsys):
    junit = tmp_path / "run.xml"
    assert cli(["run", str(E / "vector_add" / "manifest.toml"), "--junit", str(junit), "-q"]) == 0
    (case,) = ET.parse(junit).getroot().findall("./testsuite/testcase")
    assert case.find("skipped") is not None and case.find("failure") is None


def test_run_json_and_sarif_conflict(capsys):
    assert cli(["run", str(E / "vector_add" / "manifest.toml"), "--json", "--sarif"]) == 2
    assert "choose one of --json and --sarif" in capsys.readouterr().err
