import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def bias_relu_kernel(y_ptr, b_ptr, out_ptr, M, N, stride_ym, stride_om, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    y = tl.load(y_ptr + rm[:, None] * stride_ym + rn[None, :], mask=mask, other=0.0)
    b = tl.load(b_ptr + rn, mask=rn < N, other=0.0)
    tl.store(out_ptr + rm[:, None] * stride_om + rn[None, :], tl.maximum(y + b[None, :], 0.0), mask=mask)


class ModelNew(nn.Module):
    """The GEMM in torch (x @ W^T), the bias and ReLU fused in one Triton kernel."""

    def __init__(self, in_features, out_features):
        super(ModelNew, self).__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x):
        y = torch.matmul(x, self.linear.weight.t()).contiguous()
        M, N = y.shape
        out = torch.empty_like(y)
        grid = (triton.cdiv(M, 16), triton.cdiv(N, 32))
        bias_relu_kernel[grid](y, self.linear.bias, out, M, N, y.stride(0), out.stride(0), BLOCK_M=16, BLOCK_N=32)
        return out
