// Split-K SGEMM: blockIdx.z takes one K/gridDim.z slice; each thread adds its partial dot product into a
// zeroed C with atomicAdd (the order of the slices is whatever the hardware picks).
extern "C" __global__ void gemm_splitk_atomic(const float* __restrict__ A, const float* __restrict__ B,
                                              float* __restrict__ C, int M, int N, int K)
{
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int per = K / gridDim.z;
    int k0 = blockIdx.z * per;
    if (row < M && col < N) {
        float acc = 0.0f;
        for (int k = k0; k < k0 + per; ++k) {
            acc += A[row * K + k] * B[k * N + col];
        }
        atomicAdd(&C[row * N + col], acc);
    }
}
