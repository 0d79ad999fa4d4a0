// volta check over the reals: a float's bits read by an integer load and compared as an integer (signbit,
// bit-pattern range tests). Over the reals the loaded register carries the float's value, so comparing that
// value as the integer was another function: signbit(x) became x > -1.
// nvcc -ptx -lineinfo -arch=sm_80 float_bits_load.cu -o float_bits_load.sm80.ptx
#include <math.h>

extern "C" __global__ void signbit_load(const float* x, float* out, int n) {
    int i = threadIdx.x;
    if (i < n) out[i] = signbit(x[i]) ? -1.0f : 1.0f;          // ld.global.u32, setp.gt.s32 bits, -1
}

extern "C" __global__ void negative_select(const float* x, float* out, int n) {
    int i = threadIdx.x;
    if (i < n) out[i] = x[i] < 0.0f ? -1.0f : 1.0f;
}

extern "C" __global__ void above_one_bits(const float* x, float* out, int n) {
    int i = threadIdx.x;
    const int* xi = (const int*)x;
    if (i < n) out[i] = xi[i] > 1065353216 ? 2.0f : 0.0f;    // bits(x) > bits(1.0f): x > 1
}

extern "C" __global__ void above_one(const float* x, float* out, int n) {
    int i = threadIdx.x;
    if (i < n) out[i] = x[i] > 1.0f ? 2.0f : 0.0f;
}

extern "C" __global__ void above_one_number(const float* x, float* out, int n) {
    int i = threadIdx.x;
    if (i < n) out[i] = x[i] > 1065353216.0f ? 2.0f : 0.0f;  // what the bits' integer is over the reals
}

extern "C" __global__ void above_one_pair(const float* x, float* out, int n) {
    int i = threadIdx.x;
    const int2* xi = (const int2*)x;                          // ld.global.v2.u32 and a selp of its halves
    int2 v = xi[i / 2];
    int w = (i & 1) ? v.y : v.x;
    if (i < n) out[i] = w > 1065353216 ? 2.0f : 0.0f;
}

extern "C" __global__ void finite_nonnegative_bits(const float* x, float* out, int n) {
    int i = threadIdx.x;
    const unsigned* xi = (const unsigned*)x;
    if (i < n) out[i] = xi[i] < 0x7f800000u ? 2.0f : 0.0f;  // 0 <= x < inf
}

extern "C" __global__ void nonnegative(const float* x, float* out, int n) {
    int i = threadIdx.x;
    if (i < n) out[i] = x[i] >= 0.0f ? 2.0f : 0.0f;
}

extern "C" __global__ void same_bits(const float* x, const float* y, float* out, int n) {
    int i = threadIdx.x;
    const int* xi = (const int*)x;
    const int* yi = (const int*)y;
    if (i < n) out[i] = xi[i] == yi[i] ? 2.0f : 0.0f;
}

extern "C" __global__ void to_int(const float* x, int* out, int n) {
    int i = threadIdx.x;
    if (i < n) out[i] = (int)x[i];                            // cvt.rzi.s32.f32 of a float register
}

extern "C" __global__ void above_one_bits_f64(const double* x, double* out, int n) {
    int i = threadIdx.x;
    const long long* xi = (const long long*)x;
    if (i < n) out[i] = xi[i] > 4607182418800017408LL ? 2.0 : 0.0;   // bits(x) > bits(1.0): setp.gt.s64
}

extern "C" __global__ void above_one_number_f64(const double* x, double* out, int n) {
    int i = threadIdx.x;
    if (i < n) out[i] = x[i] > 4607182418800017408.0 ? 2.0 : 0.0;
}

extern "C" __global__ void folded_fraction_bits(const float* x, float* out, int n) {
    __shared__ float s[32];
    int i = threadIdx.x;
    s[i] = x[i] * 0.0f + 2.5f;                                // tensor data folded to the constant 2.5
    __syncthreads();
    const int* si = (const int*)s;
    if (i < n) out[i] = si[i] > 1065353216 ? 2.0f : 0.0f;     // bits(2.5f) > bits(1.0f): 2
}

extern "C" __global__ void folded_integral_bits(const float* x, float* out, int n) {
    __shared__ float s[32];
    int i = threadIdx.x;
    s[i] = x[i] * 0.0f + 2.0f;                                // 2.0f, or the int 2? the constant cannot tell
    __syncthreads();
    const int* si = (const int*)s;
    if (i < n) out[i] = si[i] > 1065353216 ? 2.0f : 0.0f;
}

extern "C" __global__ void two(const float* x, float* out, int n) {
    int i = threadIdx.x;
    if (i < n) out[i] = 2.0f;
}

extern "C" __global__ void folded_fraction_plus_one(const float* x, int* out, int n) {
    __shared__ float s[32];
    int i = threadIdx.x;
    s[i] = x[i] * 0.0f + 2.5f;
    __syncthreads();
    const int* si = (const int*)s;
    if (i < n) out[i] = si[i] + 1;                            // bits(2.5f) + 1, not 3.5
}

extern "C" __global__ void bits_of_two_and_a_half_plus_one(const float* x, int* out, int n) {
    int i = threadIdx.x;
    if (i < n) out[i] = 1075838977;
}

extern "C" __global__ void pair_sign_bits(const unsigned short* h, float* out, int n) {
    int i = threadIdx.x;
    const unsigned* hi = (const unsigned*)h;                  // two f16 elements read as one u32
    if (i < n) out[i] = hi[i] < 0x80000000u ? 1.0f : 0.0f;
}
