// Register-blocked SGEMM: one CTA of 512 threads, 64x64 output tile, each thread a 2x4 micro-tile
// (rows 2*(t/16) + i, columns 4*(t%16) + j) accumulated in registers from 32-deep shared tiles.
// K must be a multiple of 32.
#define TK 32
extern "C" __global__ void sgemm64_regblock(const float* __restrict__ A, const float* __restrict__ B,
                                            float* __restrict__ C, int M, int N, int K)
{
    __shared__ float As[64][TK];
    __shared__ float Bs[TK][64];
    int t = threadIdx.x;
    int tx = t % 16, ty = t / 16;
    int row0 = blockIdx.y * 64, col0 = blockIdx.x * 64;
    float acc[2][4] = {};
    for (int k0 = 0; k0 < K; k0 += TK) {
        for (int e = t; e < 64 * TK; e += 512) {
            int ar = e / TK, ac = e % TK;
            As[ar][ac] = A[(row0 + ar) * K + k0 + ac];
            int br = e / 64, bc = e % 64;
            Bs[br][bc] = B[(k0 + br) * N + col0 + bc];
        }
        __syncthreads();
#pragma unroll 4
        for (int k = 0; k < TK; ++k) {
            float a[2], b[4];
            for (int i = 0; i < 2; ++i) a[i] = As[2 * ty + i][k];
            for (int j = 0; j < 4; ++j) b[j] = Bs[k][4 * tx + j];
            for (int i = 0; i < 2; ++i)
                for (int j = 0; j < 4; ++j)
                    acc[i][j] += a[i] * b[j];
        }
        __syncthreads();
    }
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 4; ++j)
            C[(row0 + 2 * ty + i) * N + col0 + 4 * tx + j] = acc[i][j];
}
