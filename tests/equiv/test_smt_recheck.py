"""`volta check --emit-smt`: the obligations re-checked by two independent solvers (cvc5 and z3's binary).

Equivalent elements whose DAGs differ (relu via fmax vs via select: once Z3's work, now decided by normal
forms since selects of comparisons normalize to max) must be `unsat` for both solvers;
the differing element of a NOT EQUIVALENT pair must be `sat` for both. Identical elements emit none.
A 16-element slice of examples/eq_relu_fmax_select keeps this quick; `.ci/run` re-checks the whole
example's 512 obligations.
"""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from volta.cli import run

ROOT = Path(__file__).resolve().parents[2]
EX = ROOT / "examples"


def _recheck_module():
    spec = importlib.util.spec_from_file_location("recheck_smt", ROOT / "proofs" / "recheck_smt.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def recheck():
    pytest.importorskip("cvc5")
    return _recheck_module()


def test_relu_obligations_unsat_for_both_solvers(recheck, tmp_path, capsys):
    relu = EX / "eq_relu_fmax_select"
    smt = tmp_path / "relu"
    code = run(["check", str(relu / "ref.sm80.ptx"), str(relu / "opt.sm80.ptx"), "--ref-kernel", "relu_fmax",
                "--opt-kernel", "relu_select", "--grid", "1", "--block", "32", "--args", "x,out,16",
                "--buffer", "x=f32[16]:in", "--buffer", "out=f32[16]:out", "-q", "--emit-smt", str(smt)])
    out, _ = capsys.readouterr()
    assert code == 0, out
    assert "16 output elements compared" in out  # decided by normal forms now (select -> max); emitted anyway
    results = recheck.recheck(smt)
    assert len(results) == 16
    for r in results:
        assert (r.cvc5, r.z3) == ("unsat", "unsat"), r


def test_differing_element_sat_for_both_solvers(recheck, tmp_path, capsys):
    smt = tmp_path / "saxpy"
    code = run(["check", str(EX / "neq_saxpy_last_sign" / "manifest.toml"), "-q", "--emit-smt", str(smt),
                "--save-counterexample", str(tmp_path / "cex.json")])
    capsys.readouterr()
    assert code == 1
    results = recheck.recheck(smt)
    assert [(r.path.name, r.cvc5, r.z3) for r in results] == [("out_511.smt2", "sat", "sat")]
