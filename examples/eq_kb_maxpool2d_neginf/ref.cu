// KernelBench-style 2x2 max-pool (stride 2) of a C x H x W tensor, reference: -INFINITY sentinel and fmaxf.
#include <math.h>
extern "C" __global__ void maxpool2x2_sentinel(const float* x, float* y, int C, int H, int W)
{
    int OH = H / 2, OW = W / 2, idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= C * OH * OW) return;
    int c = idx / (OH * OW), oy = (idx / OW) % OH, ox = idx % OW;
    float m = -INFINITY;
    for (int dy = 0; dy < 2; ++dy)
        for (int dx = 0; dx < 2; ++dx) m = fmaxf(m, x[(c * H + 2 * oy + dy) * W + 2 * ox + dx]);
    y[idx] = m;
}
