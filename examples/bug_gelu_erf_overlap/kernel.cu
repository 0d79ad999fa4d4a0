// GELU (exact erf form, libdevice erff) whose output index wraps at 256: blocks 2 and 3 overwrite blocks 0 and 1.
extern "C" __global__ void gelu_erf_overlap(const float* __restrict__ x, float* __restrict__ y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    y[i % 256] = 0.5f * v * (1.0f + erff(v * 0.70710678f));  // DEFECT: i % 256 instead of i
}
