// Tensor-core HGEMM with the WMMA API over 32x64 block tiles of C (f32) = A (f16, row-major) * B (f16, row-major),
// 4 warps per block, A and B tiles staged in shared memory per 16-deep k step (as gemm_wmma_block), but each warp
// computes a single 16x16 fragment: the 2x2 warp grid covers 32x32, only half of the 64-wide block tile.
#include <mma.h>
#include <cuda_fp16.h>
using namespace nvcuda;
#define BM 32
#define BN 64
#define BK 16

extern "C" __global__ void gemm_wmma_half_tile(const __half* __restrict__ A, const __half* __restrict__ B,
                                               float* __restrict__ C, int M, int N, int K)
{
    __shared__ __align__(32) __half As[BM][BK];
    __shared__ __align__(32) __half Bs[BK][BN];
    int tid = threadIdx.x, warp = tid / 32;
    int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    int wr = warp / 2, wc = warp % 2;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> b;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    for (int k0 = 0; k0 < K; k0 += BK) {
        for (int e = tid; e < BM * BK; e += blockDim.x)
            As[e / BK][e % BK] = A[(row0 + e / BK) * K + k0 + e % BK];
        for (int e = tid; e < BK * BN; e += blockDim.x)
            Bs[e / BN][e % BN] = B[(k0 + e / BN) * N + col0 + e % BN];
        __syncthreads();
        wmma::load_matrix_sync(a, &As[wr * 16][0], BK);
        wmma::load_matrix_sync(b, &Bs[0][wc * 16], BN);   // DEFECT: one 16-wide fragment per warp covers 32 of 64 columns
        wmma::mma_sync(acc, a, b, acc);
        __syncthreads();
    }
    wmma::store_matrix_sync(C + (row0 + wr * 16) * N + col0 + wc * 16, acc, N, wmma::mem_row_major);
}
