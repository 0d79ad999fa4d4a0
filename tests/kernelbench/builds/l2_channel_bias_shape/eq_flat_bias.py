"""The same bias held flat, as (C,): seeded alike, torch.randn(C) draws the values torch.randn(C, 1, 1) draws,
so the kernel's bias[c] is the reference's bias[c, 0, 0]."""
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

SOURCE = r"""
#include <torch/extension.h>

__global__ void bias_relu(const float* x, const float* b, float* y, int plane, int channels, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = fmaxf(x[i] + b[(i / plane) % channels], 0.0f);
}

torch::Tensor bias_relu_flat(torch::Tensor x, torch::Tensor b) {
    auto y = torch::empty_like(x);
    int n = x.numel();
    bias_relu<<<(n + 63) / 64, 64>>>(x.data_ptr<float>(), b.data_ptr<float>(), y.data_ptr<float>(),
                                     x.size(2) * x.size(3), x.size(1), n);
    return y;
}
"""

ext = load_inline(name="bias_relu_flat", cpp_sources="torch::Tensor bias_relu_flat(torch::Tensor x, torch::Tensor b);",
                  cuda_sources=SOURCE, functions=["bias_relu_flat"])


class ModelNew(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.bias = nn.Parameter(torch.randn(channels))

    def forward(self, x):
        return ext.bias_relu_flat(x, self.bias)
