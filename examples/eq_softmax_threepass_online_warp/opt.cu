// Row softmax, one warp per row, online normalizer: each lane keeps (running max, running sum rescaled by
// expf(m_old - m_new)) over its strided columns; the lanes' pairs merge by xor shuffles, each side's sum
// rescaled to the merged max; full-precision expf.
#include <math.h>
extern "C" __global__ void softmax_warp_online(const float* __restrict__ x, float* __restrict__ y, int rows, int cols)
{
    int r = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5), lane = threadIdx.x & 31;
    if (r >= rows) return;
    const float* xr = x + r * cols;
    float* yr = y + r * cols;
    float m = -INFINITY, d = 0.0f;
    for (int c = lane; c < cols; c += 32) {
        float v = xr[c];
        float m_new = fmaxf(m, v);
        d = d * expf(m - m_new) + expf(v - m_new);
        m = m_new;
    }
    for (int off = 16; off > 0; off >>= 1) {
        float m_o = __shfl_xor_sync(0xffffffffu, m, off);
        float d_o = __shfl_xor_sync(0xffffffffu, d, off);
        float m_new = fmaxf(m, m_o);
        d = d * expf(m - m_new) + d_o * expf(m_o - m_new);
        m = m_new;
    }
    for (int c = lane; c < cols; c += 32) yr[c] = expf(xr[c] - m) / d;
}
