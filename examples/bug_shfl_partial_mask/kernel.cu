// DEFECT: the last step of a block reduction reduces the per-warp partials with a shuffle whose member mask
// names only the lanes that hold a partial (lanes 0-7 for 8 warps), yet shifts by 16 and 8 first: lane 0 adds
// what lane 16 and lane 8 hold, lanes that are not taking part, so the values it reads are undefined
// (CUDA Programming Guide, warp shuffle functions). A full mask with zero-filled lanes is the fix.
__device__ float lanes_sum(unsigned mask, float v) {
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_down_sync(mask, v, offset);   // DEFECT: under a partial mask, reads lanes outside it
    return v;
}

extern "C" __global__ void block_sum_partial_mask(const float *x, float *out, unsigned n) {
    __shared__ float partial[32];
    unsigned tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    unsigned i = blockIdx.x * blockDim.x + tid;
    float v = i < n ? x[i] : 0.0f;
    v = lanes_sum(0xffffffffu, v);
    if (lane == 0) partial[warp] = v;
    __syncthreads();
    unsigned warps = blockDim.x / 32;
    unsigned holders = __ballot_sync(0xffffffffu, tid < warps);
    if (tid < warps) {
        v = lanes_sum(holders, partial[tid]);
        if (tid == 0) out[blockIdx.x] = v;
    }
}
