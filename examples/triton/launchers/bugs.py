"""Launchers and kernels with one defect each, beside the correct ones in norms.py and blocks.py."""
import math

import torch
import triton
import triton.language as tl

from norms import _rms_norm_bwd, _rms_norm_fwd, calculate_settings, layer_norm_fwd, rms_norm_fwd


def rms_norm_train_step_no_reduce(x, w, dy, eps):
    """DEFECT: the launcher returns dW's per-program partial sums without `.sum(0)`."""
    y, rstd = rms_norm_fwd(x, w, eps)
    n_rows, n_cols = x.shape
    sm_count = torch.cuda.get_device_properties(x.device).multi_processor_count
    BLOCK_SIZE, num_warps = calculate_settings(n_cols)
    dx = torch.empty_like(dy)
    _dw = torch.empty((sm_count, n_cols), dtype=torch.float32, device=w.device)
    _rms_norm_bwd[(sm_count,)](dx, dy, _dw, x, w, rstd, x.stride(0), n_rows, n_cols, math.ceil(n_rows / sm_count),
                               BLOCK_SIZE=BLOCK_SIZE, num_warps=num_warps)
    return y, dx, _dw   # DEFECT


def rms_norm_fwd_half_grid(x, w, eps):
    """DEFECT: a grid of n_rows // 2 programs: the last rows are never written."""
    n_rows, n_cols = x.shape
    BLOCK_SIZE, num_warps = calculate_settings(n_cols)
    y = torch.empty_like(x)
    rstd = torch.empty(n_rows, dtype=torch.float32, device=x.device)
    _rms_norm_fwd[(n_rows // 2,)](y, y.stride(0), x, x.stride(0), w, rstd, n_cols, eps,   # DEFECT
                                  BLOCK_SIZE=BLOCK_SIZE, num_warps=num_warps)
    return y, rstd


@triton.jit
def _rms_norm_fwd_block_mean(Y, X, W, Rstd, n_cols, eps, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    x = tl.load(X + row * n_cols + cols, mask=mask, other=0.0)
    rstd = 1.0 / tl.sqrt(tl.sum(x * x, axis=0) / BLOCK_SIZE + eps)   # DEFECT: the block, not the row
    w = tl.load(W + cols, mask=mask, other=0.0)
    tl.store(Y + row * n_cols + cols, x * rstd * w, mask=mask)
    tl.store(Rstd + row, rstd)


def rms_norm_fwd_block_mean(x, w, eps):
    """DEFECT (in the kernel): the mean of squares divides by BLOCK_SIZE, right only when the row fills it."""
    n_rows, n_cols = x.shape
    BLOCK_SIZE, num_warps = calculate_settings(n_cols)
    y = torch.empty_like(x)
    rstd = torch.empty(n_rows, dtype=torch.float32, device=x.device)
    _rms_norm_fwd_block_mean[(n_rows,)](y, x, w, rstd, n_cols, eps, BLOCK_SIZE=BLOCK_SIZE, num_warps=num_warps)
    return y, rstd


@triton.jit
def _shift_left(X, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    nxt = tl.load(X + offs + 1, mask=offs + 1 < n, other=0.0)
    tl.store(X + offs, nxt, mask=offs < n)   # DEFECT: overwrites what a neighbouring thread reads


def shift_left_inplace(x):
    """DEFECT: x[i] = x[i + 1] in place, one element per thread: reads race the neighbours' writes."""
    n = x.numel()
    _shift_left[(triton.cdiv(n, 64),)](x, n, BLOCK=64, num_warps=2)
    return x


@triton.jit
def _layer_norm_bwd_block_mean(DX, DY, DW, DB, X, W, Mean, Rstd, stride, n_rows, n_cols, rows_per_program,
                               BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    dw = tl.zeros((BLOCK_SIZE,), dtype=tl.float32)
    db = tl.zeros((BLOCK_SIZE,), dtype=tl.float32)
    w = tl.load(W + cols, mask=mask, other=0.0)
    for row in range(pid * rows_per_program, min((pid + 1) * rows_per_program, n_rows)):
        x = tl.load(X + row * stride + cols, mask=mask, other=0.0)
        dy = tl.load(DY + row * stride + cols, mask=mask, other=0.0)
        mean = tl.load(Mean + row)
        rstd = tl.load(Rstd + row)
        xhat = tl.where(mask, (x - mean) * rstd, 0.0)
        wdy = w * dy
        c1 = tl.sum(xhat * wdy, axis=0) / BLOCK_SIZE   # DEFECT: the block, not the row
        c2 = tl.sum(wdy, axis=0) / n_cols
        tl.store(DX + row * stride + cols, (wdy - (xhat * c1 + c2)) * rstd, mask=mask)
        dw += dy * xhat
        db += dy
    tl.store(DW + pid * n_cols + cols, dw, mask=mask)
    tl.store(DB + pid * n_cols + cols, db, mask=mask)


def layer_norm_train_step_block_mean(x, w, b, dy, eps):
    """DEFECT (in the backward kernel): the mean of x̂·w·dy divides by BLOCK_SIZE; a row statistic both sides
    compute, which must not be taken for the reference's (cut points propose it by value, never by name)."""
    y, mean, rstd = layer_norm_fwd(x, w, b, eps)
    n_rows, n_cols = x.shape
    sm_count = torch.cuda.get_device_properties(x.device).multi_processor_count
    BLOCK_SIZE, num_warps = calculate_settings(n_cols)
    dx = torch.empty_like(dy)
    _dw = torch.empty((sm_count, n_cols), dtype=torch.float32, device=w.device)
    _db = torch.empty((sm_count, n_cols), dtype=torch.float32, device=w.device)
    _layer_norm_bwd_block_mean[(sm_count,)](dx, dy, _dw, _db, x, w, mean, rstd, x.stride(0), n_rows, n_cols,
                                            math.ceil(n_rows / sm_count), BLOCK_SIZE=BLOCK_SIZE,
                                            num_warps=num_warps)
    return y, dx, _dw.sum(0), _db.sum(0)


@triton.jit
def _softmax_rows_zero_padded(X, Y, stride, n_cols, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    x = tl.load(X + row * stride + cols, mask=mask, other=0.0)   # DEFECT: a padded lane is 0, not -inf
    z = x - tl.max(x, axis=0)
    num = tl.exp(z)
    tl.store(Y + row * stride + cols, num / tl.sum(num, axis=0), mask=mask)


def softmax_rows_zero_padded(x):
    """DEFECT: masked lanes load 0.0, so each adds exp(0 - max) to the row's sum (and 0 may become the max)."""
    n_rows, n_cols = x.shape
    y = torch.empty_like(x)
    _softmax_rows_zero_padded[(n_rows,)](x, y, x.stride(0), n_cols, BLOCK_SIZE=triton.next_power_of_2(n_cols),
                                         num_warps=2)
    return y
