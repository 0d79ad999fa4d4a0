// Two blocks: grid-stride partial sums, a shared-memory tree per block, one atomicAdd per block into
// out[0] (zero before the launch). Bug: the strided loop stops at n - 1, so the last product is never added.
extern "C" __global__ void dot_blocks(const float* __restrict__ x, const float* __restrict__ y, float* out, int n)
{
    __shared__ float part[128];
    float s = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n - 1; i += gridDim.x * blockDim.x) s += x[i] * y[i];   // DEFECT: stops at n - 1
    part[threadIdx.x] = s;
    __syncthreads();
    for (int w = blockDim.x / 2; w > 0; w /= 2) {
        if (threadIdx.x < w) part[threadIdx.x] += part[threadIdx.x + w];
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(out, part[0]);
}
