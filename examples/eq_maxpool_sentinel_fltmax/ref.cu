// 2x2 max-pool, running max from -INFINITY with fmaxf. 16x16 -> 8x8, 2 blocks of 32.
#include <math.h>
extern "C" __global__ void maxpool_neginf(const float* __restrict__ x, float* __restrict__ y, int H, int W)
{
    int o = blockIdx.x * blockDim.x + threadIdx.x, OW = W / 2;
    if (o >= (H / 2) * OW) return;
    const float* p = x + 2 * (o / OW) * W + 2 * (o % OW);
    float m = -INFINITY;
    for (int dy = 0; dy < 2; ++dy)
        for (int dx = 0; dx < 2; ++dx) m = fmaxf(m, p[dy * W + dx]);
    y[o] = m;
}
