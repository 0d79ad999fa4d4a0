// LayerNorm over rows of C floats, one block of 256 threads per row, one pass: each thread sums x and x^2
// over its columns, warps reduce both with shuffles, warp 0 combines the 8 warp totals from shared memory.
// var = E[x^2] - E[x]^2;  y = (x - mean) * rsqrtf(var + eps) * gamma + beta.
#define THREADS 256
#define WARPS (THREADS / 32)
__device__ __forceinline__ float2 block_sum2(float a, float b, float2* sh)
{
    for (int off = 16; off > 0; off >>= 1) {
        a += __shfl_down_sync(0xffffffffu, a, off);
        b += __shfl_down_sync(0xffffffffu, b, off);
    }
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) sh[warp] = make_float2(a, b);
    __syncthreads();
    if (warp == 0) {
        float2 v = lane < WARPS ? sh[lane] : make_float2(0.0f, 0.0f);
        for (int off = WARPS / 2; off > 0; off >>= 1) {
            v.x += __shfl_down_sync(0xffffffffu, v.x, off);
            v.y += __shfl_down_sync(0xffffffffu, v.y, off);
        }
        if (lane == 0) sh[WARPS] = v;
    }
    __syncthreads();
    return sh[WARPS];
}

extern "C" __global__ void layernorm_one_pass(const float* __restrict__ x, const float* __restrict__ gamma,
                                              const float* __restrict__ beta, float* __restrict__ y,
                                              int cols, float eps)
{
    __shared__ float2 sh[WARPS + 1];
    const float* xr = x + blockIdx.x * cols;
    float* yr = y + blockIdx.x * cols;
    float s = 0.0f, q = 0.0f;
    for (int c = threadIdx.x; c < cols; c += THREADS) {
        float v = xr[c];
        s += v;
        q += v * v;
    }
    float2 t = block_sum2(s, q, sh);
    float mean = t.x / cols;
    float var = t.y / cols - mean * mean;
    float rstd = rsqrtf(var + eps);
    for (int c = threadIdx.x; c < cols; c += THREADS) yr[c] = (xr[c] - mean) * rstd * gamma[c] + beta[c];
}
