// Row softmax with full-precision expf (libdevice, no fast math), naive three passes (max, sum of exp, normalize). One warp per row; lanes stride the row
// and combine with __shfl_xor_sync.
extern "C" __global__ void softmax_expf_naive(const float* __restrict__ x, float* __restrict__ y, int rows, int cols)
{
    int row = blockIdx.x;
    int lane = threadIdx.x;
    if (row >= rows) return;
    const float* xr = x + row * cols;
    float* yr = y + row * cols;

    float m = -INFINITY;
    for (int c = lane; c < cols; c += 32) m = fmaxf(m, xr[c]);
    for (int off = 16; off > 0; off >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, off));

    float s = 0.0f;
    for (int c = lane; c < cols; c += 32) s += expf(xr[c] - m);
    for (int off = 16; off > 0; off >>= 1) s += __shfl_xor_sync(0xffffffffu, s, off);

    float inv = 1.0f / s;
    for (int c = lane; c < cols; c += 32) yr[c] = expf(xr[c] - m) * inv;
}
