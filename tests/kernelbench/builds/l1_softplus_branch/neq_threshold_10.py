import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

source = r"""
#include <torch/extension.h>

__global__ void softplus_kernel(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        if (v > 10.0f) {
            y[i] = v;
        } else {
            y[i] = log1pf(expf(v));
        }
    }
}

torch::Tensor softplus(torch::Tensor x) {
    auto y = torch::empty_like(x);
    int n = x.numel();
    softplus_kernel<<<(n + 127) / 128, 128>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);
    return y;
}
"""

ext = load_inline(name="neq_threshold_10", cpp_sources="torch::Tensor softplus(torch::Tensor x);", cuda_sources=source,
                  functions=["softplus"])


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return ext.softplus(x)
