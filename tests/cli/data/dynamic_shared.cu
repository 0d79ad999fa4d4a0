// tests/cli/test_dynamic_shared.py: a kernel staging through `extern __shared__` memory, whose size is a launch
// parameter (--shared-dynamic). Regenerate: nvcc -ptx -lineinfo -arch=sm_80 -o dynamic_shared.ptx dynamic_shared.cu
extern "C" __global__ void copy(const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i];
}

extern "C" __global__ void copy_dyn(const float* x, float* y, int n)
{
    extern __shared__ float s[];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    s[threadIdx.x] = i < n ? x[i] : 0.0f;
    __syncthreads();
    if (i < n) y[i] = s[threadIdx.x];
}
