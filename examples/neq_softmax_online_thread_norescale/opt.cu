// DEFECTIVE: the running sum is not rescaled by expf(m_old - m_new) when the running max grows.
// Row softmax, one thread per row, online normalizer: one pass keeps the running max m and the running sum
// d of expf(x - m); a second pass writes.
#include <math.h>
extern "C" __global__ void softmax_online_norescale(const float* __restrict__ x, float* __restrict__ y, int rows, int cols)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    const float* xr = x + r * cols;
    float* yr = y + r * cols;
    float m = -INFINITY, d = 0.0f;
    for (int c = 0; c < cols; ++c) {
        float v = xr[c];
        float m_new = fmaxf(m, v);
        d = d + expf(v - m_new);   // DEFECT: missing d * expf(m - m_new)
        m = m_new;
    }
    float inv = 1.0f / d;
    for (int c = 0; c < cols; ++c) yr[c] = expf(xr[c] - m) * inv;
}
