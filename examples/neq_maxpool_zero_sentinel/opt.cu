// 2x2 max-pool, stride 2, over a 16x16 image, with a wrong sentinel: the running max starts at 0, so a
// window of negative values pools to 0 instead of its maximum.
extern "C" __global__ void maxpool_zero_init(const float* __restrict__ x, float* __restrict__ y, int h, int w)
{
    int o = blockIdx.x * blockDim.x + threadIdx.x;
    int ow = w / 2;
    if (o >= (h / 2) * ow) return;
    int r = (o / ow) * 2, c = (o % ow) * 2;
    float m = 0.0f;  // DEFECT: should be -INFINITY (or the first element)
    for (int dy = 0; dy < 2; ++dy)
        for (int dx = 0; dx < 2; ++dx) {
            float v = x[(r + dy) * w + c + dx];
            m = v > m ? v : m;
        }
    y[o] = m;
}
