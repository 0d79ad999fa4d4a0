// The same masked dot product: each thread adds its product to a shared partial only where a is positive
// (an atomic under a data-dependent branch), then one global atomicAdd per block into a zeroed output.
extern "C" __global__ void positive_dot_atomic(const float* __restrict__ a, const float* __restrict__ b, float* out, int n)
{
    __shared__ float partial;
    if (threadIdx.x == 0) partial = 0.0f;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        if (a[i] > 0.0f) atomicAdd(&partial, a[i] * b[i]);
    __syncthreads();
    if (threadIdx.x == 0) atomicAdd(out, partial);
}
