// Kernels for tests/exec/test_half2_load_real.py: f16/bf16 buffers read 32 bits (or 128) at a time, as
// optimized half-precision kernels do (a __half2 load is one ld.global.u32, taken apart by mov.b32 {lo, hi}),
// and an input element of which the kernel overwrote one byte before reading it.
// Regenerate: nvcc -ptx -lineinfo -arch=sm_80 -o half2_load.sm80.ptx half2_load.cu
#include <cuda_bf16.h>
#include <cuda_fp16.h>

extern "C" __global__ void pair_sum(const __half* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n / 2) y[i] = __half2float(x[2 * i]) + __half2float(x[2 * i + 1]);
}

extern "C" __global__ void pair_sum_half2(const __half* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n / 2) {
        __half2 v = reinterpret_cast<const __half2*>(x)[i];
        y[i] = __low2float(v) + __high2float(v);
    }
}

// the high element weighted twice: not the pair sum
extern "C" __global__ void pair_sum_half2_high_twice(const __half* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n / 2) {
        __half2 v = reinterpret_cast<const __half2*>(x)[i];
        y[i] = __low2float(v) + 2.0f * __high2float(v);
    }
}

// eight halves per thread through one 128-bit load
extern "C" __global__ void octet_sum(const __half* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n / 8) {
        float s = 0.0f;
        for (int k = 0; k < 8; k++) s += __half2float(x[8 * i + k]);
        y[i] = s;
    }
}

extern "C" __global__ void octet_sum_uint4(const __half* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n / 8) {
        uint4 raw = reinterpret_cast<const uint4*>(x)[i];
        const __half2* h = reinterpret_cast<const __half2*>(&raw);
        float s = 0.0f;
        for (int k = 0; k < 4; k++) s += __low2float(h[k]) + __high2float(h[k]);
        y[i] = s;
    }
}

// half2 arithmetic stored as half2, against the scalar form
extern "C" __global__ void scale_add(const __half* x, __half* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = __hadd(__hmul(x[i], __float2half(3.0f)), x[i]);
}

extern "C" __global__ void scale_add_half2(const __half* x, __half* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n / 2) {
        __half2 v = reinterpret_cast<const __half2*>(x)[i];
        reinterpret_cast<__half2*>(y)[i] = __hadd2(__hmul2(v, __float2half2_rn(3.0f)), v);
    }
}

// a bf16 pair, each element widened to f32
extern "C" __global__ void bf16_pair_sum(const __nv_bfloat16* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n / 2) y[i] = __bfloat162float(x[2 * i]) + __bfloat162float(x[2 * i + 1]);
}

extern "C" __global__ void bf16_pair_sum_bf162(const __nv_bfloat16* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n / 2) {
        __nv_bfloat162 v = reinterpret_cast<const __nv_bfloat162*>(x)[i];
        y[i] = __low2float(v) + __high2float(v);
    }
}

// a bf16 buffer read as __half2: the bits are other numbers
extern "C" __global__ void bf16_read_as_half2(const __nv_bfloat16* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n / 2) {
        __half2 v = reinterpret_cast<const __half2*>(x)[i];
        y[i] = __low2float(v) + __high2float(v);
    }
}

extern "C" __global__ void copy(const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i];
}

// the top byte of an input element zeroed, then the element read (was EQUIVALENT to copy: the leaf was read)
extern "C" __global__ void top_byte_zeroed_then_copy(float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        reinterpret_cast<unsigned char*>(x)[4 * i + 3] = 0;
        y[i] = x[i];
    }
}
