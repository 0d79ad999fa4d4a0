// Defect an LLM makes: tiles of 16 rows, and the launch's grid is M / 16 (rounded down): rows 32..39 of a 40-row
// output are never computed. The kernel itself is right; the manifest launches it with grid 2x2 (N / 16, M / 16).
#define T 16
extern "C" __global__ void gemm_tiled_rows(const float* __restrict__ A, const float* __restrict__ B,
                                           float* __restrict__ C, int M, int N, int K)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    int tx = threadIdx.x, ty = threadIdx.y, row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float acc = 0.0f;
    for (int t = 0; t < K; t += T) {
        As[ty][tx] = row < M ? A[row * K + t + tx] : 0.0f;
        Bs[ty][tx] = B[(t + ty) * N + col];
        __syncthreads();
        for (int k = 0; k < T; ++k) acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    if (row < M) C[row * N + col] = acc;
}
