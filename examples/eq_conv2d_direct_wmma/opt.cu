// The same convolution as an implicit GEMM on tensor cores: C[co][p] = sum_k W[co][k] * X[k][p] with
// k = (ci, kh, kw) (75, padded to 80) and p = (n, oy, ox) (72 output pixels). A block of 4 warps owns a 32x32
// tile of C; per 16-deep k step it stages the weight tile and the im2col tile in shared memory as half, with
// zeros past the filter count, past k = 75, past the last pixel and for taps outside the image, and each warp
// adds one 16x16x16 wmma product to its accumulator. At the end each warp stores its accumulator to its own
// shared scratch tile, and its lanes read the tile back element by element, add the bias and scatter to NCHW.
#include <mma.h>
#include <cuda_fp16.h>
using namespace nvcuda;
#define NB 2
#define CI 3
#define H 12
#define W 12
#define CO 20
#define KH 5
#define KW 5
#define STRIDE 2
#define PAD 2
#define HO ((H + 2 * PAD - KH) / STRIDE + 1)
#define WO ((W + 2 * PAD - KW) / STRIDE + 1)
#define GEMM_K (CI * KH * KW)
#define GEMM_N (NB * HO * WO)
#define TILE 32
#define BK 16
#define LDS (BK + 8)

extern "C" __global__ void conv2d_wmma(const float* __restrict__ x, const float* __restrict__ w,
                                       const float* __restrict__ bias, float* __restrict__ out)
{
    __shared__ __align__(32) __half Ws[TILE][LDS];     // Ws[co][k]: row-major A
    __shared__ __align__(32) __half Xs[TILE][LDS];     // Xs[p][k]: column-major B
    __shared__ __align__(32) float Cs[4][16][16];      // one scratch tile per warp
    int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    int co0 = blockIdx.y * TILE, p0 = blockIdx.x * TILE;
    int wm = warp / 2, wn = warp % 2;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> b;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    for (int k0 = 0; k0 < GEMM_K; k0 += BK) {
        for (int e = tid; e < TILE * BK; e += blockDim.x) {
            int r = e / BK, k = k0 + e % BK;
            int co = co0 + r, p = p0 + r;
            float wv = 0.0f, xv = 0.0f;
            if (co < CO && k < GEMM_K) wv = w[co * GEMM_K + k];
            if (p < GEMM_N && k < GEMM_K) {
                int ci = k / (KH * KW), kh = (k / KW) % KH, kw = k % KW;
                int ox = p % WO, oy = (p / WO) % HO, n = p / (WO * HO);
                int iy = oy * STRIDE - PAD + kh, ix = ox * STRIDE - PAD + kw;
                if (iy >= 0 && iy < H && ix >= 0 && ix < W) xv = x[((n * CI + ci) * H + iy) * W + ix];
            }
            Ws[r][e % BK] = __float2half(wv);
            Xs[r][e % BK] = __float2half(xv);
        }
        __syncthreads();
        wmma::load_matrix_sync(a, &Ws[wm * 16][0], LDS);
        wmma::load_matrix_sync(b, &Xs[wn * 16][0], LDS);
        wmma::mma_sync(acc, a, b, acc);
        __syncthreads();
    }
    wmma::store_matrix_sync(&Cs[warp][0][0], acc, 16, wmma::mem_row_major);
    __syncwarp();   // the lanes read elements other lanes stored
    for (int e = lane; e < 256; e += 32) {
        int r = e / 16, c = e % 16;
        int co = co0 + wm * 16 + r, p = p0 + wn * 16 + c;
        if (co < CO && p < GEMM_N) {
            int ox = p % WO, oy = (p / WO) % HO, n = p / (WO * HO);
            out[((n * CO + co) * HO + oy) * WO + ox] = Cs[warp][r][c] + bias[co];
        }
    }
}
