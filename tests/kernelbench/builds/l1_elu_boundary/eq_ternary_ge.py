import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

source = r"""
#include <torch/extension.h>

__global__ void elu_kernel(const float* x, float* y, float alpha, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        y[i] = v >= 0.0f ? v : alpha * (expf(v) - 1.0f);
    }
}

torch::Tensor elu(torch::Tensor x, float alpha) {
    auto y = torch::empty_like(x);
    int n = x.numel();
    elu_kernel<<<(n + 127) / 128, 128>>>(x.data_ptr<float>(), y.data_ptr<float>(), alpha, n);
    return y;
}
"""

ext = load_inline(name="eq_ternary_ge", cpp_sources="torch::Tensor elu(torch::Tensor x, float alpha);", cuda_sources=source,
                  functions=["elu"])


class ModelNew(nn.Module):
    def __init__(self, alpha: float):
        super().__init__()
        self.alpha = alpha

    def forward(self, x):
        return ext.elu(x, self.alpha)
