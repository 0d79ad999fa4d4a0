// tanhf (libdevice, full precision) of each element, one element per thread. N=512, 4 blocks of 128.
extern "C" __global__ void tanh_one(const float* __restrict__ x, float* __restrict__ y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    y[i] = tanhf(x[i]);
}
