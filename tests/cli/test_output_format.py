"""`--output-format text|json|sarif|junit|github` (issue 32 §12), with --json and --sarif as aliases."""
from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from volta.cli import run
from volta.cli.output_format import github_annotations

EX = Path(__file__).resolve().parents[2] / "examples"
OOB = str(EX / "bug_vector_add_offbyone" / "manifest.toml")


def _out(capsys, *argv):
    code = run(list(argv))
    return code, capsys.readouterr().out


@pytest.mark.slow   # 2.9 CPU s
def test_github_annotations_sit_on_the_cuda_line(capsys, monkeypatch):
    monkeypatch.chdir(EX.parent)
    code, out = _out(capsys, "races", "examples/bug_vector_add_offbyone/manifest.toml", "-q", "--output-format",
                     "github")
    assert code == 1
    (line,) = out.splitlines()
    assert line.startswith("::error file=examples/bug_vector_add_offbyone/kernel.cu,line=7,title=out-of-bounds::read")
    code, out = _out(capsys, "check", "examples/neq_gemm_swapped/manifest.toml", "-q", "--output-format", "github")
    assert code == 1 and out.startswith("::error file=examples/neq_gemm_swapped/opt.cu,line=21,title=not-equivalent::")
    code, out = _out(capsys, "run", "examples/vector_add/manifest.toml", "-q", "--output-format", "github")
    assert code == 0 and out == ""   # clean: nothing to annotate


@pytest.mark.parametrize("command", ["races", "run"])
def test_json_and_sarif_are_the_old_flags(command, capsys):
    for fmt in ("json", "sarif"):
        new = json.loads(_out(capsys, command, OOB, "-q", "--output-format", fmt)[1])
        old = json.loads(_out(capsys, command, OOB, "-q", f"--{fmt}")[1])
        key = "findings" if fmt == "json" and command == "run" else "kernels" if fmt == "json" else "runs"
        strip = (lambda d: json.dumps(d, sort_keys=True).split('"seconds"')[0]) if fmt == "json" else \
            (lambda d: d["runs"][0]["results"])
        assert key in new and strip(new) == strip(old)


def test_junit_prints_the_xml(capsys):
    code, out = _out(capsys, "races", OOB, "-q", "--output-format", "junit")
    root = ET.fromstring(out)
    assert code == 1 and root.tag == "testsuites" and root.get("failures") == "2"


def test_conflicting_formats_are_a_usage_error(capsys):
    assert run(["races", OOB, "-q", "--json", "--output-format", "sarif"]) == 2
    assert "disagree" in capsys.readouterr().err
    assert run(["check", OOB, "--output-format", "yaml"]) == 2


def test_annotation_text_is_escaped():
    sarif = {"runs": [{"results": [{"ruleId": "race", "level": "warning", "message": {"text": "a\nb 100%"},
                                    "locations": [{"physicalLocation": {"artifactLocation": {"uri": "file:///x/a,b.cu"},
                                                                        "region": {"startLine": 3}}}]}]}]}
    assert github_annotations(sarif) == "::warning file=/x/a%2Cb.cu,line=3,title=race::a%0Ab 100%25\n"
