// Natural log as logf(x), full-precision (libdevice). N=512, 4 blocks of 128.
extern "C" __global__ void log_natural(const float* __restrict__ x, float* __restrict__ y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    y[i] = logf(x[i]);
}
