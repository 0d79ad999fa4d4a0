"""`volta run` end to end through `volta.cli.run`: examples' outputs against numpy references, data-dependent
gathers, findings, and one test per usage error (exit 2)."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from volta.cli import run

EX = Path(__file__).resolve().parents[2] / "examples"


def _inputs(tmp_path, **arrays):
    p = tmp_path / "in.npz"
    np.savez(p, **arrays)
    return str(p)


@pytest.mark.parametrize("case,n", [("gemm_naive", 32), ("gemm_tiled", 32), ("gemm_regblock", 64),
                                    ("gemm_float4", 32)])
def test_gemms_agree_with_float64(tmp_path, capsys, case, n):
    rng = np.random.default_rng(1)
    A = rng.standard_normal((n, n)).astype(np.float32)
    B = rng.standard_normal((n, n)).astype(np.float32)
    out = tmp_path / "out.npz"
    code = run(["run", str(EX / case / "manifest.toml"), "--inputs", _inputs(tmp_path, A=A.ravel(), B=B.ravel()),
                "--out", str(out)])
    assert code == 0, capsys.readouterr()
    C = np.load(out)["C"].reshape(n, n).astype(np.float64)
    ref = A.astype(np.float64) @ B.astype(np.float64)
    # K fma roundings into a float32 accumulator: |err| <= K·u·Σ|a||b| (u = 2^-24), a first-order bound
    bound = n * 2.0 ** -24 * (np.abs(A).astype(np.float64) @ np.abs(B).astype(np.float64))
    assert np.all(np.abs(C - ref) <= bound * 1.01)
    assert "C: f32[1024]" in capsys.readouterr().out or n == 64


def test_vector_add_exact(tmp_path, capsys):
    rng = np.random.default_rng(2)
    x, y = rng.standard_normal(500).astype(np.float32), rng.standard_normal(500).astype(np.float32)
    ptx = EX / "vector_add" / "kernel.sm80.ptx"
    out = tmp_path / "o.npz"
    code = run(["run", str(ptx), "--grid", "4", "--block", "128", "--args", "x,y,out,500",
                "--inputs", _inputs(tmp_path, x=x, y=y), "--buffer", "out=f32[500]:out", "--out", str(out)])
    assert code == 0
    got = np.load(out)
    assert np.array_equal(got["out"].view(np.uint32), (x + y).view(np.uint32))
    assert np.array_equal(got["x"], x)  # every buffer comes back under its name


def test_saxpy_exact_with_scalar(tmp_path, capsys):
    rng = np.random.default_rng(3)
    x, y = rng.standard_normal(512).astype(np.float32), rng.standard_normal(512).astype(np.float32)
    out = tmp_path / "o.npz"
    code = run(["run", str(EX / "saxpy" / "manifest.toml"), "--inputs", _inputs(tmp_path, x=x, y=y), "--arg", "alpha=0.5",
                "--out", str(out)])
    assert code == 0, capsys.readouterr()
    # alpha = 0.5 makes the product exact, so the kernel's fma equals numpy's float32 mul-then-add
    assert np.array_equal(np.load(out)["out"], np.float32(0.5) * x + y)


def test_embedding_gather_data_dependent(tmp_path, capsys):
    rng = np.random.default_rng(4)
    idx = np.array([3, 0, 49, 7, 60, -5, 12, 12, 1, 2, 48, 30, 20, 10, 5, 44], np.int32)
    table = rng.standard_normal(50 * 32).astype(np.float32)
    out = tmp_path / "o.npz"
    code = run(["run", str(EX / "embedding_gather" / "manifest.toml"), "--inputs", _inputs(tmp_path, idx=idx, table=table),
                "--out", str(out)])
    assert code == 0, capsys.readouterr()
    rows = np.clip(idx, 0, 49)
    assert np.array_equal(np.load(out)["out"].reshape(16, 32), table.reshape(50, 32)[rows])


def test_seeded_inputs_are_deterministic_and_saved(tmp_path, capsys):
    o1, o2 = tmp_path / "a.npz", tmp_path / "b.npz"
    assert run(["run", str(EX / "gemm_naive" / "manifest.toml"), "--seed", "7", "--out", str(o1)]) == 0
    assert run(["run", str(EX / "gemm_naive" / "manifest.toml"), "--seed", "7", "--out", str(o2)]) == 0
    a, b = np.load(o1), np.load(o2)
    assert np.array_equal(a["C"], b["C"]) and "input.A" in a.files
    ref = a["input.A"].reshape(32, 32).astype(np.float64) @ a["input.B"].reshape(32, 32).astype(np.float64)
    assert np.allclose(a["C"].reshape(32, 32), ref, atol=1e-4)


def test_findings_exit_1_with_races_text(tmp_path, capsys):
    code = run(["run", str(EX / "bug_global_race_accum" / "manifest.toml")])
    text = capsys.readouterr().out
    assert code == 1 and "RACE:" in text and "block (" in text


def test_json_output(tmp_path, capsys):
    code = run(["run", str(EX / "vector_add" / "manifest.toml"), "--json", "--fp", "hopper"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["fp"] == "hopper" and data["findings"] == []
    assert data["buffers"]["out"]["dtype"] == "f32" and data["thread_instructions"] > 0


def test_ampere_and_hopper_agree_on_scalar_kernel(tmp_path, capsys):
    outs = []
    for fp in ("ampere", "hopper"):
        o = tmp_path / f"{fp}.npz"
        assert run(["run", str(EX / "gemm_tiled" / "manifest.toml"), "--fp", fp, "--out", str(o)]) == 0
        outs.append(np.load(o)["C"])
    assert np.array_equal(outs[0], outs[1])  # no tensor cores: scalar fma rounds the same everywhere


# ---- usage errors: exit 2 with a message, never a traceback ------------------------------------------------

def _vector_add(tmp_path, *extra, **arrays):
    args = [str(EX / "vector_add" / "kernel.sm80.ptx"), "--grid", "4", "--block", "128", "--args", "x,y,out,500"]
    return run(["run"] + args + ["--inputs", _inputs(tmp_path, **arrays)] + list(extra))


def test_missing_array_is_usage_error(tmp_path, capsys):
    x = np.zeros(500, np.float32)
    assert _vector_add(tmp_path, "--buffer", "out=f32[500]:out", x=x) == 2
    assert "buffer `y`" in capsys.readouterr().err


def test_dtype_mismatch_is_usage_error(tmp_path, capsys):
    x = np.zeros(500, np.float32)
    assert _vector_add(tmp_path, "--buffer", "out=f32[500]:out", "--buffer", "y=f32[500]", x=x,
                       y=np.zeros(500, np.int32)) == 2
    assert "dtype" in capsys.readouterr().err


def test_size_mismatch_is_usage_error(tmp_path, capsys):
    x = np.zeros(500, np.float32)
    assert _vector_add(tmp_path, "--buffer", "out=f32[500]:out", "--buffer", "y=f32[500]", x=x,
                       y=np.zeros(499, np.float32)) == 2
    assert "499 elements" in capsys.readouterr().err


def test_bad_fp_is_usage_error(tmp_path, capsys):
    assert run(["run", str(EX / "vector_add" / "manifest.toml"), "--fp", "pentium"]) == 2


def test_unknown_dtype_array_is_usage_error(tmp_path, capsys):
    x = np.zeros(500, np.complex64)
    assert _vector_add(tmp_path, "--buffer", "out=f32[500]:out", x=x, y=np.zeros(500, np.float32)) == 2


def test_missing_scalar_is_usage_error(tmp_path, capsys):
    x = np.zeros(512, np.float32)
    assert run(["run", str(EX / "saxpy" / "manifest.toml"), "--inputs", _inputs(tmp_path, x=x, y=x)]) == 2
    assert "alpha" in capsys.readouterr().err


def test_bf16_raw_words_and_ml_dtypes(tmp_path, capsys):
    ml = pytest.importorskip("ml_dtypes")
    x = np.array([1.0, 2.0, -3.5], dtype=ml.bfloat16)
    ptx = tmp_path / "k.ptx"
    ptx.write_text("""
.version 8.0
.target sm_80
.address_size 64
.visible .entry twice(.param .u64 p, .param .u32 n)
{
  .reg .pred %p<2>;
  .reg .b16 %h<3>;
  .reg .b32 %r<3>;
  .reg .b64 %rd<5>;
  ld.param.u64 %rd1, [p];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %tid.x;
  setp.ge.u32 %p1, %r2, %r1;
  @%p1 bra DONE;
  cvta.to.global.u64 %rd2, %rd1;
  mul.wide.u32 %rd3, %r2, 2;
  add.s64 %rd4, %rd2, %rd3;
  ld.global.b16 %h1, [%rd4];
  add.rn.bf16 %h2, %h1, %h1;
  st.global.b16 [%rd4], %h2;
DONE:
  ret;
}
""")
    for given in (x, x.view(np.uint16)):
        out = tmp_path / "o.npz"
        extra = ["--buffer", "p=bf16[3]"]  # .npz keeps bf16 as raw 2-byte words: the dtype must be named
        code = run(["run", str(ptx), "--grid", "1", "--block", "32", "--args", "p,3", "--inputs",
                    _inputs(tmp_path, p=given), "--out", str(out)] + extra)
        assert code == 0, capsys.readouterr()
        words = np.load(out)["p"]
        assert words.view(ml.bfloat16).astype(np.float32).tolist() == [2.0, 4.0, -7.0]


def test_fp_real_computes_exactly_and_rounds_once(tmp_path):
    """--fp real: the GEMM in exact arithmetic, each output rounded once (the float64 reference rounded)."""
    out = tmp_path / "out.npz"
    assert run(["run", "examples/gemm_naive/manifest.toml", "--fp", "real", "--out", str(out)]) == 0
    data = np.load(out)
    a, b = data["input.A"].astype(np.float64), data["input.B"].astype(np.float64)
    n = int(round(a.size ** 0.5))
    expect = (a.reshape(n, n) @ b.reshape(n, n)).reshape(-1)
    # float64 products of f32 inputs are exact; their sum of 32 terms is within a few ulp of f64
    assert np.allclose(data["C"].astype(np.float64), expect.astype(np.float32), rtol=1e-6, atol=1e-6)


# ---- which tensor-core row a run used (issue 34 §2) ---------------------------------------------------------

# One warp, one fp8 mma.sync m16n8k32 -> f32: lane l loads A words 4l..4l+3, B 2l..2l+1, C 4l..4l+3 and stores D.
FP8_MMA = """.version 8.7
.target sm_90
.address_size 64
.visible .entry k(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pd)
{
    .reg .b32 %r<2>;
    .reg .b32 %x<20>;
    .reg .b64 %rd<16>;
    ld.param.u64 %rd1, [pa];
    ld.param.u64 %rd2, [pb];
    ld.param.u64 %rd3, [pc];
    ld.param.u64 %rd4, [pd];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd5, %r1, 16;
    mul.wide.u32 %rd6, %r1, 8;
    add.s64 %rd7, %rd1, %rd5;
    add.s64 %rd8, %rd2, %rd6;
    add.s64 %rd9, %rd3, %rd5;
    add.s64 %rd10, %rd4, %rd5;
    ld.global.v4.b32 {%x0, %x1, %x2, %x3}, [%rd7];
    ld.global.v2.b32 {%x4, %x5}, [%rd8];
    ld.global.v4.b32 {%x6, %x7, %x8, %x9}, [%rd9];
    mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 {%x10, %x11, %x12, %x13}, {%x0, %x1, %x2, %x3}, {%x4, %x5}, {%x6, %x7, %x8, %x9};
    st.global.v4.b32 [%rd10], {%x10, %x11, %x12, %x13};
    ret;
}
"""


def _fp8_run(tmp_path, *extra):
    """Element (0, 0) holds vector P1 of tests/numerics/test_mma_select.py: 2^6·2^6 at k0, 1.5·2^-6·2^-6 at k2.
    Lane 0 holds A[0][0..3] in its first register and B[0..3][0] in its first: bytes 0 and 2 of each."""
    ptx = tmp_path / "fp8.ptx"
    ptx.write_text(FP8_MMA)
    A, B = np.zeros(128, np.uint32), np.zeros(64, np.uint32)
    A[0], B[0] = 0x0C0068, 0x080068
    return run(["run", str(ptx), "--grid", "1", "--block", "32", "--args", "A,B,C,D", "--fp", "hopper",
                "--buffer", "D=u32[128]:out", "--buffer", "C=u32[128]:in",
                "--inputs", _inputs(tmp_path, A=A, B=B, C=np.zeros(128, np.uint32)), *extra])


def test_run_json_names_the_tensor_core_row_and_takes_ptxas(tmp_path, capsys):
    out = tmp_path / "out.npz"
    assert _fp8_run(tmp_path, "--ptxas", "12.6", "--json", "--out", str(out)) == 0
    data = json.loads(capsys.readouterr().out)
    assert int(np.load(out)["D"][0]) == 0x45800001  # FADD of the two HMMA results rounds to nearest
    (row,) = data["tensor_cores"]
    assert row["name"] == "hopper mma.sync e4m3->f32, ptxas 12.4-12.6" and row["ptxas"] == "12.6"
    assert row["ptxas_from"] == "--ptxas" and "summed (RNE)" in row["structure"]
    assert _fp8_run(tmp_path, "--ptxas", "13.0", "--out", str(out)) == 0
    text = capsys.readouterr().out
    assert int(np.load(out)["D"][0]) == 0x45800000  # the chained HMMAs truncate
    assert "tensor cores: hopper mma.sync e4m3->f32, ptxas 12.8+ (ptxas 13.0, --ptxas): " in text


def test_run_text_names_the_row_of_an_f16_mma(capsys):
    assert run(["run", str(EX / "gemm_mma_sync" / "manifest.toml"), "--fp", "hopper", "--no-races"]) == 0
    text = capsys.readouterr().out
    assert "tensor cores: hopper mma.sync f16->f32, every ptxas" in text and "groups of 16, 25 extra bits" in text


def test_run_without_tensor_cores_names_no_row(capsys):
    assert run(["run", str(EX / "vector_add" / "manifest.toml"), "--json", "--fp", "hopper"]) == 0
    assert json.loads(capsys.readouterr().out)["tensor_cores"] == []


@pytest.mark.parametrize("ptxas,needle", [("12.2", "cannot compile fp8 mma.sync"), ("x", "bad --ptxas")])
def test_run_ptxas_errors(tmp_path, capsys, ptxas, needle):
    assert _fp8_run(tmp_path, "--ptxas", ptxas) == 2
    err = capsys.readouterr().err
    assert needle in err and "Traceback" not in err
