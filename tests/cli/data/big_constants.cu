// nvcc -ptx -arch=sm_80 big_constants.cu -o big_constants.ptx
// Float constants whose exact rationals leave int64 (1e30f is a 100-bit integer, 3e-39f a subnormal with a
// 149-bit denominator) combined with lane-structured data (issue 28 §5: an OverflowError in numpy.full).
extern "C" __global__ void scale_big(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] * 1e30f + 3.0e-39f;
}
extern "C" __global__ void scale_big_swapped(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = 3.0e-39f + 1e30f * x[i];
}
extern "C" __global__ void scale_big_wrong(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] * 1e29f + 3.0e-39f;
}
