// libdevice logf/log2f (no fast math: the exponent/mantissa split on the float's bits), for
// tests/equiv/test_libdevice_log.py. nvcc -arch=sm_80 -ptx -lineinfo libdevice_log.cu
extern "C" __global__ void log_plain(const float* __restrict__ x, float* __restrict__ y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = logf(x[i]);
}

extern "C" __global__ void log_guarded(const float* __restrict__ x, float* __restrict__ y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { float v = x[i]; y[i] = v > 0.0f ? logf(v) : 0.0f; }
}

extern "C" __global__ void log_shifted(const float* __restrict__ x, float* __restrict__ y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = logf(x[i]) + 1e-7f;
}

extern "C" __global__ void log_scaled_arg(const float* __restrict__ x, float* __restrict__ y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = logf(x[i] * 1.0000001f);
}

extern "C" __global__ void mantissa_bits(const float* __restrict__ x, float* __restrict__ y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = __int_as_float((__float_as_int(x[i]) & 0x007fffff) | 0x3f800000);
}
