"""Kernels over 2-D blocks of several rows per program, as libraries write them for narrow rows.

BLOCK_M rows of BLOCK_N columns per program, reduced along axis 1. With 2 x 32 elements per program and 4
warps the block fills half the threads: the other half hold the same rows again (replicated rows), and every
replica writes the reduction's shared-memory slots.
"""
import torch
import triton
import triton.language as tl


@triton.jit
def _rms_norm_rows(Y, X, W, n_rows, n_cols, eps, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
    offs = rows[:, None] * n_cols + cols[None, :]
    x = tl.load(X + offs, mask=mask, other=0.0)
    rstd = 1.0 / tl.sqrt(tl.sum(x * x, axis=1) / n_cols + eps)
    w = tl.load(W + cols, mask=cols < n_cols, other=0.0)
    tl.store(Y + offs, x * rstd[:, None] * w[None, :], mask=mask)


@triton.jit
def _absmax_scale_rows(Y, S, X, n_rows, n_cols, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
    offs = rows[:, None] * n_cols + cols[None, :]
    x = tl.load(X + offs, mask=mask, other=0.0)
    amax = tl.max(tl.abs(x), axis=1)
    tl.store(Y + offs, x / amax[:, None], mask=mask)
    tl.store(S + rows, amax, mask=rows < n_rows)


def rms_norm_rows(x, w, eps):
    n_rows, n_cols = x.shape
    y = torch.empty_like(x)
    BLOCK_M, BLOCK_N = 2, triton.next_power_of_2(n_cols)
    _rms_norm_rows[(triton.cdiv(n_rows, BLOCK_M),)](y, x, w, n_rows, n_cols, eps, BLOCK_M=BLOCK_M,
                                                     BLOCK_N=BLOCK_N, num_warps=4)
    return y


def absmax_scale_rows(x):
    """Each row divided by its largest magnitude, and that scale (a quantizer's first step)."""
    n_rows, n_cols = x.shape
    y = torch.empty_like(x)
    s = torch.empty(n_rows, dtype=x.dtype, device=x.device)
    grid = lambda meta: (triton.cdiv(n_rows, meta["BLOCK_M"]),)  # noqa: E731
    _absmax_scale_rows[grid](y, s, x, n_rows, n_cols, BLOCK_M=2, BLOCK_N=triton.next_power_of_2(n_cols),
                             num_warps=4)
    return y, s
