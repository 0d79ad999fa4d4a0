// KernelBench-style batched matmul, reference: one thread per output C[b][i][j], batch in blockIdx.z.
extern "C" __global__ void bmm_naive(const float* A, const float* B, float* C, int M, int N, int K)
{
    int b = blockIdx.z;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < M && j < N) {
        const float* a = A + (size_t)b * M * K;
        const float* bb = B + (size_t)b * K * N;
        float acc = 0.0f;
        for (int k = 0; k < K; ++k) acc += a[i * K + k] * bb[k * N + j];
        C[(size_t)b * M * N + i * N + j] = acc;
    }
}
