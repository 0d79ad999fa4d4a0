// DEFECTIVE: classic "warp-synchronous" last-warp unroll through a volatile pointer with no __syncwarp().
// Since Volta (independent thread scheduling) the lanes of a warp are not guaranteed to run in lockstep.
#define BLOCK 256
__device__ void warp_reduce(volatile float* s, int tid)
{
    s[tid] += s[tid + 32];   // DEFECT: no __syncwarp() between these steps
    s[tid] += s[tid + 16];
    s[tid] += s[tid + 8];
    s[tid] += s[tid + 4];
    s[tid] += s[tid + 2];
    s[tid] += s[tid + 1];
}

extern "C" __global__ void reduce_warp_nosyncwarp(const float* __restrict__ in, float* __restrict__ out, int n)
{
    __shared__ float sdata[BLOCK];
    int tid = threadIdx.x;
    int i = blockIdx.x * BLOCK + tid;
    sdata[tid] = (i < n) ? in[i] : 0.0f;
    __syncthreads();
    for (int s = BLOCK / 2; s > 32; s >>= 1) {
        if (tid < s) {
            sdata[tid] += sdata[tid + s];
        }
        __syncthreads();
    }
    if (tid < 32) {
        warp_reduce(sdata, tid);
    }
    if (tid == 0) {
        out[blockIdx.x] = sdata[0];
    }
}
