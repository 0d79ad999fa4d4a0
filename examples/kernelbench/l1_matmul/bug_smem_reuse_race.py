import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

matmul_cuda_source = """
#include <torch/extension.h>
#include <cuda_runtime.h>
#include <ATen/cuda/CUDAContext.h>

template <typename scalar_t, int TILE>
__global__ void matmul_tiled_kernel(const scalar_t* __restrict__ A, const scalar_t* __restrict__ B,
                                    scalar_t* __restrict__ C, int N) {
    __shared__ scalar_t As[TILE][TILE];
    __shared__ scalar_t Bs[TILE][TILE];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * TILE + ty;
    const int col = blockIdx.x * TILE + tx;
    scalar_t sum = 0;
    for (int t = 0; t < (N + TILE - 1) / TILE; ++t) {
        As[ty][tx] = (row < N && t * TILE + tx < N) ? A[row * N + t * TILE + tx] : scalar_t(0);
        Bs[ty][tx] = (col < N && t * TILE + ty < N) ? B[(t * TILE + ty) * N + col] : scalar_t(0);
        __syncthreads();
        for (int k = 0; k < TILE; ++k) {
            sum += As[ty][k] * Bs[k][tx];
        }
    }
    if (row < N && col < N) C[row * N + col] = sum;
}

template __global__ void matmul_tiled_kernel<float, 16>(const float*, const float*, float*, int);
template __global__ void matmul_tiled_kernel<double, 16>(const double*, const double*, double*, int);

torch::Tensor matmul_cuda(torch::Tensor A, torch::Tensor B) {
    TORCH_CHECK(A.device().is_cuda() && B.device().is_cuda(), "A and B must be CUDA tensors");
    TORCH_CHECK(A.dim() == 2 && B.dim() == 2, "A and B must be 2D");
    TORCH_CHECK(A.size(0) == A.size(1) && A.sizes() == B.sizes(), "square matrices of equal size expected");
    auto Ac = A.contiguous();
    auto Bc = B.contiguous();
    const int N = Ac.size(0);
    auto C = torch::empty({N, N}, Ac.options());
    constexpr int TILE = 16;
    dim3 threads(TILE, TILE);
    dim3 blocks((N + TILE - 1) / TILE, (N + TILE - 1) / TILE);
    auto stream = at::cuda::getCurrentCUDAStream();
    AT_DISPATCH_FLOATING_TYPES(Ac.scalar_type(), "matmul_cuda", ([&] {
        matmul_tiled_kernel<scalar_t, TILE><<<blocks, threads, 0, stream>>>(
            Ac.data_ptr<scalar_t>(), Bc.data_ptr<scalar_t>(), C.data_ptr<scalar_t>(), N);
    }));
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return C;
}
"""

matmul_cpp_source = "torch::Tensor matmul_cuda(torch::Tensor A, torch::Tensor B);"

matmul = load_inline(
    name="matmul_reuse_race",
    cpp_sources=matmul_cpp_source,
    cuda_sources=matmul_cuda_source,
    functions=["matmul_cuda"],
    verbose=False,
    extra_cflags=["-O3"],
    extra_cuda_cflags=["-O3", "--use_fast_math"],
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.matmul = matmul

    def forward(self, A, B):
        return self.matmul.matmul_cuda(A, B)
