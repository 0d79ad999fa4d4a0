// Dot product the way LLM solutions write it: warp shuffles, one shared atomicAdd per warp, a barrier, then
// one global atomicAdd per block into a zeroed output.
extern "C" __global__ void dot_atomic(const float* __restrict__ a, const float* __restrict__ b, float* out, int n)
{
    __shared__ float block_sum;
    if (threadIdx.x == 0) block_sum = 0.0f;
    __syncthreads();
    float v = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) v += a[i] * b[i];
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    if ((threadIdx.x & 31) == 0) atomicAdd(&block_sum, v);
    __syncthreads();
    if (threadIdx.x == 0) atomicAdd(out, block_sum);
}
