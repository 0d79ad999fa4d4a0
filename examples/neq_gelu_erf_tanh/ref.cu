// GELU with the exact erf form 0.5*x*(1+erf(x/sqrt(2))), full-precision erff (libdevice). N=512, 4 blocks of 128.
extern "C" __global__ void gelu_erf(const float* __restrict__ x, float* __restrict__ y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    y[i] = 0.5f * v * (1.0f + erff(v * 0.70710678f));
}
