"""PRECISION findings and what runs: each candidate of tests/kernelbench/precision/ decided through the command
line as expected — every precision hack a PRECISION LOSS (exit 1) at its line, never EQUIVALENT; each honest
control EQUIVALENT; compile/jit/hooks with eager meaning; an overriding tensor subclass UNSUPPORTED.
With --atol/--rtol the candidate is evaluated in its actual precision (PASS or FAIL with the worst found)."""
import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from volta import cuda
from volta.cli import run
from volta.kernelbench.precision import narrow_format, round_to

ROOT = Path(__file__).resolve().parent / "precision"
needs_nvcc = pytest.mark.skipif(cuda.find_nvcc() is None, reason="nvcc (the CUDA toolkit) is not installed")

# candidate -> (verdict, the candidate's line of the first precision finding, or None)
GEMM = {
    "gemm_honest": ("equivalent", None),
    "gemm_half": ("precision", 11),
    "gemm_bf16": ("precision", 12),
    "gemm_autocast": ("precision", 12),
    "gemm_autocast_disabled": ("equivalent", None),
    "gemm_tf32": ("precision", 13),
    "gemm_tf32_off": ("equivalent", None),
    "gemm_medium": ("precision", 12),
    "gemm_unused_half": ("equivalent", None),
    "gemm_compiled": ("equivalent", None),
    "gemm_jit_trace": ("equivalent", None),
    "gemm_forward_hook": ("equivalent", None),
    "gemm_hook_half": ("precision", 11),
    "gemm_rebound": ("not-equivalent", None),
    "gemm_subclass": ("unsupported", None),
}
AXPY = {
    "axpy_kernel_f16": ("precision", 12),
    "axpy_kernel_f32": ("equivalent", None),
    "axpy_dropped_term": ("not-equivalent", None),
}
CONV = {
    ("conv_problem.py", "conv_cudnn_tf32"): ("equivalent", None),      # cuDNN TF32 is torch's default: the reference's too
    ("conv_problem.py", "conv_autocast_bf16"): ("precision", 12),
    ("conv_gemm_problem.py", "conv_gemm_tf32"): ("precision", 14),    # the reference's TF32 is its convolution's only
}
EXIT = {"equivalent": 0, "within-tolerance": 0, "not-equivalent": 1, "precision": 1, "unsupported": 3}


def _check(capsys, problem, candidate, *extra):
    code = run(["kernelbench", str(ROOT / problem), str(ROOT / f"{candidate}.py"), "--json", "-q", *extra])
    return code, json.loads(capsys.readouterr().out)


def _expect(code, report, verdict, line):
    assert report["verdict"] == verdict, report
    assert code == EXIT[verdict]
    if line is not None:
        first = report["precision"]["findings"][0]
        assert first["line"] == line and first["file"].endswith(".py"), first
        assert report["precision"]["reference_formats"] == ["f32"]


@pytest.mark.parametrize("candidate", list(GEMM))
def test_gemm_candidate(candidate, capsys):
    code, report = _check(capsys, "gemm_problem.py", candidate)
    _expect(code, report, *GEMM[candidate])


@pytest.mark.parametrize("problem,candidate", list(CONV))
def test_convolution_candidate(problem, candidate, capsys):
    code, report = _check(capsys, problem, candidate)
    verdict, line = CONV[(problem, candidate)]
    assert report["verdict"] == verdict and code == EXIT[verdict], report
    if line is not None:
        assert report["precision"]["findings"][0]["line"] == line


@needs_nvcc
@pytest.mark.parametrize("candidate", list(AXPY))
def test_axpy_candidate(candidate, capsys):
    code, report = _check(capsys, "axpy_problem.py", candidate, "--size", "n=64")
    _expect(code, report, *AXPY[candidate])


def test_unused_narrow_values_are_listed_not_found(capsys):
    _, report = _check(capsys, "gemm_problem.py", "gemm_unused_half")
    assert report["precision"]["findings"] == []
    assert report["precision"]["unused"][0]["line"] == 13


def test_tolerance_fails_half_with_the_worst_input_found(capsys):
    code, report = _check(capsys, "gemm_problem.py", "gemm_half", "--atol", "1e-2", "--rtol", "1e-2")
    evaluation = report["precision"]["evaluation"]
    assert (code, report["verdict"], evaluation["result"]) == (1, "precision", "fail")
    assert evaluation["worst"]["excess"] > 1 and evaluation["inputs_tried"] > 0


def test_loose_tolerance_passes_tf32_as_within_tolerance(capsys):
    code, report = _check(capsys, "gemm_problem.py", "gemm_tf32", "--atol", "1", "--rtol", "1")
    assert (code, report["verdict"], report["precision"]["evaluation"]["result"]) == (0, "within-tolerance", "pass")
    assert report["verdict_text"] == "EQUIVALENT WITHIN TOLERANCE"


@needs_nvcc
def test_kernel_precision_is_not_evaluated(capsys):
    code, report = _check(capsys, "axpy_problem.py", "axpy_kernel_f16", "--size", "n=64", "--atol", "1")
    evaluation = report["precision"]["evaluation"]
    assert (code, report["verdict"], evaluation["result"]) == (1, "precision", "not-evaluated")


def test_text_report_names_the_switch_line(capsys):
    code = run(["kernelbench", str(ROOT / "gemm_problem.py"), str(ROOT / "gemm_tf32.py"), "-q"])
    out = capsys.readouterr().out
    assert code == 1 and out.startswith("PRECISION LOSS") and "switched at line 4" in out


@pytest.mark.parametrize("opcode,fmt", [
    ("cvt.rn.f16.f32", "f16"), ("cvt.f32.f16", None), ("fma.rn.f16x2", "f16"), ("add.rn.bf16", "bf16"),
    ("cvt.rna.tf32.f32", "tf32"), ("ld.global.f16", None), ("wmma.load.a.sync.aligned.row.m16n16k16.global.f16", None),
    ("wmma.mma.sync.aligned.row.row.m16n16k16.f32.f16", "f16"), ("add.f32", None), ("mov.b32", None)])
def test_narrow_format_of_ptx_instructions(opcode, fmt):
    assert narrow_format(opcode) == fmt


@settings(max_examples=200, deadline=None)
@given(st.floats(-6e4, 6e4, allow_nan=False).filter(lambda v: v == 0 or abs(v) > 1e-30))
def test_rounding_matches_the_formats(x):
    """float16 as numpy converts; bfloat16 and TF32 within half an ulp of float32's normal range, low bits 0."""
    assert round_to("f16", x) == float(np.float16(x))
    bf = round_to("bf16", x)
    assert abs(bf - x) <= abs(x) * 2.0 ** -8 and np.float32(bf).view(np.uint32) & 0xFFFF == 0
    tf = round_to("tf32", x)
    assert abs(tf - x) <= abs(x) * 2.0 ** -11 and np.float32(tf).view(np.uint32) & 0x1FFF == 0


# timing- and device-chosen paths: candidate -> (verdict, paths checked)
PATHS = {
    "axpy_timed": ("not-equivalent", 4),
    "axpy_timed_honest": ("equivalent", 4),
    "axpy_capability": ("precision", 3),
    "axpy_capability_honest": ("equivalent", 3),
}


@pytest.mark.parametrize("candidate", list(PATHS))
def test_machine_chosen_paths_are_each_checked(candidate, capsys):
    code, report = _check(capsys, "axpy_problem.py", candidate, "--size", "n=8")
    verdict, count = PATHS[candidate]
    assert (report["verdict"], code, len(report["paths"])) == (verdict, EXIT[verdict], count), report["paths"]
    assert report["paths"][0]["verdict"] == "equivalent"     # the default answer alone would have passed
    assert report["paths_unchecked"] == [] and report["machine_queries"]


def test_answers_past_the_limit_are_named_not_checked(capsys):
    code, report = _check(capsys, "axpy_problem.py", "axpy_many_timings", "--size", "n=8")
    assert code == 0 and report["paths_unchecked"]
    assert report["verdict_text"].startswith("EQUIVALENT ON THE MACHINE ANSWERS CHECKED")


def test_rounding_agrees_with_torch_conversions():
    """float16 and bfloat16 rounding of float32 values as PyTorch converts them (skipped without PyTorch)."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(1)
    x = rng.standard_normal(20000) * 10.0 ** rng.integers(-30, 30, 20000)
    x = np.concatenate([x, [0.0, -0.0, 3.4e38, 65504.0, 65520.0, 1e-8]]).astype(np.float32).astype(np.float64)
    t = torch.tensor(x, dtype=torch.float32)
    for fmt, dtype in (("f16", torch.float16), ("bf16", torch.bfloat16)):
        theirs = t.to(dtype).to(torch.float64).numpy()
        assert np.array_equal(round_to(fmt, x), theirs), fmt


def test_allow_tf32_and_matmul_precision_are_one_setting():
    from volta.kernelbench.torchsym.switches import Precision
    p = Precision()
    p.switch("matmul_tf32", True)
    assert (p.matmul_precision, p.matmul_format("matmul")) == ("high", "tf32")
    p.switch("matmul_precision", "highest")
    assert (p.matmul_tf32, p.matmul_format("matmul")) == (False, None)
    p.switch("matmul_precision", "medium")
    assert (p.matmul_tf32, p.matmul_format("matmul"), p.matmul_format("conv")) == (True, "bf16", "tf32")


def _load(path, name):
    import importlib.util
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_worst_input_saved_fails_allclose_on_real_torch(tmp_path, capsys):
    """The worst input found for the float16 candidate, replayed on PyTorch (CPU): torch.allclose fails there
    too, at the element the report names (skipped without PyTorch)."""
    torch = pytest.importorskip("torch")
    saved = tmp_path / "worst.npz"
    code, report = _check(capsys, "gemm_problem.py", "gemm_half", "--atol", "1e-2", "--save-counterexample",
                          str(saved))
    assert code == 1 and report["precision"]["evaluation"]["result"] == "fail"
    w = np.load(saved)
    reference = _load(ROOT / "gemm_problem.py", "volta_test_gemm_problem").Model(8, 4)
    candidate = _load(ROOT / "gemm_half.py", "volta_test_gemm_half").ModelNew(8, 4)
    for m in (reference, candidate):
        m.linear.weight.data = torch.tensor(w["param:linear.weight"])
        m.linear.bias.data = torch.tensor(w["param:linear.bias"])
    x = torch.tensor(w["x"])
    ref, cand = reference(x).flatten(), candidate(x).flatten()
    worst = report["precision"]["evaluation"]["worst"]
    assert not torch.allclose(ref, cand, atol=1e-2, rtol=1e-2)
    assert abs(ref[worst["index"]].item() - worst["reference"]) < 1e-3
