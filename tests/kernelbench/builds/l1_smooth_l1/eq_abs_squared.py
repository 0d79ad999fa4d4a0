"""Each element's loss in a kernel that squares |d| (as torch's own kernel does), the mean by torch in host
code: equal over the reals to d*d/2 inside the quadratic zone."""
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

SOURCE = r"""
#include <torch/extension.h>

__global__ void elementwise_loss(const float* p, const float* t, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float z = fabsf(p[i] - t[i]);
        out[i] = z < 1.0f ? 0.5f * z * z : z - 0.5f;
    }
}

torch::Tensor smooth_l1(torch::Tensor p, torch::Tensor t) {
    auto out = torch::empty_like(p);
    int n = p.numel();
    elementwise_loss<<<(n + 63) / 64, 64>>>(p.data_ptr<float>(), t.data_ptr<float>(), out.data_ptr<float>(), n);
    return torch::mean(out);
}
"""

ext = load_inline(name="smooth_l1_abs_squared", cpp_sources="torch::Tensor smooth_l1(torch::Tensor p, torch::Tensor t);",
                  cuda_sources=SOURCE, functions=["smooth_l1"])


class ModelNew(nn.Module):
    def forward(self, predictions, targets):
        return ext.smooth_l1(predictions, targets)
