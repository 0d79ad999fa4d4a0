// DEFECTIVE: every block adds its partial sum into out[0] with a plain (non-atomic) read-modify-write.
#define BLOCK 128
extern "C" __global__ void global_race_accum(const float* __restrict__ in, float* __restrict__ out, int n)
{
    __shared__ float sdata[BLOCK];
    int tid = threadIdx.x;
    int i = blockIdx.x * BLOCK + tid;
    sdata[tid] = (i < n) ? in[i] : 0.0f;
    __syncthreads();
    for (int s = BLOCK / 2; s > 0; s >>= 1) {
        if (tid < s) {
            sdata[tid] += sdata[tid + s];
        }
        __syncthreads();
    }
    if (tid == 0) {
        out[0] += sdata[0];   // DEFECT: blocks race on out[0]; needs atomicAdd
    }
}
