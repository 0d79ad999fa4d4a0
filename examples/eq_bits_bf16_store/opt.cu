// Matrix-vector product y = A·x with the same f32 accumulation, but the result passes through bf16 before the
// store (the HEAL finding: the downcast at a kernel boundary, not the accumulation, changes the bits).
#include <cuda_bf16.h>
#define K 64
extern "C" __global__ void gemv_bf16_store(const float* __restrict__ A, const float* __restrict__ x,
                                           float* __restrict__ y, int m)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < m) {
        float acc = 0.0f;
        for (int k = 0; k < K; ++k) acc += A[i * K + k] * x[k];
        __nv_bfloat16 h = __float2bfloat16_rn(acc);
        y[i] = __bfloat162float(h);
    }
}
