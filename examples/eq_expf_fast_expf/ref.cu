// Row-wise exp with a shift, full-precision expf (libdevice: log2 e split as hi + lo). N=512, 4 blocks of 128.
extern "C" __global__ void exp_shift_expf(const float* __restrict__ x, const float* __restrict__ b,
                                          float* __restrict__ y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    y[i] = expf(x[i] - b[i / 128]);
}
