// Reference for the wgmma GEMM pairs: D = relu(A * B + bias), one thread per output element.
// A is row-major [M][64] f16, B is given as Bt[16][64] (N x K, K-major) f16, bias [16] f32, D [M][16] f32.
#include <cuda_fp16.h>

extern "C" __global__ void gemm_bias_relu_naive(const __half* __restrict__ A, const __half* __restrict__ Bt,
                                                const float* __restrict__ bias, float* __restrict__ D)
{
    int e = blockIdx.x * blockDim.x + threadIdx.x;   // output element: row e / 16, column e % 16
    int m = e / 16, n = e % 16;
    float acc = 0.0f;
    for (int k = 0; k < 64; ++k)
        acc += __half2float(A[m * 64 + k]) * __half2float(Bt[n * 64 + k]);
    D[m * 16 + n] = fmaxf(acc + bias[n], 0.0f);
}
