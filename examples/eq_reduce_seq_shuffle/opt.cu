// Warp-shuffle integer reduction: __shfl_down_sync in each warp, warp sums via shared memory, then warp 0.
#define BLOCK 256
#define WARPS (BLOCK / 32)
extern "C" __global__ void reduce_shuffle_s32(const int* __restrict__ in, int* __restrict__ out, int n)
{
    __shared__ int warp_sums[WARPS];
    int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    int i = blockIdx.x * BLOCK + tid;
    int v = (i < n) ? in[i] : 0;
    for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
    if (lane == 0) warp_sums[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = (lane < WARPS) ? warp_sums[lane] : 0;
        for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
        if (lane == 0) out[blockIdx.x] = v;
    }
}
