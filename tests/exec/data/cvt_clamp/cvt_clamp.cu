// volta check over the reals: float-to-float cvt with .relu and .satfinite (inline PTX; CUDA has no intrinsic
// that emits them one value at a time). Over the reals a conversion is the identity, but .relu clamps at 0 and
// .satfinite at the destination's largest finite value: another real function, not a rounding.
// nvcc -ptx -lineinfo -arch=sm_90 cvt_clamp.cu -o cvt_clamp.sm90.ptx
#include <cuda_fp16.h>
#include <cuda_bf16.h>

extern "C" __global__ void relu_f16(const float* x, float* out, int n) {
    int i = threadIdx.x;
    if (i < n) {
        unsigned short h;
        asm("cvt.rn.relu.f16.f32 %0, %1;" : "=h"(h) : "f"(x[i]));
        out[i] = __half2float(__ushort_as_half(h));
    }
}

extern "C" __global__ void relu_bf16(const float* x, float* out, int n) {
    int i = threadIdx.x;
    if (i < n) {
        unsigned short h;
        asm("cvt.rn.relu.bf16.f32 %0, %1;" : "=h"(h) : "f"(x[i]));
        out[i] = __bfloat162float(__ushort_as_bfloat16(h));
    }
}

extern "C" __global__ void satfinite_f16(const float* x, float* out, int n) {
    int i = threadIdx.x;
    if (i < n) {
        unsigned short h;
        asm("cvt.rn.satfinite.f16.f32 %0, %1;" : "=h"(h) : "f"(x[i]));
        out[i] = __half2float(__ushort_as_half(h));
    }
}

extern "C" __global__ void round_trip_f16(const float* x, float* out, int n) {
    int i = threadIdx.x;
    if (i < n) out[i] = __half2float(__float2half(x[i]));
}

extern "C" __global__ void copy(const float* x, float* out, int n) {
    int i = threadIdx.x;
    if (i < n) out[i] = x[i];
}

extern "C" __global__ void relu(const float* x, float* out, int n) {
    int i = threadIdx.x;
    if (i < n) out[i] = fmaxf(x[i], 0.0f);
}

extern "C" __global__ void clamp_f16(const float* x, float* out, int n) {
    int i = threadIdx.x;
    if (i < n) out[i] = fminf(fmaxf(x[i], -65504.0f), 65504.0f);
}
