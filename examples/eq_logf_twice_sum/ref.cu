// 2·log(x) as logf(x) * 2, full-precision logf (libdevice, no fast math: the float's exponent and
// mantissa split with integer instructions). N=512, 4 blocks of 128.
extern "C" __global__ void logf_twice(const float* __restrict__ x, float* __restrict__ y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    y[i] = logf(x[i]) * 2.0f;
}
