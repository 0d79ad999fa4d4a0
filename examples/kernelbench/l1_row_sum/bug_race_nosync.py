import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

row_sum_source = r"""
#include <torch/extension.h>
#include <cuda_runtime.h>

#define WARP_SIZE 32

__inline__ __device__ float warp_reduce_sum(float val) {
    for (int offset = WARP_SIZE / 2; offset > 0; offset /= 2) {
        val += __shfl_down_sync(0xffffffff, val, offset);
    }
    return val;
}

// one block per row; each thread strides over the row, then warps reduce, then warp 0 reduces the warp sums
__global__ void row_sum_kernel(const float* __restrict__ x, float* __restrict__ out, int cols) {
    extern __shared__ float warp_sums[];
    const int row = blockIdx.x;
    const float* row_ptr = x + (size_t)row * cols;
    float sum = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        sum += row_ptr[c];
    }
    sum = warp_reduce_sum(sum);
    const int lane = threadIdx.x % WARP_SIZE;
    const int warp = threadIdx.x / WARP_SIZE;
    if (lane == 0) warp_sums[warp] = sum;
    const int num_warps = blockDim.x / WARP_SIZE;
    if (warp == 0) {
        sum = (lane < num_warps) ? warp_sums[lane] : 0.0f;
        sum = warp_reduce_sum(sum);
        if (lane == 0) out[row] = sum;
    }
}

torch::Tensor row_sum_cuda(torch::Tensor x) {
    TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
    TORCH_CHECK(x.dim() == 2, "x must be 2D");
    auto xc = x.contiguous();
    const int rows = xc.size(0);
    const int cols = xc.size(1);
    auto out = torch::empty({rows, 1}, xc.options());
    const int threads = 256;
    const size_t smem = (threads / WARP_SIZE) * sizeof(float);
    row_sum_kernel<<<rows, threads, smem, at::cuda::getCurrentCUDAStream()>>>(
        xc.data_ptr<float>(), out.data_ptr<float>(), cols);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return out;
}
"""

row_sum_cpp = "torch::Tensor row_sum_cuda(torch::Tensor x);"

row_sum = load_inline(
    name="row_sum_nosync",
    cpp_sources=row_sum_cpp,
    cuda_sources=row_sum_source,
    functions=["row_sum_cuda"],
    verbose=False,
    extra_cuda_cflags=["-O3"],
)


class ModelNew(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.dim = dim
        self.row_sum = row_sum

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.row_sum.row_sum_cuda(x)
