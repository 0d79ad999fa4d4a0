// Atomic reduction: each warp reduces with shuffles, lane 0 does one atomicAdd into out[0].
// out[0] must be zeroed before the launch.
extern "C" __global__ void reduce_atomic(const float* __restrict__ in, float* __restrict__ out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = (i < n) ? in[i] : 0.0f;
    for (int off = 16; off > 0; off >>= 1) {
        v += __shfl_down_sync(0xffffffffu, v, off);
    }
    if ((threadIdx.x & 31) == 0) {
        atomicAdd(out, v);
    }
}
