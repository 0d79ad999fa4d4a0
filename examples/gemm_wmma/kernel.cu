// Tensor-core HGEMM with the WMMA API (16x16x16, f16 in, f32 accumulate). One warp per 16x16 tile of C.
#include <mma.h>
#include <cuda_fp16.h>
using namespace nvcuda;

extern "C" __global__ void gemm_wmma(const __half* __restrict__ A, const __half* __restrict__ B,
                                     float* __restrict__ C, int M, int N, int K)
{
    int row0 = blockIdx.y * 16;
    int col0 = blockIdx.x * 16;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> b;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    for (int k = 0; k < K; k += 16) {
        wmma::load_matrix_sync(a, A + row0 * K + k, K);
        wmma::load_matrix_sync(b, B + k * N + col0, N);
        wmma::mma_sync(acc, a, b, acc);
    }
    wmma::store_matrix_sync(C + row0 * N + col0, acc, N, wmma::mem_row_major);
}
