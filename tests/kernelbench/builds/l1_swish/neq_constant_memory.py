import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

# the constant in __constant__ memory set to 2 instead of 1: the kernel reads what the host wrote
swish_source = r"""
#include <torch/extension.h>

__constant__ float c_one;
__constant__ int c_n;

__global__ void swish_kernel(const float* x, float* y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < c_n) y[i] = x[i] / (c_one + expf(-x[i]));
}

torch::Tensor swish_cuda(torch::Tensor x) {
    auto y = torch::empty_like(x);
    const float one = ONE_VALUE;
    const int n = x.numel();
    C10_CUDA_CHECK(cudaMemcpyToSymbol(c_one, &one, sizeof(float)));
    C10_CUDA_CHECK(cudaMemcpyToSymbol(c_n, &n, sizeof(int)));
    swish_kernel<<<(n + 255) / 256, 256>>>(x.data_ptr<float>(), y.data_ptr<float>());
    return y;
}
""".replace("ONE_VALUE", "2.0f")

swish = load_inline(name="swish_constant_two", cpp_sources="torch::Tensor swish_cuda(torch::Tensor x);",
                    cuda_sources=swish_source, functions=["swish_cuda"], verbose=False)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return swish.swish_cuda(x)
