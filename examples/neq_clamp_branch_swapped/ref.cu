// Clamp to [lo, hi] with fminf(fmaxf(...)). N=512, 4 blocks of 128.
extern "C" __global__ void clamp_minmax(const float* __restrict__ x, float* __restrict__ y, int n, float lo, float hi)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    y[i] = fminf(fmaxf(x[i], lo), hi);
}
