// Register-blocked SGEMM: a block of 8x8 threads computes a 32x32 tile of C, each thread a 4x4 sub-tile
// held in registers. BK = 8. M, N multiples of 32 and K a multiple of 8.
#define BM 32
#define BN 32
#define BK 8
#define TM 4
#define TN 4
extern "C" __global__ void gemm_regblock(const float* __restrict__ A, const float* __restrict__ B,
                                         float* __restrict__ C, int M, int N, int K)
{
    __shared__ float As[BM][BK];
    __shared__ float Bs[BK][BN];
    int tx = threadIdx.x, ty = threadIdx.y;
    int tid = ty * 8 + tx;
    int row0 = blockIdx.y * BM;
    int col0 = blockIdx.x * BN;
    float acc[TM][TN];
    for (int i = 0; i < TM; ++i)
        for (int j = 0; j < TN; ++j)
            acc[i][j] = 0.0f;
    for (int t = 0; t < K; t += BK) {
        for (int e = tid; e < BM * BK; e += 64) {
            int r = e / BK, c = e % BK;
            As[r][c] = A[(row0 + r) * K + t + c];
        }
        for (int e = tid; e < BK * BN; e += 64) {
            int r = e / BN, c = e % BN;
            Bs[r][c] = B[(t + r) * N + col0 + c];
        }
        __syncthreads();
        for (int k = 0; k < BK; ++k) {
            float a[TM], b[TN];
            for (int i = 0; i < TM; ++i) a[i] = As[ty * TM + i][k];
            for (int j = 0; j < TN; ++j) b[j] = Bs[k][tx * TN + j];
            for (int i = 0; i < TM; ++i)
                for (int j = 0; j < TN; ++j)
                    acc[i][j] += a[i] * b[j];
        }
        __syncthreads();
    }
    for (int i = 0; i < TM; ++i)
        for (int j = 0; j < TN; ++j)
            C[(row0 + ty * TM + i) * N + col0 + tx * TN + j] = acc[i][j];
}
