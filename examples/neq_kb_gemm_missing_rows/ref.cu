// KernelBench-style matmul with a ragged M (40 rows), reference: one thread per output, bounds-checked.
extern "C" __global__ void gemm_naive_ragged(const float* A, const float* B, float* C, int M, int N, int K)
{
    int i = blockIdx.y * blockDim.y + threadIdx.y, j = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < M && j < N) {
        float acc = 0.0f;
        for (int k = 0; k < K; ++k) acc += A[i * K + k] * B[k * N + j];
        C[i * N + j] = acc;
    }
}
