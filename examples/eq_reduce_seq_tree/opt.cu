// Shared-memory tree integer reduction: one partial sum per block of 256 (wrapping s32 addition is
// associative, so the result equals the sequential sum bit for bit).
#define BLOCK 256
extern "C" __global__ void reduce_tree_s32(const int* __restrict__ in, int* __restrict__ out, int n)
{
    __shared__ int sdata[BLOCK];
    int tid = threadIdx.x;
    int i = blockIdx.x * BLOCK + tid;
    sdata[tid] = (i < n) ? in[i] : 0;
    __syncthreads();
    for (int s = BLOCK / 2; s > 0; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = sdata[0];
}
