// DEFECTIVE: off-by-one bound check (i <= n); with N=500 and 512 threads, thread 500 reads x[500].
extern "C" __global__ void vector_add_offbyone(const float* __restrict__ x, const float* __restrict__ y,
                                               float* __restrict__ out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i <= n) {   // DEFECT: should be i < n
        out[i] = x[i] + y[i];
    }
}
