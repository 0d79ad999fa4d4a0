// Kernels for tests/equiv/test_real_idioms.py (nvcc -ptx -lineinfo -arch=sm_80, no fast math).
#include <math.h>
extern "C" __global__ void silu_expf(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { float v = x[i]; y[i] = v / (1.0f + expf(-v)); }
}
// the same with the fast intrinsic: 2^(x * 0f3FB8AA3B), a different real function from expf's
extern "C" __global__ void silu_fastexp(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { float v = x[i]; y[i] = v / (1.0f + __expf(-v)); }
}
// expf without its clamp cannot be recognised: here the exponent field gets an unbounded integer
extern "C" __global__ void pow2_bits(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { float v = x[i] + 12582912.0f; y[i] = 2.0f * __int_as_float(__float_as_int(v) << 23); }
}
extern "C" __global__ void rms_rsqrt(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { float v = x[i]; y[i] = v * rsqrtf(v * v + 1e-6f); }
}
extern "C" __global__ void rms_div_sqrt(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { float v = x[i]; y[i] = v / sqrtf(v * v + 1e-6f); }
}
extern "C" __global__ void rms_sqrt_wrong(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { float v = x[i]; y[i] = v * sqrtf(v * v + 1e-6f); }
}
// cvt.sat.f32.f32 is the clamp to [0, 1] over the reals, not the identity
extern "C" __global__ void saturate(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { y[i] = __saturatef(x[i]); }
}
extern "C" __global__ void identity(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { y[i] = x[i]; }
}
extern "C" __global__ void clamp01(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { y[i] = fminf(fmaxf(x[i], 0.0f), 1.0f); }
}
