// Warp-shuffle reduction: __shfl_down_sync inside each warp, warp sums through shared memory,
// then the first warp reduces those. One partial sum per block.
#define BLOCK 256
#define WARPS (BLOCK / 32)
__device__ __forceinline__ float warp_sum(float v)
{
    for (int off = 16; off > 0; off >>= 1) {
        v += __shfl_down_sync(0xffffffffu, v, off);
    }
    return v;
}

extern "C" __global__ void reduce_shuffle(const float* __restrict__ in, float* __restrict__ out, int n)
{
    __shared__ float warp_sums[WARPS];
    int tid = threadIdx.x;
    int lane = tid & 31;
    int warp = tid >> 5;
    int i = blockIdx.x * BLOCK + tid;
    float v = (i < n) ? in[i] : 0.0f;
    v = warp_sum(v);
    if (lane == 0) {
        warp_sums[warp] = v;
    }
    __syncthreads();
    if (warp == 0) {
        v = (lane < WARPS) ? warp_sums[lane] : 0.0f;
        v = warp_sum(v);
        if (lane == 0) {
            out[blockIdx.x] = v;
        }
    }
}
