// cuBLAS with no GPU: handles keep their stream, math mode and pointer mode; each GEMM is checked as cuBLAS
// checks its arguments (CUBLAS_STATUS_INVALID_VALUE, nothing recorded) and otherwise recorded as a "gemm"
// event with everything that defines the product (column-major operands, transposes, leading dimensions,
// batch strides, alpha and beta read from the host, data and compute types, the math mode) for Volta to
// execute (volta/kernelbench/host/cublas.py).
#include <cstdio>

#include "cublas_v2.h"
#include "runtime.h"

struct cublasContext {
  cudaStream_t stream = nullptr;
  cublasMath_t math = CUBLAS_DEFAULT_MATH;
  cublasPointerMode_t pointer = CUBLAS_POINTER_MODE_HOST;
};

namespace volta {
namespace {
std::string number(double v) {
  if (v != v) return "\"nan\"";
  if (v == 1.0 / 0.0) return "\"inf\"";
  if (v == -1.0 / 0.0) return "\"-inf\"";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

const char* type_name(cudaDataType t) {
  switch (t) {
    case CUDA_R_32F: return "float32";
    case CUDA_R_64F: return "float64";
    case CUDA_R_16F: return "float16";
    case CUDA_R_16BF: return "bfloat16";
    case CUDA_R_8I: return "int8";
    case CUDA_R_32I: return "int32";
    default: return nullptr;
  }
}

// alpha and beta as the compute type reads them from the host
double scalar(const void* p, cublasComputeType_t compute, const char* what) {
  if (p == nullptr) unmodelled(std::string("cuBLAS was given a null ") + what);
  if (is_device_address(p))
    unmodelled(std::string("cuBLAS reads ") + what + " from device memory (CUBLAS_POINTER_MODE_DEVICE)");
  switch (compute) {
    case CUBLAS_COMPUTE_16F:
    case CUBLAS_COMPUTE_16F_PEDANTIC: return double(__half2float(*static_cast<const __half*>(p)));
    case CUBLAS_COMPUTE_64F:
    case CUBLAS_COMPUTE_64F_PEDANTIC: return *static_cast<const double*>(p);
    case CUBLAS_COMPUTE_32I:
    case CUBLAS_COMPUTE_32I_PEDANTIC: return double(*static_cast<const int*>(p));
    default: return double(*static_cast<const float*>(p));
  }
}

struct Gemm {
  const char* call;
  cublasOperation_t ta, tb;
  int m, n, k;
  const void *alpha, *a, *b, *beta;
  void* c;
  int lda, ldb, ldc;
  long long sa, sb, sc;
  int batch;
  cudaDataType at, bt, ct;
  cublasComputeType_t compute;
};

cublasStatus_t record(cublasHandle_t h, const Gemm& g) {
  if (h == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;
  auto rows = [](cublasOperation_t t, int r, int c) { return t == CUBLAS_OP_N ? r : c; };
  if (g.m < 0 || g.n < 0 || g.k < 0 || g.batch < 0 || g.ta < CUBLAS_OP_N || g.ta > CUBLAS_OP_CONJG ||
      g.tb < CUBLAS_OP_N || g.tb > CUBLAS_OP_CONJG || g.lda < std::max(1, rows(g.ta, g.m, g.k)) ||
      g.ldb < std::max(1, rows(g.tb, g.k, g.n)) || g.ldc < std::max(1, g.m))
    return CUBLAS_STATUS_INVALID_VALUE;
  const char *at = type_name(g.at), *bt = type_name(g.bt), *ct = type_name(g.ct);
  if (!at || !bt || !ct) unmodelled(std::string(g.call) + " with a data type Volta does not model");
  double alpha = scalar(g.alpha, g.compute, "alpha"), beta = scalar(g.beta, g.compute, "beta");
  auto op = [](cublasOperation_t t) { return t == CUBLAS_OP_N ? "\"N\"" : t == CUBLAS_OP_T ? "\"T\"" : "\"C\""; };
  auto ptr = [](const void* p) { return std::to_string(reinterpret_cast<uint64_t>(p)); };
  emit(std::string("{\"e\":\"gemm\",\"call\":\"") + g.call + "\",\"transa\":" + op(g.ta) + ",\"transb\":" +
       op(g.tb) + ",\"m\":" + std::to_string(g.m) + ",\"n\":" + std::to_string(g.n) + ",\"k\":" +
       std::to_string(g.k) + ",\"alpha\":" + number(alpha) + ",\"beta\":" + number(beta) + ",\"a\":" + ptr(g.a) +
       ",\"lda\":" + std::to_string(g.lda) + ",\"stride_a\":" + std::to_string(g.sa) + ",\"b\":" + ptr(g.b) +
       ",\"ldb\":" + std::to_string(g.ldb) + ",\"stride_b\":" + std::to_string(g.sb) + ",\"c\":" + ptr(g.c) +
       ",\"ldc\":" + std::to_string(g.ldc) + ",\"stride_c\":" + std::to_string(g.sc) + ",\"batch\":" +
       std::to_string(g.batch) + ",\"a_type\":\"" + at + "\",\"b_type\":\"" + bt + "\",\"c_type\":\"" + ct +
       "\",\"compute\":" + std::to_string(int(g.compute)) + ",\"math\":" + std::to_string(int(h->math)) +
       ",\"stream\":" + std::to_string(stream_id(h->stream)) + "}");
  return CUBLAS_STATUS_SUCCESS;
}
}  // namespace
}  // namespace volta

using volta::Gemm;
using volta::record;

cublasStatus_t cublasCreate(cublasHandle_t* handle) {
  if (handle == nullptr) return CUBLAS_STATUS_INVALID_VALUE;
  *handle = new cublasContext();
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasDestroy(cublasHandle_t h) {
  if (h == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;
  delete h;
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasSetStream(cublasHandle_t h, cudaStream_t s) {
  if (h == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;
  h->stream = s;
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasGetStream(cublasHandle_t h, cudaStream_t* s) {
  if (h == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;
  *s = h->stream;
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasSetMathMode(cublasHandle_t h, cublasMath_t mode) {
  if (h == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;
  h->math = mode;
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasGetMathMode(cublasHandle_t h, cublasMath_t* mode) {
  if (h == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;
  *mode = h->math;
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasSetPointerMode(cublasHandle_t h, cublasPointerMode_t mode) {
  if (h == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;
  h->pointer = mode;
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasGetPointerMode(cublasHandle_t h, cublasPointerMode_t* mode) {
  if (h == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;
  *mode = h->pointer;
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasSetWorkspace(cublasHandle_t h, void*, size_t) {
  return h == nullptr ? CUBLAS_STATUS_NOT_INITIALIZED : CUBLAS_STATUS_SUCCESS;
}
const char* cublasGetStatusName(cublasStatus_t s) {
  switch (s) {
    case CUBLAS_STATUS_SUCCESS: return "CUBLAS_STATUS_SUCCESS";
    case CUBLAS_STATUS_NOT_INITIALIZED: return "CUBLAS_STATUS_NOT_INITIALIZED";
    case CUBLAS_STATUS_INVALID_VALUE: return "CUBLAS_STATUS_INVALID_VALUE";
    case CUBLAS_STATUS_NOT_SUPPORTED: return "CUBLAS_STATUS_NOT_SUPPORTED";
    default: return "CUBLAS_STATUS_INTERNAL_ERROR";
  }
}
const char* cublasGetStatusString(cublasStatus_t s) {
  switch (s) {
    case CUBLAS_STATUS_SUCCESS: return "success";
    case CUBLAS_STATUS_NOT_INITIALIZED: return "the library was not initialized";
    case CUBLAS_STATUS_INVALID_VALUE: return "an invalid numeric value was used as an argument";
    case CUBLAS_STATUS_NOT_SUPPORTED: return "the functionality requested is not supported";
    default: return "an internal operation failed";
  }
}

#define VOLTA_POINTER_CHECK(h) \
  if ((h) != nullptr && (h)->pointer == CUBLAS_POINTER_MODE_DEVICE) \
    volta::unmodelled("cuBLAS with CUBLAS_POINTER_MODE_DEVICE (alpha and beta read from device memory)")

cublasStatus_t cublasSgemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                           const float* alpha, const float* A, int lda, const float* B, int ldb, const float* beta,
                           float* C, int ldc) {
  VOLTA_POINTER_CHECK(h);
  return record(h, Gemm{"cublasSgemm", ta, tb, m, n, k, alpha, A, B, beta, C, lda, ldb, ldc, 0, 0, 0, 1,
                        CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F});
}
cublasStatus_t cublasDgemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                           const double* alpha, const double* A, int lda, const double* B, int ldb,
                           const double* beta, double* C, int ldc) {
  VOLTA_POINTER_CHECK(h);
  return record(h, Gemm{"cublasDgemm", ta, tb, m, n, k, alpha, A, B, beta, C, lda, ldb, ldc, 0, 0, 0, 1,
                        CUDA_R_64F, CUDA_R_64F, CUDA_R_64F, CUBLAS_COMPUTE_64F});
}
cublasStatus_t cublasHgemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                           const __half* alpha, const __half* A, int lda, const __half* B, int ldb,
                           const __half* beta, __half* C, int ldc) {
  VOLTA_POINTER_CHECK(h);
  return record(h, Gemm{"cublasHgemm", ta, tb, m, n, k, alpha, A, B, beta, C, lda, ldb, ldc, 0, 0, 0, 1,
                        CUDA_R_16F, CUDA_R_16F, CUDA_R_16F, CUBLAS_COMPUTE_16F});
}
cublasStatus_t cublasSgemmStridedBatched(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n,
                                         int k, const float* alpha, const float* A, int lda, long long sa,
                                         const float* B, int ldb, long long sb, const float* beta, float* C, int ldc,
                                         long long sc, int batch) {
  VOLTA_POINTER_CHECK(h);
  return record(h, Gemm{"cublasSgemmStridedBatched", ta, tb, m, n, k, alpha, A, B, beta, C, lda, ldb, ldc, sa, sb,
                        sc, batch, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F});
}
cublasStatus_t cublasHgemmStridedBatched(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n,
                                         int k, const __half* alpha, const __half* A, int lda, long long sa,
                                         const __half* B, int ldb, long long sb, const __half* beta, __half* C,
                                         int ldc, long long sc, int batch) {
  VOLTA_POINTER_CHECK(h);
  return record(h, Gemm{"cublasHgemmStridedBatched", ta, tb, m, n, k, alpha, A, B, beta, C, lda, ldb, ldc, sa, sb,
                        sc, batch, CUDA_R_16F, CUDA_R_16F, CUDA_R_16F, CUBLAS_COMPUTE_16F});
}
cublasStatus_t cublasGemmEx(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                            const void* alpha, const void* A, cudaDataType at, int lda, const void* B,
                            cudaDataType bt, int ldb, const void* beta, void* C, cudaDataType ct, int ldc,
                            cublasComputeType_t compute, cublasGemmAlgo_t) {
  VOLTA_POINTER_CHECK(h);
  return record(h, Gemm{"cublasGemmEx", ta, tb, m, n, k, alpha, A, B, beta, C, lda, ldb, ldc, 0, 0, 0, 1, at, bt,
                        ct, compute});
}
cublasStatus_t cublasGemmStridedBatchedEx(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n,
                                          int k, const void* alpha, const void* A, cudaDataType at, int lda,
                                          long long sa, const void* B, cudaDataType bt, int ldb, long long sb,
                                          const void* beta, void* C, cudaDataType ct, int ldc, long long sc,
                                          int batch, cublasComputeType_t compute, cublasGemmAlgo_t) {
  VOLTA_POINTER_CHECK(h);
  return record(h, Gemm{"cublasGemmStridedBatchedEx", ta, tb, m, n, k, alpha, A, B, beta, C, lda, ldb, ldc, sa, sb,
                        sc, batch, at, bt, ct, compute});
}

namespace at {
namespace cuda {
cublasHandle_t getCurrentCUDABlasHandle() {
  static cublasContext handle;
  handle.stream = volta::current_stream();
  return &handle;
}
}  // namespace cuda
}  // namespace at
