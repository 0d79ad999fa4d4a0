// Defect an LLM makes: two threads per row; each normalizes by the sum over its own half of the row only
// (the cross-thread step is missing).
#include <math.h>
extern "C" __global__ void softmax_half_sum(const float* x, float* y, int rows, int n)
{
    int r = blockIdx.x * blockDim.x / 2 + threadIdx.x / 2, h = threadIdx.x & 1, half = n / 2;
    if (r >= rows) return;
    const float* xr = x + r * n;
    float m = xr[0];
    for (int i = 1; i < n; ++i) m = fmaxf(m, xr[i]);
    float s = 0.0f;
    for (int i = h * half; i < (h + 1) * half; ++i) s += expf(xr[i] - m);  // DEFECT: half of the row's sum
    for (int i = h * half; i < (h + 1) * half; ++i) y[r * n + i] = expf(xr[i] - m) / s;
}
