// Shared-memory tree f32 reduction: the same sums reassociated (equal over the reals, not in bits).
#define BLOCK 256
extern "C" __global__ void reduce_tree_f32(const float* __restrict__ in, float* __restrict__ out, int n)
{
    __shared__ float s[BLOCK];
    int tid = threadIdx.x;
    int i = blockIdx.x * BLOCK + tid;
    s[tid] = (i < n) ? in[i] : 0.0f;
    __syncthreads();
    for (int stride = BLOCK / 2; stride > 0; stride >>= 1) {
        if (tid < stride) s[tid] += s[tid + stride];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = s[0];
}
