import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def gelu_kernel(v_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    v = tl.load(v_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, 0.5 * v * (1.0 + tl.math.erf(v * 0.7071067811865476)), mask=mask)


class ModelNew(nn.Module):
    """torch for the scale and add, Triton for the GELU."""

    def __init__(self, scale):
        super(ModelNew, self).__init__()
        self.scale = scale

    def forward(self, x, y):
        v = x * self.scale + y
        out = torch.empty_like(v)
        n = v.numel()
        gelu_kernel[(triton.cdiv(n, 512),)](v, out, n, BLOCK_SIZE=512, num_warps=4)
        return out
