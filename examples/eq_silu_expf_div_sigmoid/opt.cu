// SiLU (Swish) as x * sigmoid(x) with sigmoid(x) = 1 / (1 + expf(-x)), full-precision expf. N=512.
__device__ __forceinline__ float sigmoidf(float v) { return 1.0f / (1.0f + expf(-v)); }

extern "C" __global__ void silu_sigmoid(const float* __restrict__ x, float* __restrict__ y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    y[i] = v * sigmoidf(v);
}
