// LayerNorm over rows of C floats, one block of 256 threads per row, two passes: the mean, then the mean
// of squared deviations from it; both sums are shared-memory tree reductions.
// y = (x - mean) * rsqrtf(var + eps) * gamma + beta.
#define THREADS 256
__device__ __forceinline__ float tree_sum(float v, float* sh)
{
    int t = threadIdx.x;
    sh[t] = v;
    __syncthreads();
    for (int s = THREADS / 2; s > 0; s >>= 1) {
        if (t < s) sh[t] += sh[t + s];
        __syncthreads();
    }
    float total = sh[0];
    __syncthreads();   // sh is reused by the next call
    return total;
}

extern "C" __global__ void layernorm_two_pass(const float* __restrict__ x, const float* __restrict__ gamma,
                                              const float* __restrict__ beta, float* __restrict__ y,
                                              int cols, float eps)
{
    __shared__ float sh[THREADS];
    const float* xr = x + blockIdx.x * cols;
    float* yr = y + blockIdx.x * cols;
    float s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += THREADS) s += xr[c];
    float mean = tree_sum(s, sh) / cols;
    float q = 0.0f;
    for (int c = threadIdx.x; c < cols; c += THREADS) {
        float d = xr[c] - mean;
        q += d * d;
    }
    float var = tree_sum(q, sh) / cols;
    float rstd = rsqrtf(var + eps);
    for (int c = threadIdx.x; c < cols; c += THREADS) yr[c] = (xr[c] - mean) * rstd * gamma[c] + beta[c];
}
