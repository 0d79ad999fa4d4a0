// DEFECTIVE: ragged tree reduction (N=1000, 1024 threads) where out-of-range threads never write their
// shared slot, so the tree reads uninitialized shared memory.
#define BLOCK 256
extern "C" __global__ void reduce_uninit(const float* __restrict__ in, float* __restrict__ out, int n)
{
    __shared__ float sdata[BLOCK];
    int tid = threadIdx.x;
    int i = blockIdx.x * BLOCK + tid;
    if (i < n) {
        sdata[tid] = in[i];   // missing: else sdata[tid] = 0.0f;
    }
    __syncthreads();
    for (int s = BLOCK / 2; s > 0; s >>= 1) {
        if (tid < s) {
            sdata[tid] += sdata[tid + s];   // DEFECT: reads slots never written in the last block
        }
        __syncthreads();
    }
    if (tid == 0) {
        out[blockIdx.x] = sdata[0];
    }
}
