// Split-K GEMM in two launches: gemm_splitk_partial computes, for split s = blockIdx.z, the partial product over
// k in [s*K/S, (s+1)*K/S) into P[s][M][N]; splitk_reduce sums the S partials of each element into C.
extern "C" __global__ void gemm_splitk_partial(const float* A, const float* B, float* P, int M, int N, int K, int S)
{
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int s = blockIdx.z;
    int chunk = K / S;
    if (row < M && col < N) {
        float acc = 0.0f;
        for (int k = s * chunk; k < (s + 1) * chunk; ++k)
            acc += A[row * K + k] * B[k * N + col];
        P[(s * M + row) * N + col] = acc;
    }
}

extern "C" __global__ void splitk_reduce(const float* P, float* C, int MN, int S)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < MN) {
        float acc = 0.0f;
        for (int s = 0; s < S; ++s)
            acc += P[s * MN + i];
        C[i] = acc;
    }
}
