"""The same host-side statistics with the unbiased variance (var(true)): torch's instance norm divides by the
plane's element count, so this differs."""
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

SOURCE = r"""
#include <torch/extension.h>

__global__ void normalize(const float* x, const float* mu, const float* sigma2, float* y, int plane, int total) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < total) {
        int slot = i / plane;
        y[i] = (x[i] - mu[slot]) * rsqrtf(sigma2[slot] + 1e-5f);
    }
}

torch::Tensor instance_norm_host(torch::Tensor x) {
    int64_t n = x.size(0), c = x.size(1);
    auto mu = torch::empty({n, c}, x.options());
    auto sigma2 = torch::empty({n, c}, x.options());
    for (int64_t i = 0; i < n; ++i) {
        for (int64_t j = 0; j < c; ++j) {
            auto plane = x.index({i, j}).flatten();
            mu.index({i, j}) = plane.mean();
            sigma2.index({i, j}) = plane.VAR_CALL;
        }
    }
    auto y = torch::empty_like(x);
    int total = x.numel(), per = x.size(2) * x.size(3);
    normalize<<<(total + 127) / 128, 128>>>(x.data_ptr<float>(), mu.data_ptr<float>(), sigma2.data_ptr<float>(),
                                           y.data_ptr<float>(), per, total);
    return y;
}
"""

VAR_CALL = "var(true)"

ext = load_inline(name="instance_norm_host_" + VAR_CALL.replace("(", "").replace(")", ""),
                  cpp_sources="torch::Tensor instance_norm_host(torch::Tensor x);",
                  cuda_sources=SOURCE.replace("VAR_CALL", VAR_CALL), functions=["instance_norm_host"])


class ModelNew(nn.Module):
    def __init__(self, num_features: int):
        super().__init__()

    def forward(self, x):
        return ext.instance_norm_host(x)
