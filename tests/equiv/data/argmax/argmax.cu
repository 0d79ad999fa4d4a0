// Argmax over rows of 64 floats for tests/equiv/test_argmax.py: a sequential scan against a warp's shuffle tree.
// The tree merges its predicate (ov > bv || ov == bv && oi < bi) through if-conversion into a select of truth
// values, which then chooses floats and indices (expr.select used to raise TypeError there: a traceback).
// Regenerate: nvcc -ptx -lineinfo -arch=sm_80 -o argmax.sm80.ptx argmax.cu
// argmax over rows of 64: sequential vs shuffle tree
extern "C" __global__ void argmax_seq(const float* x, int* out, int rows) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < rows) {
        int best = 0; float bv = x[r * 64];
        for (int k = 1; k < 64; k++) { float v = x[r * 64 + k]; if (v > bv) { bv = v; best = k; } }
        out[r] = best;
    }
}
// warp per row; ties -> smaller index
extern "C" __global__ void argmax_warp(const float* x, int* out, int rows) {
    int r = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    if (r >= rows) return;
    float v0 = x[r * 64 + lane], v1 = x[r * 64 + lane + 32];
    float bv = v0; int bi = lane;
    if (v1 > bv) { bv = v1; bi = lane + 32; }
    for (int o = 16; o > 0; o >>= 1) {
        float ov = __shfl_down_sync(0xffffffff, bv, o);
        int oi = __shfl_down_sync(0xffffffff, bi, o);
        if (ov > bv || (ov == bv && oi < bi)) { bv = ov; bi = oi; }
    }
    if (lane == 0) out[r] = bi;
}
// ties -> larger index (wrong on ties)
extern "C" __global__ void argmax_warp_ties(const float* x, int* out, int rows) {
    int r = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    if (r >= rows) return;
    float v0 = x[r * 64 + lane], v1 = x[r * 64 + lane + 32];
    float bv = v0; int bi = lane;
    if (v1 >= bv) { bv = v1; bi = lane + 32; }
    for (int o = 16; o > 0; o >>= 1) {
        float ov = __shfl_down_sync(0xffffffff, bv, o);
        int oi = __shfl_down_sync(0xffffffff, bi, o);
        if (ov > bv || (ov == bv && oi < bi)) { bv = ov; bi = oi; }
    }
    if (lane == 0) out[r] = bi;
}
