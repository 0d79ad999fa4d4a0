// The candidate with full-precision expf (libdevice: log2 e split as hi + lo, 2^n built in the exponent field):
// the same real function, exp, once RN(log2 e) is read as log2 e.
extern "C" __global__ void exp_shift_expf(const float* __restrict__ x, const float* __restrict__ b,
                                          float* __restrict__ y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    y[i] = expf(x[i] - b[i / 128]);
}
