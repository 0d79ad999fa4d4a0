// LayerNorm, one warp per row of 32: mean and variance by xor shuffles, then (x - mean) * rsqrtf(var + eps).
extern "C" __global__ void layernorm_warp_rsqrt(const float* __restrict__ x, float* __restrict__ y,
                                                int rows, int n, float eps)
{
    int r = blockIdx.x, lane = threadIdx.x;
    float v = x[r * 32 + lane], s = v;
    for (int off = 16; off > 0; off >>= 1) s += __shfl_xor_sync(0xffffffffu, s, off);
    float mean = s * (1.0f / 32.0f), d = v - mean, q = d * d;
    for (int off = 16; off > 0; off >>= 1) q += __shfl_xor_sync(0xffffffffu, q, off);
    y[r * 32 + lane] = d * rsqrtf(q * (1.0f / 32.0f) + eps);
}
