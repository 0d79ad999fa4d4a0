// Natural log as log2f(x) * ln 2: equal as real functions, but libdevice's log2f and logf are different
// polynomial approximations, so over the reals (where each instruction is exact) they differ. N=512.
extern "C" __global__ void log_via_log2(const float* __restrict__ x, float* __restrict__ y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    y[i] = log2f(x[i]) * 0.693147180559945309f;
}
