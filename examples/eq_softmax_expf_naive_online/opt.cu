// Row softmax with full-precision expf (libdevice, no fast math) and the online (single-pass) normalizer: each lane keeps a running max m and a running
// sum d rescaled by exp(m_old - m_new); lanes merge their (m, d) pairs with shuffles. One warp per row.
extern "C" __global__ void softmax_expf_online(const float* __restrict__ x, float* __restrict__ y, int rows, int cols)
{
    int row = blockIdx.x;
    int lane = threadIdx.x;
    if (row >= rows) return;
    const float* xr = x + row * cols;
    float* yr = y + row * cols;

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
    float inv = 1.0f / d;
    for (int c = lane; c < cols; c += 32) yr[c] = expf(xr[c] - m) * inv;
}
