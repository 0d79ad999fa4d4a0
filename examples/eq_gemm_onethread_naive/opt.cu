// One thread per element of C = A B, 16 x 16 blocks, ragged edges guarded.
extern "C" __global__ void gemm_naive(const float* __restrict__ A, const float* __restrict__ B, float* C,
                                      int M, int N, int K)
{
    int i = blockIdx.y * blockDim.y + threadIdx.y, j = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= M || j >= N) return;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += A[i * K + k] * B[k * N + j];
    C[i * N + j] = acc;
}
