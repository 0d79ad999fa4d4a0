import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

source = r"""
#include <torch/extension.h>
#include <cfloat>

__global__ void row_max_kernel(const float* x, float* y, int rows, int cols) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < rows) {
        float best = -1e38f;
        for (int c = 0; c < cols; ++c) {
            best = fmaxf(best, x[r * cols + c]);
        }
        y[r] = best;
    }
}

torch::Tensor row_max(torch::Tensor x) {
    int rows = x.size(0), cols = x.size(1);
    auto y = torch::empty({rows}, x.options());
    row_max_kernel<<<(rows + 63) / 64, 64>>>(x.data_ptr<float>(), y.data_ptr<float>(), rows, cols);
    return y;
}
"""

ext = load_inline(name="neq_sentinel_1e38", cpp_sources="torch::Tensor row_max(torch::Tensor x);", cuda_sources=source,
                  functions=["row_max"])


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return ext.row_max(x)
