import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

source = r"""
#include <torch/extension.h>

__device__ float stable_softplus(float v) {
    return log1pf(expf(-fabsf(v))) + fmaxf(v, 0.0f);
}

__global__ void mish_kernel(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        y[i] = v * tanhf(stable_softplus(v));
    }
}

torch::Tensor mish(torch::Tensor x) {
    auto y = torch::empty_like(x);
    int n = x.numel();
    mish_kernel<<<(n + 127) / 128, 128>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);
    return y;
}
"""

ext = load_inline(name="eq_stable_softplus", cpp_sources="torch::Tensor mish(torch::Tensor x);", cuda_sources=source,
                  functions=["mish"])


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return ext.mish(x)
