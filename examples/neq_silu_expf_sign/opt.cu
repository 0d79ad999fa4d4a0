// SiLU as x * sigmoid(x), but the sigmoid has the wrong sign in its exponent. N=512.
__device__ __forceinline__ float sigmoidf(float v) { return 1.0f / (1.0f + expf(v)); }  // DEFECT: expf(v), not expf(-v)

extern "C" __global__ void silu_sigmoid_bad(const float* __restrict__ x, float* __restrict__ y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    y[i] = v * sigmoidf(v);
}
