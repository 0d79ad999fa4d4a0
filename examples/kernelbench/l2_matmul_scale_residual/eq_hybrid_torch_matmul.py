import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.cpp_extension import load_inline

# The GEMM stays in torch (F.linear); the elementwise tail (scale, residual, clamp) is one fused kernel.
fused_source = """
#include <torch/extension.h>

__global__ void scale_residual_clamp_kernel(const float* __restrict__ x, float* __restrict__ y, float scale,
                                            float lo, float hi, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        y[i] = fminf(fmaxf(v * scale + v, lo), hi);
    }
}

torch::Tensor scale_residual_clamp(torch::Tensor x, double scale, double lo, double hi) {
    auto y = torch::empty_like(x);
    int n = x.numel();
    scale_residual_clamp_kernel<<<(n + 255) / 256, 256>>>(x.data_ptr<float>(), y.data_ptr<float>(),
                                                          (float)scale, (float)lo, (float)hi, n);
    return y;
}
"""

fused = load_inline(name="scale_residual_clamp",
                    cpp_sources="torch::Tensor scale_residual_clamp(torch::Tensor x, double scale, double lo, double hi);",
                    cuda_sources=fused_source, functions=["scale_residual_clamp"])


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features, scaling_factor):
        super(ModelNew, self).__init__()
        self.matmul = nn.Linear(in_features, out_features)
        self.scaling_factor = scaling_factor

    def forward(self, x):
        x = F.linear(x, self.matmul.weight, self.matmul.bias)
        return fused.scale_residual_clamp(x, self.scaling_factor, -1.0, 1.0)
