"""The candidate corpus (examples/kernelbench/*/): each candidate decided as its problem's expect.toml says,
through the command line with no flag but sizes (as a CI user runs it). Candidates are our own, written the
way LLM candidates are (TORCH_CHECK wrappers, AT_DISPATCH, templates, dynamic shared memory, several launches,
streams, fp16, float4, shuffles, wmma), correct ones and ones with the bugs LLM candidates have."""
import json
import tomllib
from pathlib import Path

import pytest

from volta import cuda
from volta.cli import run

ROOT = Path(__file__).resolve().parents[2] / "examples" / "kernelbench"
needs_nvcc = pytest.mark.skipif(cuda.find_nvcc() is None, reason="nvcc (the CUDA toolkit) is not installed")


def cases():
    for expect in sorted(ROOT.glob("*/expect.toml")):
        table = tomllib.loads(expect.read_text())
        for name, want in table.items():
            yield pytest.param(expect.parent, name, want, id=f"{expect.parent.name}/{name}")


@needs_nvcc
@pytest.mark.slow       # the whole corpus: ~60 checks, each a confined worker and a re-decision
@pytest.mark.isolated   # each check's symbolic DAGs leave with its child: in one worker the corpus grew past 2 GB
@pytest.mark.parametrize("problem_dir,name,want", list(cases()))
def test_candidate(problem_dir, name, want, capsys):
    args = ["kernelbench", str(problem_dir / "problem.py"), str(problem_dir / f"{name}.py"), "--json", "-q"]
    for size, value in want.get("sizes", {}).items():
        args += ["--size", f"{size}={value}"]
    code = run(args)
    report = json.loads(capsys.readouterr().out)
    assert report["verdict"] == want["verdict"], report
    if "text" in want:
        assert report["verdict_text"] == want["text"], report
    assert code == {"equivalent": 0, "not-equivalent": 1, "findings": 1, "precision": 1}.get(want["verdict"], 3)
    if want["verdict"] == "not-equivalent":
        assert report["counterexample"]["ref_value"] != report["counterexample"]["cand_value"]
