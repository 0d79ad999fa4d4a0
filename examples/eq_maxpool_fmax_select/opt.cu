// 2x2 max-pool, stride 2, over a 16x16 image: the max written as selects (v > m ? v : m), starting from
// the bottom-right element and walking the window backwards, as LLM-written kernels often do.
extern "C" __global__ void maxpool_select(const float* __restrict__ x, float* __restrict__ y, int h, int w)
{
    int o = blockIdx.x * blockDim.x + threadIdx.x;
    int ow = w / 2;
    if (o >= (h / 2) * ow) return;
    int r = (o / ow) * 2, c = (o % ow) * 2;
    float m = x[(r + 1) * w + c + 1];
    float v = x[(r + 1) * w + c];
    m = v > m ? v : m;
    v = x[r * w + c + 1];
    m = m >= v ? m : v;
    v = x[r * w + c];
    m = v > m ? v : m;
    y[o] = m;
}
