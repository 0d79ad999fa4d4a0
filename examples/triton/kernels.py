"""Triton kernels whose PTX (Triton 3.x, sm_80, compiled without a GPU) the tests check.

Triton's reductions end each warp's butterfly with an unpredicated `st.shared` by all 32 lanes to
one address: defined behaviour (one write lands) that Volta must not call a race.
Regenerate the PTX with `python examples/triton/regenerate.py` (needs `pip install triton`).
"""
import triton
import triton.language as tl


@triton.jit
def rowsum_kernel(out_ptr, in_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < n_cols
    x = tl.load(in_ptr + row * n_cols + offs, mask=mask, other=0.0)
    tl.store(out_ptr + row, tl.sum(x, axis=0))


@triton.jit
def softmax_kernel(out_ptr, in_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < n_cols
    x = tl.load(in_ptr + row * n_cols + offs, mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    tl.store(out_ptr + row * n_cols + offs, num / tl.sum(num, axis=0), mask=mask)


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    """out = x + y, the arguments of examples/vector_add/kernel.cu."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


@triton.jit
def add_kernel_offbyone(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    """add_kernel with the bound check `offs <= n`: one element past the end."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs <= n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


@triton.jit
def layernorm_kernel(x_ptr, gamma_ptr, beta_ptr, y_ptr, cols, eps, BLOCK: tl.constexpr):
    """The arguments of examples/layernorm/kernel.cu: one program per row."""
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < cols
    x = tl.load(x_ptr + row * cols + offs, mask=mask, other=0.0)
    mean = tl.sum(x, axis=0) / cols
    d = tl.where(mask, x - mean, 0.0)
    var = tl.sum(d * d, axis=0) / cols
    rstd = 1.0 / tl.sqrt(var + eps)
    g = tl.load(gamma_ptr + offs, mask=mask)
    b = tl.load(beta_ptr + offs, mask=mask)
    tl.store(y_ptr + row * cols + offs, d * rstd * g + b, mask=mask)


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    """C = A @ B, row-major, the arguments of examples/gemm_naive/kernel.cu; a K loop that num_stages >= 2
    pipelines with cp.async (fp32 inputs, input_precision="ieee": no TF32 rounding)."""
    pm, pn = tl.program_id(0), tl.program_id(1)
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :], mask=(rm[:, None] < M) & ((k + rk)[None, :] < K),
                    other=0.0)
        b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :], mask=((k + rk)[:, None] < K) & (rn[None, :] < N),
                    other=0.0)
        acc += tl.dot(a, b, input_precision="ieee")
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def matmul_f16_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    """C (fp32) = A (fp16) @ B (fp16) on tensor cores (mma.sync), K loop pipelined with cp.async."""
    pm, pn = tl.program_id(0), tl.program_id(1)
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
        b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :])
        acc += tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)


@triton.jit
def rmsnorm_kernel(x_ptr, w_ptr, y_ptr, cols, eps, BLOCK: tl.constexpr):
    """y = x / sqrt(mean(x^2) + eps) * w, one program per row."""
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < cols
    x = tl.load(x_ptr + row * cols + offs, mask=mask, other=0.0)
    rstd = 1.0 / tl.sqrt(tl.sum(x * x, axis=0) / cols + eps)
    w = tl.load(w_ptr + offs, mask=mask)
    tl.store(y_ptr + row * cols + offs, x * rstd * w, mask=mask)


@triton.jit
def splitk_matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                         SPLIT_K: tl.constexpr):
    """C = A @ B on tensor cores (fp32 inputs as TF32, mma.sync m16n8k8), row-major, K divisible by
    SPLIT_K * BK. Deterministic split-K: SPLIT_K partial products, each its own accumulation chain from
    zero over a contiguous K range, added in order — another chain than one loop over all of K."""
    pm, pn = tl.program_id(0), tl.program_id(1)
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for s in tl.static_range(SPLIT_K):
        part = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(s * (K // SPLIT_K), (s + 1) * (K // SPLIT_K), BK):
            a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
            b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :])
            part += tl.dot(a, b, input_precision="tf32")
        acc += part
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)


@triton.jit
def positive_dot_atomic_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    """out[0] += x[i] * y[i] where x[i] > 0: one atomic per element, predicated on the data (`@p atom`)."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    y = tl.load(y_ptr + offs, mask=m, other=0.0)
    tl.atomic_add(out_ptr + offs * 0, x * y, mask=m & (x > 0))


@triton.jit
def positive_dot_block_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    """The same masked dot product as a block sum of tl.where(x > 0, x * y, 0), one atomic per program."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    y = tl.load(y_ptr + offs, mask=m, other=0.0)
    tl.atomic_add(out_ptr, tl.sum(tl.where(x > 0, x * y, 0.0), axis=0))


@triton.jit
def matmul_f16_bias_relu_kernel(a_ptr, bt_ptr, bias_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr,
                                BK: tl.constexpr):
    """C (fp32) = relu(A (fp16) @ B + bias), B given as Bt (N x K, K-major) and the bias and ReLU fused into the
    epilogue: the arguments of examples/eq_gemm_wgmma_bias_relu/ref.cu (wgmma at sm_90)."""
    pm, pn = tl.program_id(0), tl.program_id(1)
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
        b = tl.load(bt_ptr + rn[None, :] * K + (k + rk)[:, None])
        acc += tl.dot(a, b)
    acc = tl.maximum(acc + tl.load(bias_ptr + rn)[None, :], 0.0)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)
