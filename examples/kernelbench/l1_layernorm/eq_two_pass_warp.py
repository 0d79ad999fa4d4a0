import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

ln_source = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>

__device__ __forceinline__ float warp_sum(float v) {
    #pragma unroll
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffff, v, o);
    return v;
}

// one warp per row: mean, then the variance around it, then normalize with the affine parameters
__global__ void layernorm_warp_kernel(const float* __restrict__ x, const float* __restrict__ gamma,
                                      const float* __restrict__ beta, float* __restrict__ y,
                                      int rows, int cols, float eps) {
    const int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    const int lane = threadIdx.x & 31;
    if (row >= rows) return;
    const float* xr = x + (size_t)row * cols;
    float s = 0.f;
    for (int c = lane; c < cols; c += 32) s += xr[c];
    const float mean = warp_sum(s) / cols;
    float v = 0.f;
    for (int c = lane; c < cols; c += 32) {
        const float d = xr[c] - mean;
        v += d * d;
    }
    const float rstd = rsqrtf(warp_sum(v) / cols + eps);
    for (int c = lane; c < cols; c += 32) {
        y[(size_t)row * cols + c] = (xr[c] - mean) * rstd * gamma[c] + beta[c];
    }
}

torch::Tensor layernorm_forward(torch::Tensor x, torch::Tensor gamma, torch::Tensor beta, double eps) {
    TORCH_CHECK(x.is_contiguous(), "x must be contiguous");
    const int cols = x.size(-1);
    const int rows = x.numel() / cols;
    auto y = torch::empty_like(x);
    const int warps_per_block = 4;
    const int blocks = (rows + warps_per_block - 1) / warps_per_block;
    layernorm_warp_kernel<<<blocks, warps_per_block * 32, 0, at::cuda::getCurrentCUDAStream()>>>(
        x.data_ptr<float>(), gamma.data_ptr<float>(), beta.data_ptr<float>(), y.data_ptr<float>(),
        rows, cols, static_cast<float>(eps));
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return y;
}
"""

ln_ext = load_inline(
    name="layernorm_warp",
    cpp_sources="torch::Tensor layernorm_forward(torch::Tensor x, torch::Tensor gamma, torch::Tensor beta, double eps);",
    cuda_sources=ln_source,
    functions=["layernorm_forward"],
)


class ModelNew(nn.Module):
    def __init__(self, normalized_shape: tuple):
        super().__init__()
        self.ln = nn.LayerNorm(normalized_shape)

    def forward(self, x):
        return ln_ext.layernorm_forward(x, self.ln.weight, self.ln.bias, self.ln.eps)
