// BLAS SGEMM C = alpha*A*B + beta*C, one thread per element, C read and written (inout).
extern "C" __global__ void sgemm_naive(const float* __restrict__ A, const float* __restrict__ B, float* C,
                                       float alpha, float beta, int M, int N, int K)
{
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= M || col >= N) return;
    float sum = 0.0f;
    for (int k = 0; k < K; ++k) {
        sum += A[row * K + k] * B[k * N + col];
    }
    C[row * N + col] = alpha * sum + beta * C[row * N + col];
}
