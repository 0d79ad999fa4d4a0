"""volta.report formatters on hand-made results: presentation only, no executor involved."""
from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

from volta.errors import Span, Unsupported
from volta.exec.findings import Finding, Site, ThreadId
from volta.session.races import RaceReport, RacesResult
from volta.report import FORMATS, render
from volta.report.text import finding_text

W = Site("k.ptx", 40, 2, "st.shared.f32", "k.cu:12")
R = Site("k.ptx", 44, 2, "ld.shared.f32", "k.cu:15")
RACE = Finding("race", "write-read race on `tile` between threads with no barrier between them",
               (ThreadId((1, 0, 0), (0, 0, 0)), ThreadId((1, 0, 0), (33, 0, 0))), (W, R),
               buffer="tile", offset=8, address=0x1000008, bounds=512)
OOB = Finding("out-of-bounds", "read of 4 bytes past the end of `x`", (ThreadId((3, 0, 0), (116, 0, 0)),),
              (Site("k.ptx", 50, 2, "ld.global.f32", None),), buffer="x", offset=2000, address=0x10000007D0,
              bounds=2000)


def _report(**kw):
    base = dict(kernel="k", role="kernel", ptx="k.ptx", grid="4", block="128", threads=512, verdict="findings",
                findings=[RACE, OOB], thread_instructions=12345, steps=99, seconds=0.5)
    base.update(kw)
    return RaceReport(**base)


def _unsupported():
    err = Unsupported("the address of `ld.global.f32` depends on tensor data", Span("k.ptx", 64, 2))
    return _report(verdict="unsupported", findings=[], error=err)


def test_registry():
    assert set(FORMATS) == {"text", "json", "sarif", "junit"}
    result = RacesResult([_report()], "k.ptx")
    for name in FORMATS:
        assert isinstance(render(result, name), str)


def test_text():
    out = render(RacesResult([_report()], "k.ptx"), "text")
    lines = out.splitlines()
    assert lines[0] == ("races k (k.ptx): grid 4, block 128, 512 threads, 12,345 thread-instructions in 0.50 s")
    assert lines[2].split()[0] == "write" and "block (1, 0, 0) thread (0, 0, 0)" in lines[2] and "k.cu:12" in lines[2]
    assert lines[3].split()[0] == "read" and "thread (33, 0, 0)" in lines[3] and "k.ptx:44:2" in lines[3]
    assert lines[4] == "  at `tile` byte offset 8 (size 512 bytes)"  # buffer-relative, no internal address
    assert "0x1000008" not in out
    assert lines[-1] == "verdict: RACE, OUT OF BOUNDS (2 findings: 1 race, 1 out-of-bounds)"


def test_text_limits_findings_and_unsupported():
    out = render(RacesResult([_report()], None), "text", max_findings=1)
    assert "1 more finding group(s) not shown" in out and "OUT-OF-BOUNDS" not in out
    out = render(RacesResult([_unsupported()], None), "text")
    assert "k.ptx:64:2: unsupported: the address" in out
    assert out.splitlines()[-1].startswith("verdict: UNSUPPORTED")


def test_text_pair_overall():
    result = RacesResult([_report(role="ref", verdict="clean", findings=[]), _report(role="opt")], "m.toml")
    out = render(result, "text")
    assert "races ref k" in out and "races opt k" in out
    assert out.splitlines()[-1] == "overall: FINDINGS (ref k: CLEAN, opt k: RACE, OUT OF BOUNDS)"
    assert result.exit_code == 1


def test_verdict_precedence():
    assert RacesResult([_unsupported(), _report()]).exit_code == 1
    assert RacesResult([_unsupported(), _report(verdict="clean", findings=[])]).exit_code == 3
    assert RacesResult([_report(verdict="clean", findings=[])]).exit_code == 0


def test_json_schema_fields():
    data = json.loads(render(RacesResult([_report(), _unsupported()], "m.toml"), "json"))
    assert data["schema"] == "volta.races/1" and data["verdict"] == "findings" and data["exit_code"] == 1
    k, u = data["kernels"]
    assert k["counts"] == {"race": 1, "out-of-bounds": 1} and k["verdict_text"] == "RACE, OUT OF BOUNDS"
    race, oob = k["findings"]
    assert [a["access"] for a in race["accesses"]] == ["write", "read"]
    assert race["accesses"][1] == {"access": "read", "block": [1, 0, 0], "thread": [33, 0, 0],
                                   "instruction": "ld.shared.f32", "ptx": {"file": "k.ptx", "line": 44, "col": 2},
                                   "cuda": {"file": "k.cu", "line": 15}}
    assert oob["accesses"][0]["cuda"] is None and oob["bounds"] == 2000
    assert u["unsupported"] == {"message": "the address of `ld.global.f32` depends on tensor data",
                                "file": "k.ptx", "line": 64, "col": 2}


def test_sarif():
    data = json.loads(render(RacesResult([_report(), _unsupported()], "m.toml"), "sarif"))
    assert data["version"] == "2.1.0"
    run = data["runs"][0]
    ids = [r["id"] for r in run["tool"]["driver"]["rules"]]
    assert ids == ["race", "out-of-bounds", "unsupported"]
    race, oob, uns = run["results"]
    assert race["ruleId"] == "race" and ids[race["ruleIndex"]] == "race"
    # the CUDA line is the primary location; the PTX instructions and the other CUDA line are related
    primary = race["locations"][0]["physicalLocation"]
    assert primary["artifactLocation"] == {"uri": "k.cu", "uriBaseId": "SRCROOT"}
    assert primary["region"] == {"startLine": 12}
    uris = [(r["physicalLocation"]["artifactLocation"]["uri"], r["physicalLocation"]["region"]["startLine"])
            for r in race["relatedLocations"]]
    assert uris == [("k.ptx", 40), ("k.ptx", 44), ("k.cu", 15)]
    assert race["properties"]["count"] == 1 and "address" not in race["properties"]
    assert oob["locations"][0]["physicalLocation"]["region"] == {"startLine": 50, "startColumn": 2}
    assert "relatedLocations" not in oob
    assert run["originalUriBaseIds"]["SRCROOT"]["uri"].startswith("file:///")
    assert "informationUri" not in run["tool"]["driver"] or \
        run["tool"]["driver"]["informationUri"].endswith("/README.md")
    assert uns["level"] == "warning" and uns["locations"][0]["physicalLocation"]["region"]["startLine"] == 64
    assert run["invocations"][0]["exitCode"] == 1


def test_junit():
    root = ET.fromstring(render(RacesResult([_report(), _unsupported()], "m.toml"), "junit").split("\n", 1)[1])
    # a testcase per kernel (2) and per finding group (2), one failure or error each
    assert root.get("tests") == "4" and root.get("failures") == "3" and root.get("errors") == "1"
    ok, race, oob, bad = root.findall("./testsuite/testcase")
    assert ok.get("name") == "k" and [f.get("type") for f in ok.findall("failure")] == ["findings"]
    assert race.get("name") == "k: RACE at k.cu:12, k.cu:15" and len(race.findall("failure")) == 1
    assert race.find("failure").get("type") == "race" and race.find("failure").text == finding_text(RACE)
    assert oob.get("name") == "k: OUT OF BOUNDS at k.ptx:50" and oob.find("failure").get("type") == "out-of-bounds"
    assert bad.find("error").get("type") == "unsupported" and bad.find("failure") is None


@pytest.mark.parametrize("module", ["volta.report", "volta.cli.races_cmd"])
def test_presentation_does_not_import_the_executor_eagerly(module):
    code = f"import sys, {module}; print('volta.exec.machine' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"
