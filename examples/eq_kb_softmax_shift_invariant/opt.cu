// Row softmax shifted by the row's first element instead of its max: the same function over the reals
// (exp(x_i - c) / sum_j exp(x_j - c) does not depend on c), though it can overflow in floats. Volta checks over
// the reals; the bit mode (--fp ieee) is where the overflow shows.
#include <math.h>
extern "C" __global__ void softmax_firstshift(const float* x, float* y, int rows, int n)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    const float* xr = x + r * n;
    float c = xr[0], s = 0.0f;
    for (int i = 0; i < n; ++i) s += expf(xr[i] - c);
    float inv = 1.0f / s;
    for (int i = 0; i < n; ++i) y[r * n + i] = expf(xr[i] - c) * inv;
}
