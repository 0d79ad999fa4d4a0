"""Builds as torch would (tests/kernelbench/builds/*/): a candidate whose extension torch would not build gets
torch's error, so its own `except` branch runs and its fallback is checked, or, uncaught, the report says the
build failed; one that builds is checked on its kernels. cuBLAS GEMMs (tests/kernelbench/builds/l1_gemm,
l1_bmm) run as the column-major products they define, with their math mode in the report. Each is decided
through the command line as its problem's expect.toml says, with the report's list of builds."""
import json
import tomllib
from fractions import Fraction
from pathlib import Path

import numpy as np

import pytest

from volta import cuda
from volta.cli import run

ROOT = Path(__file__).resolve().parent / "builds"
needs_nvcc = pytest.mark.skipif(cuda.find_nvcc() is None, reason="nvcc (the CUDA toolkit) is not installed")


def cases():
    for expect in sorted(ROOT.glob("*/expect.toml")):
        for name, want in tomllib.loads(expect.read_text()).items():
            yield pytest.param(expect.parent, name, want, id=f"{expect.parent.name}/{name}")


@needs_nvcc
@pytest.mark.slow   # the whole build corpus through `volta kernelbench`
@pytest.mark.parametrize("problem_dir,name,want", list(cases()))
def test_candidate(problem_dir, name, want, capsys):
    args = ["kernelbench", str(problem_dir / "problem.py"), str(problem_dir / f"{name}.py"), "--json", "-q"]
    code = run(args)
    out = capsys.readouterr().out
    report = json.loads(out[out.index("{\n"):])    # after what a fallback candidate prints while importing
    assert report["verdict"] == want["verdict"], report
    if "text" in want:
        assert report["verdict_text"] == want["text"], report
    assert code == {"equivalent": 0, "not-equivalent": 1, "findings": 1, "precision": 1}.get(want["verdict"], 3)
    builds = report["builds"]
    state = want.get("build")
    if state == "built":
        assert builds and all(b["built"] for b in builds), builds
    elif state in ("fell-back", "escaped"):
        failed = [b for b in builds if not b["built"]]
        assert len(failed) == 1, builds
        assert failed[0]["fell_back"] == (state == "fell-back") and failed[0]["escaped"] == (state == "escaped")
        assert failed[0]["message"] and failed[0]["exception"] in ("RuntimeError", "ImportError", "TypeError", "ValueError")
    if "proved_by" in want:   # how every element was decided (a normal-form rule, not the solver's luck)
        assert report["proved_by"] == {want["proved_by"]: report["compared"]}, report["proved_by"]
    if "gemm_precision" in want:   # every GEMM ran, with the precision its math mode allows
        assert report["gemms"], report
        assert all((g["precision"] or "none") == want["gemm_precision"] for g in report["gemms"]), report["gemms"]
    if want["verdict"] == "not-equivalent":
        assert report["counterexample"]["ref_value"] != report["counterexample"]["cand_value"]
    if want.get("witness_float32"):   # every input of the witness is a value a float32 tensor holds
        values = [Fraction(v) for elements in report["counterexample"]["inputs"].values() for v in elements.values()]
        assert values and all(Fraction(float(np.float32(float(v)))) == v for v in values), values
