// Clamp with nested branches whose two bounds are mixed up. N=512, 4 blocks of 128.
extern "C" __global__ void clamp_branch(const float* __restrict__ x, float* __restrict__ y, int n, float lo, float hi)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    if (v < lo) { y[i] = hi; return; }  // DEFECT: below the range stores hi
    if (v > hi) { y[i] = hi; return; }
    y[i] = v;
}
