// DEFECTIVE: when a value beats the running max, the sum is rescaled by expf(v - m), the inverse factor.
// Row softmax, one block of 64 threads per row, online normalizer written with a branch: each thread walks
// its strided columns keeping a running max (from its first value) and a running sum, and when a value beats the max it rescales
// the sum by expf(old max - new max). The block then takes the max of the threads' maxima (shared-memory
// tree), each thread rescales its sum to that max, and a second tree adds the sums.
#include <math.h>
#define THREADS 64
extern "C" __global__ void softmax_online_block_rescale_sign(const float* __restrict__ x, float* __restrict__ y, int rows, int cols)
{
    __shared__ float sh[THREADS];
    int t = threadIdx.x;
    const float* xr = x + blockIdx.x * cols;
    float* yr = y + blockIdx.x * cols;
    float m = xr[t], d = 0.0f;   // (cols >= THREADS: every thread has a first value)
    for (int c = t; c < cols; c += THREADS) {
        float v = xr[c];
        if (v > m) {
            d *= expf(v - m);   // DEFECT: expf(m - v) belongs here
            m = v;
        }
        d += expf(v - m);
    }
    sh[t] = m;
    __syncthreads();
    for (int s = THREADS / 2; s > 0; s >>= 1) {
        if (t < s) sh[t] = fmaxf(sh[t], sh[t + s]);
        __syncthreads();
    }
    float row_max = sh[0];
    __syncthreads();
    sh[t] = d * expf(m - row_max);
    __syncthreads();
    for (int s = THREADS / 2; s > 0; s >>= 1) {
        if (t < s) sh[t] += sh[t + s];
        __syncthreads();
    }
    float row_sum = sh[0];
    for (int c = t; c < cols; c += THREADS) yr[c] = expf(xr[c] - row_max) / row_sum;
}
