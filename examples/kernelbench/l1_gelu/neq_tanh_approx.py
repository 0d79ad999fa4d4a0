import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

# the tanh approximation of GELU (what F.gelu(approximate="tanh") computes) in place of the exact erf form
gelu_source = r"""
#include <torch/extension.h>

__global__ void gelu_tanh_kernel(const float* __restrict__ x, float* __restrict__ y, int64_t n) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i < n) {
        const float v = x[i];
        const float k0 = 0.7978845608028654f;   // sqrt(2 / pi)
        const float k1 = 0.044715f;
        y[i] = 0.5f * v * (1.0f + tanhf(k0 * (v + k1 * v * v * v)));
    }
}

torch::Tensor gelu_forward(torch::Tensor x) {
    auto y = torch::empty_like(x);
    int64_t n = x.numel();
    gelu_tanh_kernel<<<(n + 511) / 512, 512>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);
    return y;
}
"""

gelu_module = load_inline(name="gelu_tanh", cpp_sources="torch::Tensor gelu_forward(torch::Tensor x);",
                          cuda_sources=gelu_source, functions=["gelu_forward"])


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return gelu_module.gelu_forward(x)
