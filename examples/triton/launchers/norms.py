"""Layer norm and RMS norm, forward and backward, as production Triton libraries write them.

One program per row; BLOCK_SIZE is the next power of two of the row and num_warps comes from it
(`calculate_settings`), so rows of 64 or fewer columns run 4 warps over a block Triton lays out on 2 of them:
the other warps hold the same elements (a replicated layout) and store the same reduction slots. The layer
norm's bias is optional (`b=None`: Triton specialises the pointer away, ref_layer_norm_nobias.py). The backward kernels accumulate
dW (and dB) per program over `rows_per_program` rows into a (programs, n_cols) buffer that torch reduces with
`.sum(0)` after the launch; the number of programs is the device's multiprocessor count.
"""
import math

import torch
import triton
import triton.language as tl


def calculate_settings(n):
    block = triton.next_power_of_2(n)
    if block > 65536:
        raise RuntimeError(f"rows of {n} columns exceed the largest block")
    num_warps = 4
    if block >= 32768:
        num_warps = 32
    elif block >= 8192:
        num_warps = 16
    elif block >= 2048:
        num_warps = 8
    return block, num_warps


@triton.jit
def _layer_norm_fwd(Y, Y_stride, X, X_stride, W, B, Mean, Rstd, n_cols, eps, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    x = tl.load(X + row * X_stride + cols, mask=mask, other=0.0)
    mean = tl.sum(x, axis=0) / n_cols
    xc = tl.where(mask, x - mean, 0.0)
    var = tl.sum(xc * xc, axis=0) / n_cols
    rstd = 1.0 / tl.sqrt(var + eps)
    w = tl.load(W + cols, mask=mask, other=0.0)
    y = xc * rstd * w
    if B is not None:
        y += tl.load(B + cols, mask=mask, other=0.0)
    tl.store(Y + row * Y_stride + cols, y, mask=mask)
    tl.store(Mean + row, mean)
    tl.store(Rstd + row, rstd)


@triton.jit
def _layer_norm_bwd(DX, DY, DW, DB, X, W, Mean, Rstd, stride, n_rows, n_cols, rows_per_program,
                    BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    row_start = pid * rows_per_program
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    dw = tl.zeros((BLOCK_SIZE,), dtype=tl.float32)
    db = tl.zeros((BLOCK_SIZE,), dtype=tl.float32)
    w = tl.load(W + cols, mask=mask, other=0.0)
    for row in range(row_start, min(row_start + rows_per_program, n_rows)):
        x = tl.load(X + row * stride + cols, mask=mask, other=0.0)
        dy = tl.load(DY + row * stride + cols, mask=mask, other=0.0)
        mean = tl.load(Mean + row)
        rstd = tl.load(Rstd + row)
        xhat = tl.where(mask, (x - mean) * rstd, 0.0)
        wdy = w * dy
        c1 = tl.sum(xhat * wdy, axis=0) / n_cols
        c2 = tl.sum(wdy, axis=0) / n_cols
        dx = (wdy - (xhat * c1 + c2)) * rstd
        tl.store(DX + row * stride + cols, dx, mask=mask)
        dw += dy * xhat
        db += dy
    tl.store(DW + pid * n_cols + cols, dw, mask=mask)
    tl.store(DB + pid * n_cols + cols, db, mask=mask)


def layer_norm_fwd(x, w, b, eps):
    """y = (x - mean) / sqrt(var + eps) * w (+ b), over the last dimension; also the saved mean and rstd."""
    shape = x.shape
    x = x.view(-1, shape[-1])
    n_rows, n_cols = x.shape
    BLOCK_SIZE, num_warps = calculate_settings(n_cols)
    y = torch.empty_like(x)
    mean = torch.empty(n_rows, dtype=torch.float32, device=x.device)
    rstd = torch.empty(n_rows, dtype=torch.float32, device=x.device)
    _layer_norm_fwd[(n_rows,)](y, y.stride(0), x, x.stride(0), w, b, mean, rstd, n_cols, eps,
                               BLOCK_SIZE=BLOCK_SIZE, num_warps=num_warps)
    return y.view(*shape), mean, rstd


def layer_norm_bwd(dy, x, w, mean, rstd):
    """dx, dw, db of the layer norm given the forward's saved mean and rstd: per-program partial sums of dw
    and db, reduced in torch."""
    n_rows, n_cols = x.shape
    sm_count = torch.cuda.get_device_properties(x.device).multi_processor_count
    BLOCK_SIZE, num_warps = calculate_settings(n_cols)
    dx = torch.empty_like(dy)
    _dw = torch.empty((sm_count, n_cols), dtype=torch.float32, device=w.device)
    _db = torch.empty((sm_count, n_cols), dtype=torch.float32, device=w.device)
    rows_per_program = math.ceil(n_rows / sm_count)
    _layer_norm_bwd[(sm_count,)](dx, dy, _dw, _db, x, w, mean, rstd, x.stride(0), n_rows, n_cols,
                                 rows_per_program, BLOCK_SIZE=BLOCK_SIZE, num_warps=num_warps)
    return dx, _dw.sum(0), _db.sum(0)


def layer_norm_train_step(x, w, b, dy, eps):
    """Forward then backward, as autograd would run them: the gradients of the layer norm at x."""
    y, mean, rstd = layer_norm_fwd(x, w, b, eps)
    return (y,) + layer_norm_bwd(dy, x, w, mean, rstd)


@triton.jit
def _rms_norm_fwd(Y, Y_stride, X, X_stride, W, Rstd, n_cols, eps, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    x = tl.load(X + row * X_stride + cols, mask=mask, other=0.0)
    rstd = 1.0 / tl.sqrt(tl.sum(x * x, axis=0) / n_cols + eps)
    w = tl.load(W + cols, mask=mask, other=0.0)
    tl.store(Y + row * Y_stride + cols, x * rstd * w, mask=mask)
    tl.store(Rstd + row, rstd)


@triton.jit
def _rms_norm_bwd(DX, DY, DW, X, W, Rstd, stride, n_rows, n_cols, rows_per_program, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    row_start = pid * rows_per_program
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    dw = tl.zeros((BLOCK_SIZE,), dtype=tl.float32)
    w = tl.load(W + cols, mask=mask, other=0.0)
    for row in range(row_start, min(row_start + rows_per_program, n_rows)):
        x = tl.load(X + row * stride + cols, mask=mask, other=0.0)
        dy = tl.load(DY + row * stride + cols, mask=mask, other=0.0)
        rstd = tl.load(Rstd + row)
        m = dy * w
        dx = rstd * m - rstd * rstd * rstd / n_cols * tl.sum(m * x, axis=0) * x
        tl.store(DX + row * stride + cols, dx, mask=mask)
        dw += dy * x * rstd
    tl.store(DW + pid * n_cols + cols, dw, mask=mask)


def rms_norm_fwd(x, w, eps):
    """y = x / sqrt(mean(x^2) + eps) * w over the last dimension; also the saved rstd."""
    shape = x.shape
    x = x.view(-1, shape[-1])
    n_rows, n_cols = x.shape
    BLOCK_SIZE, num_warps = calculate_settings(n_cols)
    y = torch.empty_like(x)
    rstd = torch.empty(n_rows, dtype=torch.float32, device=x.device)
    _rms_norm_fwd[(n_rows,)](y, y.stride(0), x, x.stride(0), w, rstd, n_cols, eps,
                             BLOCK_SIZE=BLOCK_SIZE, num_warps=num_warps)
    return y.view(*shape), rstd


def rms_norm_bwd(dy, x, w, rstd):
    """dx and dw of the RMS norm given the forward's saved rstd; dw's per-program partial sums reduced in torch."""
    n_rows, n_cols = x.shape
    sm_count = torch.cuda.get_device_properties(x.device).multi_processor_count
    BLOCK_SIZE, num_warps = calculate_settings(n_cols)
    dx = torch.empty_like(dy)
    _dw = torch.empty((sm_count, n_cols), dtype=torch.float32, device=w.device)
    rows_per_program = math.ceil(n_rows / sm_count)
    _rms_norm_bwd[(sm_count,)](dx, dy, _dw, x, w, rstd, x.stride(0), n_rows, n_cols, rows_per_program,
                               BLOCK_SIZE=BLOCK_SIZE, num_warps=num_warps)
    return dx, _dw.sum(0)


def rms_norm_train_step(x, w, dy, eps):
    """Forward then backward: y and the gradients of the RMS norm at x."""
    y, rstd = rms_norm_fwd(x, w, eps)
    return (y,) + rms_norm_bwd(dy, x, w, rstd)
