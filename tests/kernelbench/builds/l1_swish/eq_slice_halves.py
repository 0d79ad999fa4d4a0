import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

# two launches, one per half of the rows, on Tensor::slice views of the input and the output
swish_source = r"""
#include <torch/extension.h>

__global__ void swish_kernel(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] / (1.0f + expf(-x[i]));
}

static void swish_part(torch::Tensor x, torch::Tensor y) {
    const int n = x.numel();
    swish_kernel<<<(n + 63) / 64, 64>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);
}

torch::Tensor swish_cuda(torch::Tensor x) {
    auto y = torch::empty_like(x);
    const int64_t rows = x.size(0), half = rows / 2;
    swish_part(x.slice(0, 0, half), y.slice(0, 0, half));
    swish_part(x.slice(0, half, rows), y.slice(0, half, rows));
    return y;
}
"""

swish = load_inline(name="swish_slices", cpp_sources="torch::Tensor swish_cuda(torch::Tensor x);",
                    cuda_sources=swish_source, functions=["swish_cuda"], verbose=False)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return swish.swish_cuda(x.contiguous())
