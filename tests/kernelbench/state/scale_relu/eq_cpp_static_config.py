import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

source = """
#include <torch/extension.h>

__global__ void scale_relu_kernel(const float* x, float* y, float factor, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i] * factor;
        y[i] = v > 0.0f ? v : 0.0f;
    }
}

// Honest host state: the launch configuration chosen once and kept in a static.
static int threads = 0;

torch::Tensor scale_relu(torch::Tensor x, double factor) {
    if (threads == 0) {
        threads = 64;
    }
    auto y = torch::empty_like(x);
    int n = x.numel();
    scale_relu_kernel<<<(n + threads - 1) / threads, threads>>>(x.data_ptr<float>(), y.data_ptr<float>(),
                                                                (float)factor, n);
    return y;
}
"""

ext = load_inline(name="state_cpp_config", cpp_sources="torch::Tensor scale_relu(torch::Tensor x, double factor);",
                  cuda_sources=source, functions=["scale_relu"], verbose=False)


class ModelNew(nn.Module):
    def __init__(self, factor):
        super().__init__()
        self.factor = factor

    def forward(self, x):
        return ext.scale_relu(x, self.factor)
