"""Where two kernels' values first part (volta.equiv.parting): on the confirmed counterexample, the first
instruction on each kernel's slice of the differing element whose exact value the other's slice never has.

The examples' manifests give `defect_line`, the line of the injected bug in opt.cu: the opt kernel's parting
point must be there, for bugs of different shapes (a wrong index, a swapped tile index, a wrong constant, a
wrong divisor, a flipped sign); a missing term leaves the shorter computation with no parting point of its own.
"""
from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from volta.equiv import check as C
from volta.equiv import parting as P
from volta.errors import Unsupported
from volta.launch.spec import load_manifest

EX = Path(__file__).resolve().parents[2] / "examples"


def _check(name):
    spec = load_manifest(EX / name / "manifest.toml")
    report = C.check(spec)
    assert report.verdict == "not-equivalent"
    return spec, report.counterexample


@pytest.mark.parametrize("name,opcode", [
    ("neq_kb_matvec_colmajor", "fma"),      # wrong index: A[k*M + row] instead of A[row*K + k]
    ("neq_gemm_swapped", "fma"),            # swapped shared-memory tile index (loads are right, the product is not)
    ("neq_gelu_erf_constant", "mul"),       # a wrong constant
    ("neq_kb_mean_wrong_divisor", "div"),   # divides by the wrong count
    ("neq_saxpy_last_sign", "sub"),         # the last element subtracts
])
def test_opt_parting_point_is_the_injected_bug(name, opcode):
    spec, cex = _check(name)
    p = cex.parting
    assert p is not None and (p.buffer, p.index) == (cex.buffer, cex.index)
    pt = p.opt
    assert pt is not None and pt.opcode.startswith(opcode), pt
    assert Path(pt.cuda_file).name == "opt.cu" and pt.cuda_line == spec.expect["defect_line"], pt
    assert Path(pt.ptx_file).name == "opt.sm80.ptx" and pt.ptx_line > 0
    assert isinstance(pt.value, Fraction)
    assert p.ref is not None and Path(p.ref.cuda_file).name == "ref.cu"


def test_values_are_the_exact_values_on_the_counterexample():
    # saxpy: out[i] = alpha*x[i] + y[i]; the opt kernel's last element computes alpha*x[i] - y[i]
    spec, cex = _check("neq_saxpy_last_sign")
    i = cex.index
    alpha, x, y = cex.inputs["__symbols__"]["alpha"], cex.inputs["x"][i], cex.inputs["y"][i]
    assert cex.parting.ref.value == alpha * x + y == cex.ref_value
    assert cex.parting.opt.value == alpha * x - y == cex.opt_value
    assert cex.parting.opt.thread.thread == (127, 0, 0)  # the thread of element 511


def test_missing_term_leaves_the_shorter_kernel_without_a_parting_point():
    # opt sums only its own warp's part of the row: every value it computes, ref computes too
    spec, cex = _check("neq_kb_rowsum_missing_crosswarp")
    p = cex.parting
    assert p.opt is None and p.ref is not None
    assert p.ref.opcode.startswith("add") and Path(p.ref.cuda_file).name == "ref.cu"
    assert p.float_events["opt"] < p.float_events["ref"]


def test_launch_sequence_is_traced_across_launches():
    # opt: block sums into a temp buffer, then a reduce that drops the last partial (a missing term). The walk
    # goes back through `partial` into the first launch's shared-memory trees, not only to the 7 loads of it
    spec, cex = _check("neq_blocksum_reduce_one_short")
    p = cex.parting
    assert p is not None and p.opt is None and p.ref is not None
    assert p.float_events["opt"] > 1000


@pytest.mark.slow
def test_untouched_element_and_a_cut_slice_say_nothing():
    spec, cex = _check("neq_kb_gemm_missing_rows")  # opt never writes C[1024]
    assert cex.opt_value == C.UNTOUCHED and cex.parting is None
    spec, cex = _check("neq_gemm_swapped")
    assert P.values_part(spec, cex.inputs, cex.buffer, cex.index, max_steps=20) is None
    assert P.values_part(spec, cex.inputs, cex.buffer, cex.index) is not None


def test_a_failing_trace_never_changes_the_verdict(monkeypatch):
    def broken(*a, **k):
        raise Unsupported("no semantics for `frobnicate.f32` yet")

    monkeypatch.setattr(P, "values_part", broken)
    spec, cex = _check("neq_saxpy_last_sign")
    assert cex.parting is None and cex.ref_value != cex.opt_value


def test_only_not_equivalent_is_traced(monkeypatch):
    calls = []
    monkeypatch.setattr(P, "values_part", lambda *a, **k: calls.append(a))
    report = C.check(load_manifest(EX / "eq_gemm_naive_tiled" / "manifest.toml"))
    assert report.verdict == "equivalent" and calls == []


def test_large_launches_are_not_traced():
    spec, cex = _check("neq_saxpy_last_sign")

    class Big:
        thread_instructions = P.MAX_TRACED + 1

    assert P.values_part(spec, cex.inputs, cex.buffer, cex.index, machines={"ref": Big()}) is None
