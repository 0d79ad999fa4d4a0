// DEFECTIVE: __syncthreads() inside the divergent branch of a tree reduction (barrier divergence: deadlock).
#define BLOCK 256
extern "C" __global__ void reduce_divergent_sync(const float* __restrict__ in, float* __restrict__ out, int n)
{
    __shared__ float sdata[BLOCK];
    int tid = threadIdx.x;
    int i = blockIdx.x * BLOCK + tid;
    sdata[tid] = (i < n) ? in[i] : 0.0f;
    __syncthreads();
    for (int s = BLOCK / 2; s > 0; s >>= 1) {
        if (tid < s) {
            sdata[tid] += sdata[tid + s];
            __syncthreads();   // DEFECT: only threads with tid < s reach this barrier
        }
    }
    if (tid == 0) {
        out[blockIdx.x] = sdata[0];
    }
}
