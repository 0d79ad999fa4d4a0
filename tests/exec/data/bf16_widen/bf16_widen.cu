// Kernels for tests/exec/test_bf16_widen_real.py: `mov.b32 %f, {0, %h}`, nvcc's __bfloat162float on sm_80
// (a bf16 value above 16 zero bits is the f32 of the same number), and 16-bit values that are not bf16 bits
// widened the same way (inline PTX), which are other numbers.
// Regenerate: nvcc -ptx -lineinfo -arch=sm_80 -o bf16_widen.sm80.ptx bf16_widen.cu
#include <cuda_bf16.h>
#include <cuda_fp16.h>

__device__ __forceinline__ float widen(unsigned short h)
{
    float f;
    asm("mov.b32 %0, {0, %1};" : "=f"(f) : "h"(h));
    return f;
}

extern "C" __global__ void copy(const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i];
}

// f32 -> bf16 -> f32 (the rounding is the identity over the reals, like every conversion)
extern "C" __global__ void bf16_round_trip(const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = __bfloat162float(__float2bfloat16(x[i]));
}

// an f16 value's bits widened as if they were bf16: another number
extern "C" __global__ void f16_bits_widened(const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = widen(__half_as_ushort(__float2half(x[i])));
}

// a float rounded to a u16 widened as bf16 bits: another number
extern "C" __global__ void u16_widened(const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = widen((unsigned short)x[i]);
}

// elements of a bf16 buffer, widened (sm_80's __bfloat162float) or scaled by 1 in f32
extern "C" __global__ void bf16_load(const __nv_bfloat16* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = __bfloat162float(x[i]);
}

extern "C" __global__ void bf16_load_twice_half(const __nv_bfloat16* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = 0.5f * __bfloat162float(x[i]) + 0.5f * __bfloat162float(x[i]);
}

// elements of an f16 buffer widened as bf16 bits: another number
extern "C" __global__ void f16_load_widened(const __half* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = widen(__half_as_ushort(x[i]));
}

extern "C" __global__ void f16_load(const __half* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = __half2float(x[i]);
}

// the neighbour's element: NOT EQUIVALENT, confirmed by an exact replay (whose input elements are constants)
extern "C" __global__ void bf16_load_next(const __nv_bfloat16* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = __bfloat162float(x[(i + 1) % n]);
}
