// tanhf of each element, two elements per thread in an unrolled loop (half the threads). N=512, 4 blocks of 64.
extern "C" __global__ void tanh_two(const float* __restrict__ x, float* __restrict__ y, int n)
{
    int base = 2 * (blockIdx.x * blockDim.x + threadIdx.x);
#pragma unroll
    for (int k = 0; k < 2; ++k) {
        int i = base + k;
        if (i < n) y[i] = tanhf(x[i]);
    }
}
