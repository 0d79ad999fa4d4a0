// GELU with erff, 1/sqrt(2) truncated to 0.7071f (an LLM-typed constant). N=512, 4 blocks of 128.
extern "C" __global__ void gelu_erf_fused(const float* __restrict__ x, float* __restrict__ y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    float h = 0.5f * v;
    y[i] = h + h * erff(v * 0.7071f);  // DEFECT: 0.7071f instead of 0.70710678f
}
