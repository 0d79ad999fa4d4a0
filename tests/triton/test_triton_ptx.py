"""Triton kernels' committed PTX (examples/triton, made by regenerate.py): these tests need no Triton.

Each launch is what volta.triton builds: block = 32 * num_warps, Triton's two hidden trailing pointers
passed as null pointers (Triton reserved no scratch for these kernels), dynamic shared memory as compiled.
"""
from pathlib import Path

import numpy as np
import pytest

import volta

T = Path(__file__).resolve().parents[2] / "examples" / "triton"
E = T.parent
B = volta.Buffer


def _va():
    return B("x", "f32", 500, "in"), B("y", "f32", 500, "in"), B("out", "f32", 500, "out")


def test_vector_add_equivalent_to_cuda_reference():
    x, y, out = _va()
    ref = volta.Launch(grid=4, block=128, args=[x, y, out, 500])
    tri = volta.Launch(grid=4, block=128, args=[x, y, out, 500, 0, 0], kernel="add_kernel")
    r = volta.check(E / "vector_add" / "kernel.sm80.ptx", T / "add.b128.w4.sm80.ptx", ref, opt_launch=tri)
    assert r.verdict == "equivalent", r.report()


def test_vector_add_offbyone_is_out_of_bounds_at_the_end_of_each_buffer():
    x, y, out = _va()
    r = volta.races(T / "add_offbyone.b128.w4.sm80.ptx", volta.Launch(grid=4, block=128, args=[x, y, out, 500, 0, 0]))
    assert r.verdict == "findings"
    assert {(f.kind, f.buffer, f.offset) for f in r.findings} == {
        ("out-of-bounds", "x", 2000), ("out-of-bounds", "y", 2000), ("out-of-bounds", "out", 2000)}
    # the CUDA-side location is the Triton source line (.loc from kernels.py)
    assert any(s.cuda and "kernels.py" in s.cuda for f in r.findings for s in f.sites if s)


def test_null_hidden_pointer_dereference_would_be_a_finding():
    # the hidden pointers are null: passing 0 for `y` (a real pointer) makes its load a finding, not a crash
    x, _, out = _va()
    r = volta.races(T / "add.b128.w4.sm80.ptx", volta.Launch(grid=4, block=128, args=[x, 0, out, 500, 0, 0]))
    assert r.verdict == "findings", r.report()


def _mm():
    return B("A", "f32", 1024, "in"), B("B", "f32", 1024, "in"), B("C", "f32", 1024, "out")


def test_matmul_cp_async_pipeline_is_race_free():
    ptx = (T / "matmul.16x16x16.w4.s2.sm80.ptx").read_text()
    assert "cp.async.ca.shared.global" in ptx and "cp.async.wait_group" in ptx  # num_stages=2 pipelines the K loop
    A, Bm, C = _mm()
    r = volta.races(T / "matmul.16x16x16.w4.s2.sm80.ptx",
                    volta.Launch(grid=(2, 2), block=128, args=[A, Bm, C, 32, 32, 32, 0, 0], shared_dynamic=2048))
    assert r.verdict == "clean", r.report()


def test_matmul_cp_async_is_equivalent_over_the_reals_and_sampled_bits_agree_with_naive_gemm():
    A, Bm, C = _mm()
    ref = volta.Launch(grid=(2, 2), block=(16, 16), args=[A, Bm, C, 32, 32, 32])
    tri = volta.Launch(grid=(2, 2), block=128, args=[A, Bm, C, 32, 32, 32, 0, 0], shared_dynamic=2048)
    real = volta.check(E / "gemm_naive" / "kernel.sm80.ptx", T / "matmul.16x16x16.w4.s2.sm80.ptx", ref, opt_launch=tri)
    assert real.verdict == "equivalent", real.report()   # cp.async stages and ldmatrix words move expressions
    bits = volta.check(E / "gemm_naive" / "kernel.sm80.ptx", T / "matmul.16x16x16.w4.s2.sm80.ptx", ref,
                       opt_launch=tri, fp="ieee", trials=1)
    # same fma order over k: no difference on the inputs tried (sampled, not a proof)
    assert bits.verdict == "no-difference-found", bits.report()


def test_matmul_too_little_dynamic_shared_memory_is_a_finding():
    A, Bm, C = _mm()
    r = volta.races(T / "matmul.16x16x16.w4.s2.sm80.ptx",
                    volta.Launch(grid=(2, 2), block=128, args=[A, Bm, C, 32, 32, 32, 0, 0], shared_dynamic=1024))
    assert r.verdict == "findings" and any(f.kind == "out-of-bounds" for f in r.findings), r.report()


@pytest.mark.slow
def test_layernorm_equivalent_to_cuda_reference_over_the_reals():
    # Triton: one warp per row, tl.sum + 1/tl.sqrt; CUDA: two warps per row, shuffles + shared memory, rsqrtf
    x, g, b, y = B("x", "f32", 128, "in"), B("gamma", "f32", 32, "in"), B("beta", "f32", 32, "in"), B("y", "f32", 128, "out")
    ref = volta.Launch(grid=4, block=64, args=[x, g, b, y, 32, 1e-5])
    tri = volta.Launch(grid=4, block=32, args=[x, g, b, y, 32, 1e-5, 0, 0])
    r = volta.check(E / "layernorm" / "kernel.sm80.ptx", T / "layernorm.b32.w1.sm80.ptx", ref, opt_launch=tri)
    assert r.verdict == "equivalent", r.report()


@pytest.mark.parametrize("file, kernel, shared", [
    ("positive_dot_atomic.b64.w2.sm80.ptx", "positive_dot_atomic_kernel", 0),   # `@p atom` per element, p on data
    ("positive_dot_block.b64.w2.sm80.ptx", "positive_dot_block_kernel", 8),     # tl.where + tl.sum, one atomic
])
def test_masked_dot_atomics_equal_the_sequential_cuda_reference(file, kernel, shared):
    """Triton's tl.atomic_add(mask = x > 0) is a conditional update over the reals (atomics_real.py): both
    forms equal the CUDA `if (a[i] > 0) s += a[i] * b[i]` loop; masking on y instead is NOT EQUIVALENT."""
    a, b, out = B("a", "f32", 256, "in"), B("b", "f32", 256, "in"), B("out", "f32", 1, "out")
    ref = volta.Launch(grid=2, block=32, args=[a, b, out, 256], kernel="positive_dot_seq")
    tri = volta.Launch(grid=4, block=64, args=[a, b, out, 256, 0, 0], kernel=kernel, shared_dynamic=shared)
    cuda = E / "eq_positive_dot_atomic" / "ref.sm80.ptx"
    r = volta.check(cuda, T / file, ref, opt_launch=tri)
    assert r.verdict == "equivalent", r.report()
    wrong = E / "neq_positive_dot_atomic_cond" / "opt.sm80.ptx"
    opt = volta.Launch(grid=2, block=128, args=[a, b, out, 256], kernel="positive_dot_atomic")
    r = volta.check(T / file, wrong, tri, opt_launch=opt)
    assert r.verdict == "not-equivalent", r.report()


# ---- Hopper: tl.dot as wgmma.mma_async (sm_90a) --------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.isolated   # what the symbolic GEMMs intern leaves with the child (the worker reached 2.1 GB)
@pytest.mark.parametrize("file,m,n,grid,shared", [("matmul_f16.64x64x32.w4.s1.sm90a.ptx", 64, 64, (1, 1), 16384),
                                                  ("matmul_f16.64x32x64.w4.s3.sm90a.ptx", 64, 64, (1, 2), 12288)])
def test_wgmma_matmul_is_equivalent_to_a_naive_gemm_and_race_free(file, m, n, grid, shared):
    """64xN f16 -> f32, K = 64: Triton's wgmma (shared operands through swizzled descriptors; tiles staged through
    shared memory, one K step of 32 or 64 a loop trip; num_stages=3 made no cp.async pipeline in this PTX) against
    the naive HGEMM over the reals. The shapes are the smallest that keep every path: one CTA holds a whole BMxBN
    tile, so every accumulator fragment of every warp of the warpgroup is compared; K = 64 is two trips of the
    first kernel's loop (the accumulator carried from one wgmma group to the next) and one of the second's, as
    before; the second runs two CTAs along N (a program id that moves the tile). M = 128 (two CTAs along M,
    taking the same path) doubled the cost."""
    A, Bm, C = B("A", "f16", m * 64, "in"), B("B", "f16", 64 * n, "in"), B("C", "f32", m * n, "out")
    ref = volta.Launch(grid=(n // 16, m // 16), block=(16, 16), args=[A, Bm, C, m, n, 64])
    tri = volta.Launch(grid=grid, block=128, args=[A, Bm, C, m, n, 64, 0, 0], shared_dynamic=shared)
    assert "wgmma.mma_async" in (T / file).read_text()
    r = volta.check(E / "eq_gemm_naive_wmma" / "ref.sm90.ptx", T / file, ref, opt_launch=tri)
    assert r.verdict == "equivalent", r.report()
    assert volta.races(T / file, tri).verdict == "clean"


@pytest.mark.slow   # a wgmma GEMM's check (~13 CPU s)
@pytest.mark.isolated
def test_wgmma_matmul_with_fused_bias_relu_is_equivalent_and_runs_on_the_hopper_row():
    A = B("A", "f16", 8192, "in")
    Bt, bias, D = B("Bt", "f16", 1024, "in"), B("bias", "f32", 16, "in"), B("D", "f32", 2048, "out")
    file = T / "matmul_f16_bias_relu.64x16x32.w4.s2.sm90a.ptx"
    ref = volta.Launch(grid=16, block=128, args=[A, Bt, bias, D])
    tri = volta.Launch(grid=(2, 1), block=128, args=[A, Bt, bias, D, 128, 16, 64, 0, 0], shared_dynamic=5120)
    r = volta.check(E / "eq_gemm_wgmma_bias_relu" / "ref.sm90a.ptx", file, ref, opt_launch=tri)
    assert r.verdict == "equivalent", r.report()
    run = volta.run(file, tri, fp="hopper")
    assert run.verdict == "clean" and "hopper wgmma f16->f32, every ptxas" in run.report()
    a = run.inputs["A"].astype(np.float64).reshape(128, 64)
    bt = run.inputs["Bt"].astype(np.float64).reshape(16, 64)
    want = np.maximum(a @ bt.T + run.inputs["bias"].astype(np.float64), 0)
    assert np.allclose(run.outputs["D"].reshape(128, 16), want, rtol=1e-5, atol=1e-5)
