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
        y[i] = logf(v) + logf(v + 1.5f) + powf(v, 3.0f) - log2f(v + 2.0f) * expm1f(v);
    }
}

torch::Tensor logs(torch::Tensor x) {
    auto y = torch::empty_like(x);
    int n = x.numel();
    logs_kernel<<<(n + 127) / 128, 128>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);
    return y;
}
"""

ext = load_inline(name="neq_log_for_log1p", cpp_sources="torch::Tensor logs(torch::Tensor x);", cuda_sources=source,
                  functions=["logs"])


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return ext.logs(x)
