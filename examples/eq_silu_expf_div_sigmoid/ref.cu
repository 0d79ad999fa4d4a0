// SiLU (Swish) as x / (1 + expf(-x)), full-precision expf (no fast math). N=512, 4 blocks of 128.
extern "C" __global__ void silu_div(const float* __restrict__ x, float* __restrict__ y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    y[i] = v / (1.0f + expf(-v));
}
