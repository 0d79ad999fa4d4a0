import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

# each block stages its inputs in dynamic shared memory (extern __shared__, size given at launch)
swish_source = r"""
#include <torch/extension.h>

__global__ void swish_kernel(const float* x, float* y, int n) {
    extern __shared__ float tile[];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    tile[threadIdx.x] = i < n ? x[i] : 0.0f;
    __syncthreads();
    // each thread works on its neighbour's element, so the stage through shared memory matters
    int j = (threadIdx.x + 1) % blockDim.x;
    int out = blockIdx.x * blockDim.x + j;
    if (out < n) y[out] = tile[j] / (1.0f + expf(-tile[j]));
}

torch::Tensor swish_cuda(torch::Tensor x) {
    auto y = torch::empty_like(x);
    const int n = x.numel(), threads = 128;
    swish_kernel<<<(n + threads - 1) / threads, threads, threads * sizeof(float)>>>(
        x.data_ptr<float>(), y.data_ptr<float>(), n);
    return y;
}
"""

swish = load_inline(name="swish_dynamic_shared", cpp_sources="torch::Tensor swish_cuda(torch::Tensor x);",
                    cuda_sources=swish_source, functions=["swish_cuda"], verbose=False)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return swish.swish_cuda(x)
