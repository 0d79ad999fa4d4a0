// 2x2 max-pool, stride 2, over a 16x16 image (8x8 outputs): fmaxf from a -INFINITY sentinel, row-major
// window order. Grid 2 blocks of 32 threads, one output per thread.
#include <math.h>
extern "C" __global__ void maxpool_fmax(const float* __restrict__ x, float* __restrict__ y, int h, int w)
{
    int o = blockIdx.x * blockDim.x + threadIdx.x;
    int ow = w / 2;
    if (o >= (h / 2) * ow) return;
    int r = (o / ow) * 2, c = (o % ow) * 2;
    float m = -INFINITY;
    for (int dy = 0; dy < 2; ++dy)
        for (int dx = 0; dx < 2; ++dx)
            m = fmaxf(m, x[(r + dy) * w + c + dx]);
    y[o] = m;
}
