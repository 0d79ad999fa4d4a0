import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

source = """
#include <torch/extension.h>

__global__ void leaky_kernel(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        y[i] = v > 0.0f ? v : 0.25f * v;
    }
}

torch::Tensor leaky(torch::Tensor x) {
    auto y = torch::empty_like(x);
    int n = x.numel();
    leaky_kernel<<<(n + 255) / 256, 256>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);
    return y;
}
"""

ext = load_inline(name="integrity_leaky", cpp_sources="torch::Tensor leaky(torch::Tensor x);",
                  cuda_sources=source, functions=["leaky"], verbose=False)


class ModelNew(nn.Module):
    """The honest control of the kernel attacks: the leaky ReLU in a CUDA kernel."""

    def forward(self, x):
        return ext.leaky(x)
