// DEFECTIVE: row softmax, one warp per row, online normalizer merged as a record (as eq_softmax_threepass_online_record),
// but the merge rescales the BIGGER pair's sum to the smaller max and adds the smaller's as it is: right only
// when the two maxima are equal. The defect is the line that computes r.s.
#include <math.h>

struct MaxSum {
    float m;  // running max
    float s;  // sum of expf(v - m) over what was folded in
};

__device__ __forceinline__ MaxSum merge(MaxSum a, MaxSum b)
{
    bool a_bigger = a.m > b.m;
    MaxSum big = a_bigger ? a : b;
    MaxSum small = a_bigger ? b : a;
    MaxSum r;
    r.m = big.m;
    r.s = small.s + big.s * expf(small.m - big.m);   // DEFECT: rescales the bigger sum, not the smaller
    return r;
}

extern "C" __global__ void softmax_warp_online_record_bad(const float* __restrict__ x, float* __restrict__ y, int rows,
                                                      int cols)
{
    int r = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5), lane = threadIdx.x & 31;
    if (r >= rows) return;
    const float* xr = x + r * cols;
    float* yr = y + r * cols;
    MaxSum acc = {-INFINITY, 0.0f};
    for (int c = lane; c < cols; c += 32) acc = merge(acc, MaxSum{xr[c], 1.0f});
    for (int off = 16; off > 0; off >>= 1) {
        MaxSum other = {__shfl_xor_sync(0xffffffffu, acc.m, off), __shfl_xor_sync(0xffffffffu, acc.s, off)};
        acc = merge(acc, other);
    }
    for (int c = lane; c < cols; c += 32) yr[c] = expf(xr[c] - acc.m) / acc.s;
}
