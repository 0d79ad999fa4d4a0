// Batched matmul, "optimized" the way an LLM solution writes it: 8x8 shared-memory tiles, batch in blockIdx.z.
#define T 8
extern "C" __global__ void bmm_tiled(const float* __restrict__ A, const float* __restrict__ B,
                                     float* __restrict__ C, int M, int N, int K)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    int b = blockIdx.z, ty = threadIdx.y, tx = threadIdx.x;
    int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    A += (size_t)b * M * K; B += (size_t)b * K * N; C += (size_t)b * M * N;
    float acc = 0.0f;
    for (int t = 0; t < (K + T - 1) / T; ++t) {
        int ka = t * T + tx, kb = t * T + ty;
        As[ty][tx] = (row < M && ka < K) ? A[row * K + ka] : 0.0f;
        Bs[ty][tx] = (kb < K && col < N) ? B[kb * N + col] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < T; ++k) acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    if (row < M && col < N) C[row * N + col] = acc;
}
