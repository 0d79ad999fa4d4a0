import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

# one cublasGemmStridedBatchedEx over the batch, row-major via C^T = B^T A^T, each batch a stride apart
bmm_source = r"""
#include <torch/extension.h>
#include <cublas_v2.h>

static cublasHandle_t g_handle = nullptr;

torch::Tensor bmm_cuda(torch::Tensor A, torch::Tensor B) {
    const int batch = A.size(0), m = A.size(1), k = A.size(2), n = B.size(2);
    auto C = torch::empty({batch, m, n}, A.options());
    if (g_handle == nullptr) TORCH_CHECK(cublasCreate(&g_handle) == CUBLAS_STATUS_SUCCESS, "cublasCreate");
    cublasSetMathMode(g_handle, CUBLAS_DEFAULT_MATH);
    const float alpha = 1.0f, beta = 0.0f;
    auto status = cublasGemmStridedBatchedEx(
        g_handle, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &alpha,
        B.data_ptr<float>(), CUDA_R_32F, n, (long long)k * n,
        A.data_ptr<float>(), CUDA_R_32F, k, (long long)m * k,
        &beta, C.data_ptr<float>(), CUDA_R_32F, n, (long long)m * n,
        batch, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    TORCH_CHECK(status == CUBLAS_STATUS_SUCCESS, "cublasGemmStridedBatchedEx failed: ", cublasGetStatusString(status));
    return C;
}
"""

bmm = load_inline(name="bmm_strided_ex", cpp_sources="torch::Tensor bmm_cuda(torch::Tensor A, torch::Tensor B);",
                  cuda_sources=bmm_source, functions=["bmm_cuda"], verbose=False)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A, B):
        return bmm.bmm_cuda(A.contiguous(), B.contiguous())
