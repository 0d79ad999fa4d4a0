// Sum over dim=1, one block of 128 threads per row: strided partials, warp shuffles, warp sums through shared memory.
#define WARPS 4
extern "C" __global__ void rowsum_block(const float* __restrict__ x, float* __restrict__ out, int rows, int cols)
{
    __shared__ float warp_sum[WARPS];
    int r = blockIdx.x, lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    float s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) s += x[r * cols + c];
    for (int off = 16; off > 0; off >>= 1) s += __shfl_down_sync(0xffffffffu, s, off);
    if (lane == 0) warp_sum[warp] = s;
    __syncthreads();
    if (warp == 0) {
        s = lane < WARPS ? warp_sum[lane] : 0.0f;
        for (int off = 16; off > 0; off >>= 1) s += __shfl_down_sync(0xffffffffu, s, off);
        if (lane == 0) out[r] = s;
    }
}
