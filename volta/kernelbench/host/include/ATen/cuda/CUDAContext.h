// Volta stand-in: see volta/all.h. As torch's, it brings cuBLAS and the handle torch keeps per stream.
#pragma once
#include "../../volta/all.h"
#include "../../cublas_v2.h"

namespace at {
namespace cuda {
// torch's handle: cuBLAS's default math mode (torch.backends.cuda.matmul.allow_tf32 is off by default)
cublasHandle_t getCurrentCUDABlasHandle();
}  // namespace cuda
}  // namespace at
