// Transposed, padded shared tile SGEMM: one CTA of 512 threads, 64x64 output tile; the A tile is stored
// transposed (AsT[k][row], rows padded to 65 floats to avoid bank conflicts on the transposing store) so
// that a thread's 8 rows are read along one shared row; thread t owns column t % 64, rows 8*(t/64) + i.
// K must be a multiple of 16.
#define TK 16
extern "C" __global__ void sgemm64_tpad(const float* __restrict__ A, const float* __restrict__ B,
                                        float* __restrict__ C, int M, int N, int K)
{
    __shared__ float AsT[TK][64 + 1];
    __shared__ float Bs[TK][64 + 1];
    int t = threadIdx.x;
    int tc = t & 63, tr = t >> 6;
    int row0 = blockIdx.y * 64, col0 = blockIdx.x * 64;
    float acc[8];
    for (int i = 0; i < 8; ++i) acc[i] = 0.0f;
    for (int k0 = 0; k0 < K; k0 += TK) {
        for (int e = t; e < 64 * TK; e += 512) {
            int r = e / TK, c = e % TK;
            AsT[c][r] = A[(row0 + r) * K + k0 + c];
            Bs[e / 64][e % 64] = B[(k0 + e / 64) * N + col0 + e % 64];
        }
        __syncthreads();
        for (int k = 0; k < TK; ++k) {
            float b = Bs[k][tc];
            for (int i = 0; i < 8; ++i)
                acc[i] += AsT[k][8 * tr + i] * b;
        }
        __syncthreads();
    }
    for (int i = 0; i < 8; ++i)
        C[(row0 + 8 * tr + i) * N + col0 + tc] = acc[i];
}
