// RMSNorm: y = x * rsqrtf(mean(x^2) + eps) * weight. One warp per row; butterfly (xor) shuffle sum.
extern "C" __global__ void rmsnorm(const float* __restrict__ x, const float* __restrict__ weight,
                                   float* __restrict__ y, int rows, int cols, float eps)
{
    int row = blockIdx.x;
    if (row >= rows) return;
    int lane = threadIdx.x;
    const float* xr = x + row * cols;
    float* yr = y + row * cols;
    float ss = 0.0f;
    for (int c = lane; c < cols; c += 32) ss += xr[c] * xr[c];
    for (int off = 16; off > 0; off >>= 1) ss += __shfl_xor_sync(0xffffffffu, ss, off);
    float r = rsqrtf(ss / cols + eps);
    for (int c = lane; c < cols; c += 32) yr[c] = xr[c] * r * weight[c];
}
