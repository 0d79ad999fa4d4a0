// KernelBench-style LayerNorm over the last dim (8 rows x 32) without affine, reference: one thread per row,
// two passes, (x - mean) / sqrtf(var + eps).
#include <math.h>
extern "C" __global__ void layernorm_naive(const float* x, float* y, int rows, int n, float eps)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    const float* xr = x + r * n;
    float mean = 0.0f, var = 0.0f;
    for (int i = 0; i < n; ++i) mean += xr[i];
    mean /= n;
    for (int i = 0; i < n; ++i) var += (xr[i] - mean) * (xr[i] - mean);
    var /= n;
    for (int i = 0; i < n; ++i) y[r * n + i] = (xr[i] - mean) / sqrtf(var + eps);
}
