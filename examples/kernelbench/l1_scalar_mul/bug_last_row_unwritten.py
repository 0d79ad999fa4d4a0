import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

source = """
#include <torch/extension.h>

__global__ void scalar_mul_kernel(const float* __restrict__ A, float* __restrict__ C, float s, int M, int N) {
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < M - 1 && col < N) C[row * N + col] = A[row * N + col] * s;
}

torch::Tensor scalar_mul(torch::Tensor A, float s) {
    auto C = torch::empty_like(A);
    const int M = A.size(0), N = A.size(1);
    dim3 block(32, 8);
    dim3 grid((N + block.x - 1) / block.x, (M + block.y - 1) / block.y);
    scalar_mul_kernel<<<grid, block>>>(A.data_ptr<float>(), C.data_ptr<float>(), s, M, N);
    return C;
}
"""

ext = load_inline(name="scalar_mul_lastrow", cpp_sources="torch::Tensor scalar_mul(torch::Tensor A, float s);",
                  cuda_sources=source, functions=["scalar_mul"])


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A, s):
        return ext.scalar_mul(A, s)
