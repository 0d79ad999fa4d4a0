import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

# Row-wise scaling by the weight (honest).
src = r"""
#include <torch/extension.h>
__global__ void scale_kernel(const float* x, const float* w, float* y, int rows, int dim) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < rows * dim) {
        y[i] = x[i] * w[i % dim];
    }
}

torch::Tensor scale(torch::Tensor x, torch::Tensor w) {
    auto y = torch::empty_like(x);
    int dim = x.size(1), rows = x.numel() / dim;
    scale_kernel<<<(rows * dim + 127) / 128, 128>>>(x.data_ptr<float>(), w.data_ptr<float>(),
                                                    y.data_ptr<float>(), rows, dim);
    return y;
}
"""

ext = load_inline(name="hk_scale",
                  cpp_sources="torch::Tensor scale(torch::Tensor x, torch::Tensor w);",
                  cuda_sources=src, functions=["scale"])


class ModelNew(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(dim))

    def forward(self, x):
        return ext.scale(x, self.weight)
