import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

rms_source = """
#include <torch/extension.h>

// one thread per (batch, spatial) position: loop over the features twice
__global__ void rmsnorm_kernel(const float* __restrict__ x, float* __restrict__ y,
                               int B, int F, int S, float eps) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= B * S) return;
    int b = idx / S, s = idx % S;
    const float* xp = x + (size_t)b * F * S + s;
    float sum_sq = 0.0f;
    for (int f = 0; f < F; ++f) {
        float v = xp[(size_t)f * S];
        sum_sq += v * v;
    }
    float inv_rms = rsqrtf(sum_sq / F + eps);
    float* yp = y + (size_t)b * F * S + s;
    for (int f = 0; f < F; ++f) yp[(size_t)f * S] = xp[(size_t)f * S] * inv_rms;
}

torch::Tensor rmsnorm_forward(torch::Tensor x, float eps) {
    const int B = x.size(0), F = x.size(1);
    const int S = x.numel() / (B * F);
    auto y = torch::empty_like(x);
    const int threads = 256;
    rmsnorm_kernel<<<(B * S + threads - 1) / threads, threads>>>(x.data_ptr<float>(), y.data_ptr<float>(), B, F, S, eps);
    return y;
}
"""

rms = load_inline(name="rmsnorm_rsqrt", cpp_sources="torch::Tensor rmsnorm_forward(torch::Tensor x, float eps);",
                  cuda_sources=rms_source, functions=["rmsnorm_forward"])


class ModelNew(nn.Module):
    def __init__(self, num_features: int, eps: float = 1e-5):
        super().__init__()
        self.eps = eps

    def forward(self, x):
        return rms.rmsnorm_forward(x, self.eps)
