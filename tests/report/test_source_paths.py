"""One rule for CUDA source paths in every report (issue 32 §6): the file the user gave — beside the PTX they
passed, or the .cu they passed — relative to the working directory; never the path nvcc baked into the PTX
(which may point into another checkout of the repository)."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from volta.cli import run

EX = Path(__file__).resolve().parents[2] / "examples"


def _cuda_paths(obj) -> set:
    """Every `cuda.file` and SARIF artifact URI ending in .cu in a JSON document."""
    found = set()
    if isinstance(obj, dict):
        for key, value in obj.items():
            if key in ("file", "uri") and isinstance(value, str) and value.endswith(".cu"):
                found.add(value)
            found |= _cuda_paths(value)
    elif isinstance(obj, list):
        for value in obj:
            found |= _cuda_paths(value)
    return found


@pytest.mark.slow   # every report kind through the CLI (~10 CPU s)
def test_every_report_names_the_users_copy_relative_to_cwd(tmp_path, monkeypatch, capsys):
    shutil.copytree(EX / "neq_gemm_swapped", tmp_path / "pair")
    shutil.copytree(EX / "bug_reduce_tree_nosync", tmp_path / "tree")
    monkeypatch.chdir(tmp_path)
    assert "/" in (EX / "neq_gemm_swapped" / "ref.sm80.ptx").read_text().split(".file")[1].split("\n")[0]
    expected = {"pair/ref.cu", "pair/opt.cu"}

    assert run(["check", "pair/manifest.toml", "-q"]) == 1
    text = capsys.readouterr().out
    assert "pair/ref.cu:" in text and "pair/opt.cu:" in text and "/examples/" not in text
    assert run(["check", "pair/manifest.toml", "-q", "--json"]) == 1
    assert _cuda_paths(json.loads(capsys.readouterr().out)) == expected
    assert run(["check", "pair/manifest.toml", "-q", "--sarif"]) == 1
    assert _cuda_paths(json.loads(capsys.readouterr().out)) <= expected

    assert run(["races", "tree/manifest.toml", "-q"]) == 1
    text = capsys.readouterr().out
    assert "tree/kernel.cu:" in text and "/examples/" not in text
    for fmt in ("--json", "--sarif"):
        assert run(["races", "tree/manifest.toml", "-q", fmt]) == 1
        assert _cuda_paths(json.loads(capsys.readouterr().out)) == {"tree/kernel.cu"}, fmt
    assert run(["races", "tree/kernel.sm80.ptx", "--grid", "4", "--block", "256", "--args", "x,partial,1024",
                "--buffer", "x=f32[1024]:in", "--buffer", "partial=f32[4]:out", "-q", "--json"]) == 1
    assert _cuda_paths(json.loads(capsys.readouterr().out)) == {"tree/kernel.cu"}   # a PTX file: the .cu beside it


def test_the_inlined_at_line_follows_the_rule(tmp_path, monkeypatch, capsys):
    shutil.copytree(EX / "eq_dot_shared_atomic", tmp_path / "dot")
    monkeypatch.chdir(tmp_path)
    assert run(["races", "dot/manifest.toml", "-q", "--out-init", "undefined"]) == 1
    out = capsys.readouterr().out
    assert "(inlined at dot/opt.cu:13)" in out and "/examples/" not in out
