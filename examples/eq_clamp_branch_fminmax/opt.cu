// Clamp to [lo, hi] with nested branches and early returns (a store on each of three paths). N=512, 4 blocks of 128.
extern "C" __global__ void clamp_branch(const float* __restrict__ x, float* __restrict__ y, int n, float lo, float hi)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    if (v < lo) { y[i] = lo; return; }
    if (v > hi) { y[i] = hi; return; }
    y[i] = v;
}
