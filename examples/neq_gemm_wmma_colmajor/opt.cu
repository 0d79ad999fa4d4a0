// DEFECT (KernelBench-style): the A fragment is declared col_major over the row-major shared tile As, so the warp
// multiplies A^T-ish tiles. Otherwise: tensor-core HGEMM with the WMMA API, written the way a KernelBench solution stages tiles: a block of 4 warps
// computes a 32x64 tile of C (f32) = A (f16, row-major) * B (f16, row-major). Per 16-deep k step the block
// copies a 32x16 A tile and a 16x64 B tile to shared memory; warp w (2x2 warp grid) owns the 16x32 sub-tile at
// rows 16*(w/2), cols 32*(w%2): two 16x16 accumulators. M a multiple of 32, N of 64, K of 16.
#include <mma.h>
#include <cuda_fp16.h>
using namespace nvcuda;
#define BM 32
#define BN 64
#define BK 16

extern "C" __global__ void gemm_wmma_block(const __half* __restrict__ A, const __half* __restrict__ B,
                                           float* __restrict__ C, int M, int N, int K)
{
    __shared__ __align__(32) __half As[BM][BK];
    __shared__ __align__(32) __half Bs[BK][BN];
    int tid = threadIdx.x, warp = tid / 32;
    int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    int wr = warp / 2, wc = warp % 2;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::col_major> a;   // DEFECT: As is row-major
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> b;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[2];
    wmma::fill_fragment(acc[0], 0.0f);
    wmma::fill_fragment(acc[1], 0.0f);
    for (int k0 = 0; k0 < K; k0 += BK) {
        for (int e = tid; e < BM * BK; e += blockDim.x)
            As[e / BK][e % BK] = A[(row0 + e / BK) * K + k0 + e % BK];
        for (int e = tid; e < BK * BN; e += blockDim.x)
            Bs[e / BN][e % BN] = B[(k0 + e / BN) * N + col0 + e % BN];
        __syncthreads();
        wmma::load_matrix_sync(a, &As[wr * 16][0], BK);
        for (int j = 0; j < 2; ++j) {
            wmma::load_matrix_sync(b, &Bs[0][wc * 32 + j * 16], BN);
            wmma::mma_sync(acc[j], a, b, acc[j]);
        }
        __syncthreads();
    }
    for (int j = 0; j < 2; ++j)
        wmma::store_matrix_sync(C + (row0 + wr * 16) * N + col0 + wc * 32 + j * 16, acc[j], N, wmma::mem_row_major);
}
