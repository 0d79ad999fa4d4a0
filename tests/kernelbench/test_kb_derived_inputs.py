"""A witness on an input get_inputs derives from random leaves (`torch.rand(n) + 0.5`): the candidate is re-run
on that input (not on the leaves' values), the saved .npz holds the input a user feeds the models, and the
text says so. Before, the re-run fed the leaves' values: the candidate's value shown was of another input,
and replaying the .npz on the real models showed no difference."""
from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from volta import cuda
from volta.cli import run

HERE = Path(__file__).resolve().parent / "builds" / "l1_logs"
needs_nvcc = pytest.mark.skipif(cuda.find_nvcc() is None, reason="nvcc (the CUDA toolkit) is not installed")


def _model(x: float) -> float:
    """problem.py's forward at one element, in float64."""
    return np.log1p(x) + np.log(x + 1.5) + x ** 3 - np.log2(x + 2) * np.expm1(x)


def _candidate(x: float) -> float:
    """neq_log_for_log1p.py's kernel at one element, in float64."""
    return np.log(x) + np.log(x + 1.5) + x ** 3 - np.log2(x + 2) * np.expm1(x)


@needs_nvcc
def test_the_witness_is_the_derived_input(tmp_path, capsys):
    npz = tmp_path / "cex.npz"
    code = run(["kernelbench", str(HERE / "problem.py"), str(HERE / "neq_log_for_log1p.py"), "--json", "-q",
                "--save-counterexample", str(npz)])
    report = json.loads(capsys.readouterr().out)
    assert code == 1 and report["verdict"] == "not-equivalent"
    x = np.load(npz)["x"]
    assert x.min() >= 0.5                         # rand + 0.5, never a leaf's value below 0.5
    i = np.ravel_multi_index(report["counterexample"]["index"], x.shape)
    value = float(x.ravel()[i])
    cex = report["counterexample"]
    ref, cand = (_midpoint(cex[k]) for k in ("ref_value", "cand_value"))
    assert ref == pytest.approx(_model(value), rel=1e-6)
    assert cand == pytest.approx(_candidate(value), rel=1e-6)
    derived = cex["derived_inputs"]["x"]
    assert derived["others"] is not None and float(Fraction(derived["others"])) == pytest.approx(1.5)


def _midpoint(value) -> float:
    """A JSON value: an exact rational string, or a certified enclosure {lo, hi}."""
    if isinstance(value, dict):
        return float((Fraction(value["lo"]) + Fraction(value["hi"])) / 2)
    return float(Fraction(value))

@needs_nvcc
def test_the_text_names_the_input_not_the_leaf(capsys):
    run(["kernelbench", str(HERE / "problem.py"), str(HERE / "neq_log_for_log1p.py"), "-q"])
    out = capsys.readouterr().out
    line = next(line for line in out.splitlines() if line.strip().startswith("inputs:"))
    assert "random leaf" in line and "every input and parameter element is 1" not in line
