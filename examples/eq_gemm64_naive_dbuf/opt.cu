// Double-buffered SGEMM: one CTA of 512 threads, 64x64 output tile, two 64x16 / 16x64 shared tile pairs;
// the next K tile is fetched into registers while the current one is consumed, then stored into the other
// buffer, so one __syncthreads per tile suffices. 2x4 micro-tile per thread. K must be a multiple of 16.
#define TK 16
extern "C" __global__ void sgemm64_dbuf(const float* __restrict__ A, const float* __restrict__ B,
                                        float* __restrict__ C, int M, int N, int K)
{
    __shared__ float As[2][64][TK];
    __shared__ float Bs[2][TK][64];
    int t = threadIdx.x;
    int tx = t % 16, ty = t / 16;
    int row0 = blockIdx.y * 64, col0 = blockIdx.x * 64;
    // each thread moves elements e = t and t + 512 of each tile
    float pa[2], pb[2];
    for (int h = 0; h < 2; ++h) {
        int e = t + 512 * h;
        pa[h] = A[(row0 + e / TK) * K + e % TK];
        pb[h] = B[(e / 64) * N + col0 + e % 64];
    }
    for (int h = 0; h < 2; ++h) {
        int e = t + 512 * h;
        As[0][e / TK][e % TK] = pa[h];
        Bs[0][e / 64][e % 64] = pb[h];
    }
    __syncthreads();
    float acc[2][4] = {};
    int cur = 0;
    for (int k0 = 0; k0 < K; k0 += TK) {
        bool more = k0 + TK < K;
        if (more) {
            for (int h = 0; h < 2; ++h) {
                int e = t + 512 * h;
                pa[h] = A[(row0 + e / TK) * K + k0 + TK + e % TK];
                pb[h] = B[(k0 + TK + e / 64) * N + col0 + e % 64];
            }
        }
        for (int k = 0; k < TK; ++k) {
            float a0 = As[cur][2 * ty][k], a1 = As[cur][2 * ty + 1][k];
            for (int j = 0; j < 4; ++j) {
                float b = Bs[cur][k][4 * tx + j];
                acc[0][j] += a0 * b;
                acc[1][j] += a1 * b;
            }
        }
        if (more) {
            for (int h = 0; h < 2; ++h) {
                int e = t + 512 * h;
                As[cur ^ 1][e / TK][e % TK] = pa[h];
                Bs[cur ^ 1][e / 64][e % 64] = pb[h];
            }
        }
        __syncthreads();
        cur ^= 1;
    }
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 4; ++j)
            C[(row0 + 2 * ty + i) * N + col0 + 4 * tx + j] = acc[i][j];
}
