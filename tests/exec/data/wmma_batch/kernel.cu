// wmma.load differential kernel (tests/exec/test_tensor_batch.py): two warps of one block; warp 0 stages A in
// shared memory (columns from `valid` on are zeros: a partial fragment), warp 1 stages B, then warp 1 alone
// (a predicated fragment) loads A row-major and B column-major from shared memory and B again straight from
// global memory at column offset `off` (past the end of B when off is large), and stores the product.
// `sync` = 0 leaves out the barrier: warp 1's wmma.load then races with warp 0's stores.
#include <mma.h>
#include <cuda_fp16.h>
using namespace nvcuda;

extern "C" __global__ void wmma_batch(const __half* __restrict__ A, const __half* __restrict__ B,
                                      float* __restrict__ C, int valid, int sync, int off)
{
    __shared__ __align__(32) __half As[16][16];
    __shared__ __align__(32) __half Bs[16][32];
    int tid = threadIdx.x, warp = tid / 32;
    if (warp == 0)
        for (int e = tid; e < 256; e += 32)
            As[e / 16][e % 16] = (e % 16) < valid ? A[e] : __float2half(0.0f);
    else
        for (int e = tid - 32; e < 512; e += 32)
            Bs[e / 32][e % 32] = B[e];
    if (sync)
        __syncthreads();
    if (warp == 1) {
        wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a;
        wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> b;
        wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
        wmma::fill_fragment(acc, 0.0f);
        wmma::load_matrix_sync(a, &As[0][0], 16);
        wmma::load_matrix_sync(b, &Bs[0][16], 32);
        wmma::mma_sync(acc, a, b, acc);
        wmma::load_matrix_sync(b, B + off, 32);
        wmma::mma_sync(acc, a, b, acc);
        wmma::store_matrix_sync(C, acc, 16, wmma::mem_row_major);
    }
}
