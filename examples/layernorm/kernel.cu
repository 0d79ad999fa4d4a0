// LayerNorm over the last dimension: y = (x - mean) / sqrt(var + eps) * gamma + beta.
// One block of 64 threads (2 warps) per row; warp shuffles plus a shared-memory exchange between warps.
#define THREADS 64
__device__ __forceinline__ float block_sum(float v, float* sh)
{
    for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
    int warp = threadIdx.x >> 5;
    if ((threadIdx.x & 31) == 0) sh[warp] = v;
    __syncthreads();
    float total = sh[0] + sh[1];
    __syncthreads();   // sh is reused by the next call
    return total;
}

extern "C" __global__ void layernorm(const float* __restrict__ x, const float* __restrict__ gamma,
                                     const float* __restrict__ beta, float* __restrict__ y,
                                     int cols, float eps)
{
    __shared__ float sh[2];
    const float* xr = x + blockIdx.x * cols;
    float* yr = y + blockIdx.x * cols;
    float s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += THREADS) s += xr[c];
    float mean = block_sum(s, sh) / cols;
    float q = 0.0f;
    for (int c = threadIdx.x; c < cols; c += THREADS) {
        float dlt = xr[c] - mean;
        q += dlt * dlt;
    }
    float var = block_sum(q, sh) / cols;
    float rstd = rsqrtf(var + eps);
    for (int c = threadIdx.x; c < cols; c += THREADS) {
        yr[c] = (xr[c] - mean) * rstd * gamma[c] + beta[c];
    }
}
