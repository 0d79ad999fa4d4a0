// Naive HGEMM reference: C[M][N] (f32) = A[M][K] (f16) * B[K][N] (f16), one thread per output element.
#include <cuda_fp16.h>

extern "C" __global__ void gemm_naive_f16(const __half* __restrict__ A, const __half* __restrict__ B,
                                          float* __restrict__ C, int M, int N, int K)
{
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < M && col < N) {
        float acc = 0.0f;
        for (int k = 0; k < K; ++k)
            acc += __half2float(A[row * K + k]) * __half2float(B[k * N + col]);
        C[row * N + col] = acc;
    }
}
