// Shared-memory tiled SGEMM with 64x64 block tiles and 16-deep K tiles; 16x16 threads, each computing a 4x4
// micro-tile (rows ty + 16*i, columns tx + 16*j). M and N must be multiples of 64, K a multiple of 16.
#define BM 64
#define BN 64
#define BK 16
#define TM 4
#define TN 4
extern "C" __global__ void gemm_tiled64(const float* __restrict__ A, const float* __restrict__ B,
                                        float* __restrict__ C, int M, int N, int K)
{
    __shared__ float As[BM][BK];
    __shared__ float Bs[BK][BN];
    int tx = threadIdx.x, ty = threadIdx.y;
    int tid = ty * 16 + tx;
    int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    float acc[TM][TN];
    for (int i = 0; i < TM; ++i)
        for (int j = 0; j < TN; ++j)
            acc[i][j] = 0.0f;
    for (int t = 0; t < K; t += BK) {
        for (int e = tid; e < BM * BK; e += 256) {
            int r = e / BK, c = e % BK;
            As[r][c] = A[(row0 + r) * K + t + c];
        }
        for (int e = tid; e < BK * BN; e += 256) {
            int r = e / BN, c = e % BN;
            Bs[r][c] = B[(t + r) * N + col0 + c];
        }
        __syncthreads();
        for (int k = 0; k < BK; ++k) {
            float a[TM], b[TN];
            for (int i = 0; i < TM; ++i) a[i] = As[ty + 16 * i][k];
            for (int j = 0; j < TN; ++j) b[j] = Bs[k][tx + 16 * j];
            for (int i = 0; i < TM; ++i)
                for (int j = 0; j < TN; ++j)
                    acc[i][j] += a[i] * b[j];
        }
        __syncthreads();
    }
    for (int i = 0; i < TM; ++i)
        for (int j = 0; j < TN; ++j)
            C[(row0 + ty + 16 * i) * N + col0 + tx + 16 * j] = acc[i][j];
}
