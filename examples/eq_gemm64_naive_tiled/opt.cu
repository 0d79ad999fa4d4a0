// Shared-memory tiled SGEMM: one CTA of 512 threads, 64x64 output tile, 64x16 A tile and 16x64 B tile in
// shared memory (two elements of each per thread), 8 outputs per thread (column t % 64, rows t / 64 + 8*i).
// K must be a multiple of 16.
#define TK 16
extern "C" __global__ void sgemm64_tiled(const float* __restrict__ A, const float* __restrict__ B,
                                         float* __restrict__ C, int M, int N, int K)
{
    __shared__ float As[64][TK];
    __shared__ float Bs[TK][64];
    int t = threadIdx.x;
    int tc = t & 63, tr = t >> 6;
    int row0 = blockIdx.y * 64, col0 = blockIdx.x * 64;
    float acc[8];
    for (int i = 0; i < 8; ++i) acc[i] = 0.0f;
    for (int k0 = 0; k0 < K; k0 += TK) {
        for (int e = t; e < 64 * TK; e += 512) {
            As[e / TK][e % TK] = A[(row0 + e / TK) * K + k0 + e % TK];
            Bs[e / 64][e % 64] = B[(k0 + e / 64) * N + col0 + e % 64];
        }
        __syncthreads();
        for (int k = 0; k < TK; ++k) {
            float b = Bs[k][tc];
            for (int i = 0; i < 8; ++i)
                acc[i] += As[tr + 8 * i][k] * b;
        }
        __syncthreads();
    }
    for (int i = 0; i < 8; ++i)
        C[(row0 + tr + 8 * i) * N + col0 + tc] = acc[i];
}
