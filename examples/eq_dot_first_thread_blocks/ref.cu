// Reference: out[0] = sum_i x[i] * y[i], in order, by thread 0 of block 0; every other thread of the
// launch (grid 2, block 128) does nothing. The lane executor picks that thread alone for the whole loop,
// and volta/exec/fast/onethread.py `solo` runs it as decoded steps.
extern "C" __global__ void dot_first_thread(const float* __restrict__ x, const float* __restrict__ y, float* out, int n)
{
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        float s = 0.0f;
        for (int i = 0; i < n; ++i) s += x[i] * y[i];
        out[0] = s;
    }
}
