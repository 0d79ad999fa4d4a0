import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

source = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include <cuda_runtime.h>

// kernel 1: h[b, j] = sigmoid(x[b, :] . w[j, :] + bias[j]), one thread per output
__global__ void linear_sigmoid_kernel(const float* __restrict__ x, const float* __restrict__ w,
                                      const float* __restrict__ bias, float* __restrict__ h,
                                      int batch, int in_f, int out_f) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= batch * out_f) return;
    int b = idx / out_f, j = idx % out_f;
    float acc = bias[j];
    for (int k = 0; k < in_f; ++k) acc += x[b * in_f + k] * w[j * in_f + k];
    h[idx] = 1.0f / (1.0f + __expf(acc));
}

// kernel 2: out[b] = sum_j h[b, j], one warp per row (shuffle reduction)
__global__ void row_sum_warp_kernel(const float* __restrict__ h, float* __restrict__ out, int batch, int out_f) {
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x % 32;
    if (warp >= batch) return;
    float s = 0.0f;
    for (int j = lane; j < out_f; j += 32) s += h[warp * out_f + j];
    for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffff, s, o);
    if (lane == 0) out[warp] = s;
}

torch::Tensor fused_forward(torch::Tensor x, torch::Tensor w, torch::Tensor bias) {
    TORCH_CHECK(x.is_cuda(), "x must be CUDA");
    const at::cuda::OptionalCUDAGuard guard(device_of(x));
    const int batch = x.size(0), in_f = x.size(1), out_f = w.size(0);
    auto h = torch::empty({batch, out_f}, x.options());
    auto out = torch::empty({batch, 1}, x.options());

    // run both kernels on a side stream, then make the caller's stream wait for it
    cudaStream_t caller = at::cuda::getCurrentCUDAStream();
    at::cuda::CUDAStream side = at::cuda::getStreamFromPool();
    cudaEvent_t ready, done;
    cudaEventCreateWithFlags(&ready, cudaEventDisableTiming);
    cudaEventCreateWithFlags(&done, cudaEventDisableTiming);
    cudaEventRecord(ready, caller);
    cudaStreamWaitEvent(side.stream(), ready, 0);

    const int threads = 128;
    linear_sigmoid_kernel<<<(batch * out_f + threads - 1) / threads, threads, 0, side.stream()>>>(
        x.data_ptr<float>(), w.data_ptr<float>(), bias.data_ptr<float>(), h.data_ptr<float>(), batch, in_f, out_f);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    const int warps_per_block = 4;
    row_sum_warp_kernel<<<(batch + warps_per_block - 1) / warps_per_block, warps_per_block * 32, 0, side.stream()>>>(
        h.data_ptr<float>(), out.data_ptr<float>(), batch, out_f);
    C10_CUDA_KERNEL_LAUNCH_CHECK();

    cudaEventRecord(done, side.stream());
    cudaStreamWaitEvent(caller, done, 0);
    cudaEventDestroy(ready);
    cudaEventDestroy(done);
    return out;
}
"""

ext = load_inline(
    name="gemm_sigmoid_sign",
    cpp_sources="torch::Tensor fused_forward(torch::Tensor x, torch::Tensor w, torch::Tensor bias);",
    cuda_sources=source,
    functions=["fused_forward"],
    extra_cuda_cflags=["-O3", "--use_fast_math"],
)


class ModelNew(nn.Module):
    def __init__(self, input_size, hidden_size):
        super(ModelNew, self).__init__()
        self.linear = nn.Linear(input_size, hidden_size)

    def forward(self, x):
        return ext.fused_forward(x, self.linear.weight, self.linear.bias)
