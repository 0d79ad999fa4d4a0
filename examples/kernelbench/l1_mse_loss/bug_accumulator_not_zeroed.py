import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

mse_source = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>

// each block reduces its slice in shared memory, then one atomicAdd per block into a zeroed accumulator
__global__ void sq_diff_sum_kernel(const float* __restrict__ p, const float* __restrict__ t, float* __restrict__ acc,
                                   int n) {
    __shared__ float s[256];
    float v = 0.f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        float d = p[i] - t[i];
        v += d * d;
    }
    s[threadIdx.x] = v;
    __syncthreads();
    for (int k = blockDim.x / 2; k > 0; k >>= 1) {
        if (threadIdx.x < k) s[threadIdx.x] += s[threadIdx.x + k];
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(acc, s[0]);
}

torch::Tensor mse(torch::Tensor p, torch::Tensor t) {
    const int n = p.numel();
    auto acc = torch::empty({}, p.options());
    sq_diff_sum_kernel<<<8, 256, 0, at::cuda::getCurrentCUDAStream()>>>(p.data_ptr<float>(), t.data_ptr<float>(),
                                                                       acc.data_ptr<float>(), n);
    return acc / static_cast<double>(n);
}
"""

ext = load_inline(name="mse_atomic_nozero", cpp_sources="torch::Tensor mse(torch::Tensor p, torch::Tensor t);",
                  cuda_sources=mse_source, functions=["mse"])


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, predictions, targets):
        return ext.mse(predictions.contiguous(), targets.contiguous())
