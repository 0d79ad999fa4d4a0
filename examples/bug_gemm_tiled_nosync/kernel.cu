// DEFECTIVE: shared-memory tiled SGEMM with the __syncthreads() after the tile loads missing.
#define TILE 16
extern "C" __global__ void gemm_tiled_nosync(const float* __restrict__ A, const float* __restrict__ B,
                                      float* __restrict__ C, int M, int N, int K)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;
    int col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (int t = 0; t < K; t += TILE) {
        As[ty][tx] = A[row * K + t + tx];
        Bs[ty][tx] = B[(t + ty) * N + col];
        // missing __syncthreads();
        for (int k = 0; k < TILE; ++k) {
            acc += As[ty][k] * Bs[k][tx];   // DEFECT: may read tile elements not yet stored
        }
        __syncthreads();
    }
    C[row * N + col] = acc;
}
