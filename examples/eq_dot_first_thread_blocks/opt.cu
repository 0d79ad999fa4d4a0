// Two blocks: grid-stride partial sums, a shared-memory tree per block, one atomicAdd per block into
// out[0] (zero before the launch).
extern "C" __global__ void dot_blocks(const float* __restrict__ x, const float* __restrict__ y, float* out, int n)
{
    __shared__ float part[128];
    float s = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) s += x[i] * y[i];
    part[threadIdx.x] = s;
    __syncthreads();
    for (int w = blockDim.x / 2; w > 0; w /= 2) {
        if (threadIdx.x < w) part[threadIdx.x] += part[threadIdx.x + w];
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(out, part[0]);
}
