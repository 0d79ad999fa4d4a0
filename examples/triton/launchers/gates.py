"""SwiGLU and row softmax as production Triton libraries write them: `tl.sigmoid` and `tl.exp`.

Triton lowers both to `ex2.approx` of the argument times RN(log2 e) or RN(-log2 e) (`0fBFB8AA3B`), and
`tl.sigmoid` to `1 / (1 + exp(-x))` with `div.full`. Over the reals those literals are log2 e (volta/symbolic/
constants.py), so the launchers equal their torch references exactly; read as the rationals they are, every
such kernel would differ from `F.silu` or `torch.softmax` in the eighth digit.
Softmax rows are masked with `other=-inf`: a padded lane then adds exp(-inf) = 0 to the row's sum.
"""
import torch
import triton
import triton.language as tl


@triton.jit
def _silu(x):
    return x * tl.sigmoid(x)


@triton.jit
def _swiglu_fwd(A, B, C, stride, n_cols, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    a = tl.load(A + row * stride + cols, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(B + row * stride + cols, mask=mask, other=0.0)
    tl.store(C + row * stride + cols, _silu(a) * b, mask=mask)


@triton.jit
def _softmax_rows(X, Y, stride, n_cols, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    x = tl.load(X + row * stride + cols, mask=mask, other=-float("inf"))
    z = x - tl.max(x, axis=0)
    num = tl.exp(z)
    tl.store(Y + row * stride + cols, num / tl.sum(num, axis=0), mask=mask)


def swiglu_fwd(a, b):
    """silu(a) * b over rows of the last dimension."""
    shape = a.shape
    a, b = a.view(-1, shape[-1]), b.view(-1, shape[-1])
    c = torch.empty_like(a)
    n_rows, n_cols = a.shape
    _swiglu_fwd[(n_rows,)](a, b, c, c.stride(-2), n_cols, BLOCK_SIZE=triton.next_power_of_2(n_cols), num_warps=4)
    return c.view(*shape)


def softmax_rows(x):
    """softmax over the last dimension, one program per row."""
    n_rows, n_cols = x.shape
    y = torch.empty_like(x)
    _softmax_rows[(n_rows,)](x, y, x.stride(0), n_cols, BLOCK_SIZE=triton.next_power_of_2(n_cols), num_warps=2)
    return y
