import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

# cuBLAS is column-major: a row-major C = A B is the column-major C^T = B^T A^T, so B goes first
gemm_source = r"""
#include <torch/extension.h>
#include <cublas_v2.h>

#define CUBLAS_OK(call) TORCH_CHECK((call) == CUBLAS_STATUS_SUCCESS, "cuBLAS call failed: " #call)

torch::Tensor gemm_cuda(torch::Tensor A, torch::Tensor B) {
    TORCH_CHECK(A.is_contiguous() && B.is_contiguous(), "contiguous inputs expected");
    const int m = A.size(0), k = A.size(1), n = B.size(1);
    auto C = torch::empty({m, n}, A.options());
    cublasHandle_t handle;
    CUBLAS_OK(cublasCreate(&handle));
    CUBLAS_OK(cublasSetStream(handle, at::cuda::getCurrentCUDAStream()));
    const float alpha = 1.0f, beta = 0.0f;
    CUBLAS_OK(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &alpha,
                          B.data_ptr<float>(), n, A.data_ptr<float>(), k, &beta, C.data_ptr<float>(), n));
    CUBLAS_OK(cublasDestroy(handle));
    return C;
}
"""

gemm = load_inline(name="gemm_sgemm", cpp_sources="torch::Tensor gemm_cuda(torch::Tensor A, torch::Tensor B);",
                   cuda_sources=gemm_source, functions=["gemm_cuda"], extra_ldflags=["-lcublas"], verbose=False)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A, B):
        return gemm.gemm_cuda(A, B)
