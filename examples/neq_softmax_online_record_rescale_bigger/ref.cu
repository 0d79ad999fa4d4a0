// Row softmax reference, one warp per row: three passes, each lane striding the row; the max and the sum
// are combined across the warp with xor shuffles. y = expf(x - max) / sum, full-precision expf.
#include <math.h>
extern "C" __global__ void softmax_warp_three_pass(const float* __restrict__ x, float* __restrict__ y, int rows, int cols)
{
    int r = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5), lane = threadIdx.x & 31;
    if (r >= rows) return;
    const float* xr = x + r * cols;
    float* yr = y + r * cols;
    float m = -INFINITY;
    for (int c = lane; c < cols; c += 32) m = fmaxf(m, xr[c]);
    for (int off = 16; off > 0; off >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, off));
    float sum = 0.0f;
    for (int c = lane; c < cols; c += 32) sum += expf(xr[c] - m);
    for (int off = 16; off > 0; off >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, off);
    for (int c = lane; c < cols; c += 32) yr[c] = expf(xr[c] - m) / sum;
}
