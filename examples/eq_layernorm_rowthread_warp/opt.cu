// LayerNorm, one warp per row of C floats (8 rows per block of 256): each lane sums its strided columns,
// xor shuffles give every lane the row mean, then the same for the squared deviations; rsqrtf.
extern "C" __global__ void layernorm_warp_shuffle(const float* __restrict__ x, const float* __restrict__ gamma,
                                                  const float* __restrict__ beta, float* __restrict__ y,
                                                  int rows, int cols, float eps)
{
    int r = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5), lane = threadIdx.x & 31;
    if (r >= rows) return;
    const float* xr = x + r * cols;
    float* yr = y + r * cols;
    float s = 0.0f;
    for (int c = lane; c < cols; c += 32) s += xr[c];
    for (int off = 16; off > 0; off >>= 1) s += __shfl_xor_sync(0xffffffffu, s, off);
    float mean = s / cols;
    float q = 0.0f;
    for (int c = lane; c < cols; c += 32) {
        float d = xr[c] - mean;
        q += d * d;
    }
    for (int off = 16; off > 0; off >>= 1) q += __shfl_xor_sync(0xffffffffu, q, off);
    float rstd = rsqrtf(q / cols + eps);
    for (int c = lane; c < cols; c += 32) yr[c] = (xr[c] - mean) * rstd * gamma[c] + beta[c];
}
