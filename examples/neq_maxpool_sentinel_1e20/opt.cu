// The same max-pool with a "very negative" finite sentinel: windows whose every element is below -1e20f pool
// to -1e20f. The witness must be a window of f32 values below it (the next f32 under -1e20f), not -1e20f - 1.
extern "C" __global__ void maxpool_sentinel(const float* __restrict__ x, float* __restrict__ y, int H, int W)
{
    int o = blockIdx.x * blockDim.x + threadIdx.x, OW = W / 2;
    if (o >= (H / 2) * OW) return;
    const float* p = x + 2 * (o / OW) * W + 2 * (o % OW);
    float m = -1e20f;  // DEFECT: a finite sentinel instead of -INFINITY
    for (int dy = 0; dy < 2; ++dy)
        for (int dx = 0; dx < 2; ++dx) m = p[dy * W + dx] > m ? p[dy * W + dx] : m;
    y[o] = m;
}
