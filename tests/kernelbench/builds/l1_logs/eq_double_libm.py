import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

source = r"""
#include <torch/extension.h>
#include <cmath>

__global__ void logs_kernel(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        y[i] = (float)(log1p((double)v) + std::log(v + 1.5) + pow(v, 3) - log2(v + 2.0) * expm1((double)v));
    }
}

torch::Tensor logs(torch::Tensor x) {
    auto y = torch::empty_like(x);
    int n = x.numel();
    logs_kernel<<<(n + 127) / 128, 128>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);
    return y;
}
"""

ext = load_inline(name="eq_double_libm", cpp_sources="torch::Tensor logs(torch::Tensor x);", cuda_sources=source,
                  functions=["logs"])


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return ext.logs(x)
