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
