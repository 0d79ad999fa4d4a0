// KernelBench-style tall-skinny matmul C = A @ B with A 128x32 and B 32x4, reference: one thread per output.
extern "C" __global__ void tallskinny_naive(const float* A, const float* B, float* C, int M, int N, int K)
{
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= M * N) return;
    int i = idx / N, j = idx % N;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += A[i * K + k] * B[k * N + j];
    C[idx] = acc;
}
