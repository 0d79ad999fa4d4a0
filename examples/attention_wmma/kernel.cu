// Tensor-core attention with WMMA (f16 inputs, f32 accumulate): one warp per 16 query rows.
// S = Q K^T (two 16x16 tiles over 32 keys) -> shared memory; row softmax by lanes 0..15 -> P (f16) in shared
// memory; O = P V (two k-steps of 16). Lq = Lk = 32, head dim 16.
#include <mma.h>
#include <cuda_fp16.h>
using namespace nvcuda;
#define LK 32
#define D 16

extern "C" __global__ void attention_wmma(const __half* __restrict__ Q, const __half* __restrict__ K,
                                          const __half* __restrict__ V, float* __restrict__ O, float scale)
{
    __shared__ __align__(32) float S[16][LK];
    __shared__ __align__(32) __half P[16][LK];
    int q0 = blockIdx.x * 16;
    int lane = threadIdx.x;

    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> qa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> kb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> sc;
    wmma::load_matrix_sync(qa, Q + q0 * D, D);
    for (int n = 0; n < LK / 16; ++n) {
        wmma::fill_fragment(sc, 0.0f);
        wmma::load_matrix_sync(kb, K + n * 16 * D, D);   // K^T as a column-major 16x16 block
        wmma::mma_sync(sc, qa, kb, sc);
        wmma::store_matrix_sync(&S[0][n * 16], sc, LK, wmma::mem_row_major);
    }
    __syncwarp();

    if (lane < 16) {
        float m = -INFINITY;
        for (int j = 0; j < LK; ++j) m = fmaxf(m, S[lane][j] * scale);
        float sum = 0.0f;
        for (int j = 0; j < LK; ++j) sum += expf(S[lane][j] * scale - m);
        float inv = 1.0f / sum;
        for (int j = 0; j < LK; ++j) P[lane][j] = __float2half(expf(S[lane][j] * scale - m) * inv);
    }
    __syncwarp();

    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> pa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> vb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> o;
    wmma::fill_fragment(o, 0.0f);
    for (int k = 0; k < LK / 16; ++k) {
        wmma::load_matrix_sync(pa, &P[0][k * 16], LK);
        wmma::load_matrix_sync(vb, V + k * 16 * D, D);
        wmma::mma_sync(o, pa, vb, o);
    }
    wmma::store_matrix_sync(O + q0 * D, o, D, wmma::mem_row_major);
}
