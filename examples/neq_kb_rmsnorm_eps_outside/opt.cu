// Defect an LLM makes: RMSNorm with eps added after the square root, y = weight * x / (sqrtf(mean(x^2)) + eps).
// the sum of squares is reduced with __shfl_down_sync and broadcast from lane 0.
extern "C" __global__ void rmsnorm_eps_outside(const float* __restrict__ x, const float* __restrict__ weight,
                                            float* __restrict__ y, int rows, int cols, float eps)
{
    int row = blockIdx.x;
    if (row >= rows) return;
    int lane = threadIdx.x;
    const float* xr = x + row * cols;
    float* yr = y + row * cols;
    float ss = 0.0f;
    for (int c = lane; c < cols; c += 32) ss = fmaf(xr[c], xr[c], ss);
    for (int off = 16; off > 0; off >>= 1) ss += __shfl_down_sync(0xffffffffu, ss, off);
    ss = __shfl_sync(0xffffffffu, ss, 0);
    float denom = sqrtf(ss / (float)cols) + eps;  // DEFECT: eps added outside the square root
    for (int c = lane; c < cols; c += 32) yr[c] = weight[c] * xr[c] / denom;
}
