import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

# one block per row: block sum in shared memory, the mean broadcast through shared memory, then x - mean, ReLU
source = r"""
#include <torch/extension.h>

constexpr int THREADS = 128;

__global__ void sub_mean_relu_kernel(const float* __restrict__ x, float* __restrict__ y, int cols) {
    __shared__ float sums[THREADS];
    __shared__ float mean;
    const float* row = x + (size_t)blockIdx.x * cols;
    float* out = y + (size_t)blockIdx.x * cols;
    float s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += THREADS) s += row[c];
    sums[threadIdx.x] = s;
    __syncthreads();
    for (int step = THREADS / 2; step > 0; step >>= 1) {
        if (threadIdx.x < step) sums[threadIdx.x] += sums[threadIdx.x + step];
        __syncthreads();
    }
    if (threadIdx.x == 0) mean = sums[0] / cols;
    // BUG: no __syncthreads() here: the other threads read `mean` before thread 0 has written it
    for (int c = threadIdx.x; c < cols; c += THREADS) out[c] = fmaxf(row[c] - mean, 0.0f);
}

torch::Tensor sub_mean_relu(torch::Tensor x) {
    TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
    TORCH_CHECK(x.dim() == 2, "x must be 2-D");
    auto xc = x.contiguous();
    auto y = torch::empty_like(xc);
    sub_mean_relu_kernel<<<xc.size(0), THREADS>>>(xc.data_ptr<float>(), y.data_ptr<float>(), (int)xc.size(1));
    return y;
}
"""

ext = load_inline(name="sub_mean_relu_nosync", cpp_sources="torch::Tensor sub_mean_relu(torch::Tensor x);",
                  cuda_sources=source, functions=["sub_mean_relu"])


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()

    def forward(self, x):
        return ext.sub_mean_relu(x)
