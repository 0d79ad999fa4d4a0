import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

# host code computes the linear layer with torch::addmm, then one kernel applies swish and the extra bias
src = r"""
#include <torch/extension.h>

__global__ void swish_bias_kernel(const float* __restrict__ h, const float* __restrict__ bias, float* __restrict__ y,
                                  int rows, int cols) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y;
    if (c < cols) {
        float v = h[r * cols + c];
        y[r * cols + c] = v / (1.0f + expf(-v)) + bias[r];   // bias indexed by row
    }
}

torch::Tensor linear_swish_bias(torch::Tensor x, torch::Tensor w, torch::Tensor b, torch::Tensor extra) {
    auto h = torch::addmm(b, x, w.t());
    auto y = torch::empty_like(h);
    const int rows = h.size(0), cols = h.size(1);
    swish_bias_kernel<<<dim3((cols + 127) / 128, rows), 128>>>(h.data_ptr<float>(), extra.data_ptr<float>(),
                                                               y.data_ptr<float>(), rows, cols);
    return y;
}
"""

ext = load_inline(name="linear_swish_bias_row",
                  cpp_sources="torch::Tensor linear_swish_bias(torch::Tensor x, torch::Tensor w, torch::Tensor b, torch::Tensor extra);",
                  cuda_sources=src, functions=["linear_swish_bias"])


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features, bias_shape):
        super().__init__()
        self.matmul = nn.Linear(in_features, out_features)
        self.bias = nn.Parameter(torch.randn(bias_shape))

    def forward(self, x):
        return ext.linear_swish_bias(x, self.matmul.weight, self.matmul.bias, self.bias)
