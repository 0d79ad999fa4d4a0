"""Gated GELU (GEGLU) with the tanh approximation, forward and backward, as production libraries write it.

`tanh` is libdevice's (`triton.language.extra.libdevice.tanh`): Triton inlines its body (ex2, rcp and bit
operations on the sign), which Volta reads as the function it names (volta/triton_jit.py). Rows of 64 columns
at 4 warps: a replicated layout with no reduction, so replicas only load; the stores are Triton's own
(predicated to one replica).
"""
import torch
import triton
import triton.language as tl
from triton.language.extra.libdevice import tanh


@triton.jit
def _geglu_tanh_fwd(A, B, C, stride, n_cols, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    a = tl.load(A + row * stride + cols, mask=mask, other=0.0)
    b = tl.load(B + row * stride + cols, mask=mask, other=0.0)
    sqrt_2_over_pi = 0.7978845608028654
    inner = sqrt_2_over_pi * (a + 0.044715 * a * a * a)
    gelu_a = 0.5 * a * (1 + tanh(inner))
    tl.store(C + row * stride + cols, gelu_a * b, mask=mask)


@triton.jit
def _geglu_tanh_bwd(DC, A, B, DA, DB, stride, n_cols, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    dc = tl.load(DC + row * stride + cols, mask=mask, other=0.0)
    a = tl.load(A + row * stride + cols, mask=mask, other=0.0)
    b = tl.load(B + row * stride + cols, mask=mask, other=0.0)
    sqrt_2_over_pi = 0.7978845608028654
    a_cubed = a * a * a
    tanh_arg = sqrt_2_over_pi * (a + 0.044715 * a_cubed)
    tanh_result = tanh(tanh_arg)
    gelu_a = 0.5 * a * (1 + tanh_result)
    db = dc * gelu_a
    term1 = 0.5 * (1 + tanh_result)
    tanh_sq = tanh_result * tanh_result
    term2 = 0.5 * a * (1 - tanh_sq) * (sqrt_2_over_pi * (1 + 3 * 0.044715 * a * a))
    da = dc * b * (term1 + term2)
    tl.store(DA + row * stride + cols, da, mask=mask)
    tl.store(DB + row * stride + cols, db, mask=mask)


def _settings(n_cols):
    return triton.next_power_of_2(n_cols), 4


def geglu_fwd(a, b):
    """gelu_tanh(a) * b over rows of the last dimension."""
    shape = a.shape
    a, b = a.view(-1, shape[-1]), b.view(-1, shape[-1])
    n_rows, n_cols = a.shape
    c = torch.empty_like(a)
    BLOCK_SIZE, num_warps = _settings(n_cols)
    _geglu_tanh_fwd[(n_rows,)](a, b, c, c.stride(-2), n_cols, BLOCK_SIZE=BLOCK_SIZE, num_warps=num_warps)
    return c.view(*shape)


def geglu_bwd(dc, a, b):
    """The gradients of gelu_tanh(a) * b with respect to a and b."""
    shape = a.shape
    dc, a, b = dc.view(-1, shape[-1]), a.view(-1, shape[-1]), b.view(-1, shape[-1])
    n_rows, n_cols = dc.shape
    da, db = torch.empty_like(a), torch.empty_like(b)
    BLOCK_SIZE, num_warps = _settings(n_cols)
    _geglu_tanh_bwd[(n_rows,)](dc, a, b, da, db, dc.stride(-2), n_cols, BLOCK_SIZE=BLOCK_SIZE, num_warps=num_warps)
    return da.view(*shape), db.view(*shape)
