// Kernels for tests/exec/test_half_pack_real.py: 16-bit elements packed into a wider register and stored as one
// word (`mov.b32 %r, {%lo, %hi}`, how nvcc writes a struct of eight bf16/f16 stored as an int4), and 16-bit
// values stored and loaded back, within a launch and across the launches of a sequence.
// Regenerate: nvcc -ptx -lineinfo -arch=sm_80 -O3 -o half_pack.sm80.ptx half_pack.cu
#include <cuda_bf16.h>
#include <cuda_fp16.h>

template <class T>
struct alignas(16) Pack8 {
    T v[8];
};

template <class T> __device__ __forceinline__ float widen(T h) { return (float)h; }
template <class T> __device__ __forceinline__ T narrow(float f) { return (T)f; }

// one element per thread: y = 2x + 1 in the buffer's format
template <class T> __device__ void scale_one(const T* x, T* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = narrow<T>(2.0f * widen(x[i]) + 1.0f);
}

// eight elements per thread, loaded and stored as 16 bytes; `swap` stores each pair's halves the wrong way round
template <class T> __device__ void scale_eight(const T* x, T* y, int n, bool swap)
{
    int i = (blockIdx.x * blockDim.x + threadIdx.x) * 8;
    if (i < n) {
        Pack8<T> in = *reinterpret_cast<const Pack8<T>*>(x + i);
        Pack8<T> out;
#pragma unroll
        for (int k = 0; k < 8; k++) out.v[swap ? k ^ 1 : k] = narrow<T>(2.0f * widen(in.v[k]) + 1.0f);
        *reinterpret_cast<Pack8<T>*>(y + i) = out;
    }
}

extern "C" __global__ void scale_bf16(const __nv_bfloat16* x, __nv_bfloat16* y, int n) { scale_one(x, y, n); }
extern "C" __global__ void scale_bf16_packed(const __nv_bfloat16* x, __nv_bfloat16* y, int n)
{
    scale_eight(x, y, n, false);
}
extern "C" __global__ void scale_bf16_packed_swapped(const __nv_bfloat16* x, __nv_bfloat16* y, int n)
{
    scale_eight(x, y, n, true);
}
extern "C" __global__ void scale_f16(const __half* x, __half* y, int n) { scale_one(x, y, n); }
extern "C" __global__ void scale_f16_packed(const __half* x, __half* y, int n) { scale_eight(x, y, n, false); }

// an f16 and a bf16 packed into one word (inline PTX): the pair has no one format
extern "C" __global__ void mixed_pack(const __nv_bfloat16* x, __nv_bfloat16* y, int n)
{
    int i = (blockIdx.x * blockDim.x + threadIdx.x) * 2;
    if (i < n) {
        unsigned short lo = __bfloat16_as_ushort(__float2bfloat16(2.0f * (float)x[i] + 1.0f));
        unsigned short hi = __half_as_ushort(__float2half(2.0f * (float)x[i + 1] + 1.0f));
        unsigned int word;
        asm("mov.b32 %0, {%1, %2};" : "=r"(word) : "h"(lo), "h"(hi));
        *reinterpret_cast<unsigned int*>(y + i) = word;
    }
}

// a residual add stored in bf16, loaded back after a barrier (one block) and scaled: z = 2 * bf16(x + w) + 1
extern "C" __global__ void add_then_scale(const __nv_bfloat16* x, const __nv_bfloat16* w, __nv_bfloat16* r,
                                          __nv_bfloat16* z, int n)
{
    int i = threadIdx.x;
    if (i < n) r[i] = __float2bfloat16((float)x[i] + (float)w[i]);
    __syncthreads();
    if (i < n) z[i] = __float2bfloat16(2.0f * (float)r[i] + 1.0f);
}

// the same in two launches of a sequence: r = bf16(x + w), then z = 2r + 1
extern "C" __global__ void add(const __nv_bfloat16* x, const __nv_bfloat16* w, __nv_bfloat16* r, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) r[i] = __float2bfloat16((float)x[i] + (float)w[i]);
}
extern "C" __global__ void scale_r(const __nv_bfloat16* r, __nv_bfloat16* z, int n) { scale_one(r, z, n); }

// an earlier launch that makes f16 bits and stores them into the bf16 buffer r (a bug): the next launch's
// widening of r's elements as bf16 reads other numbers
extern "C" __global__ void add_as_f16(const __nv_bfloat16* x, const __nv_bfloat16* w, __nv_bfloat16* r, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) r[i] = __ushort_as_bfloat16(__half_as_ushort(__float2half((float)x[i] + (float)w[i])));
}

// y = 2x + 1 written element by element into shared memory (one block, n <= 512 threads), then copied out
// eight elements (16 bytes) at a time: a load over two stored 16-bit values is the pair of them
template <class T, class S> __device__ void via_shared(const T* x, T* y, int n)
{
    __shared__ alignas(16) S tile[512];
    int i = threadIdx.x;
    if (i < n) tile[i] = narrow<S>(2.0f * widen(x[i]) + 1.0f);
    __syncthreads();
    if (i * 8 < n) *reinterpret_cast<Pack8<T>*>(y + i * 8) = *reinterpret_cast<const Pack8<T>*>(tile + i * 8);
}
extern "C" __global__ void scale_bf16_via_shared(const __nv_bfloat16* x, __nv_bfloat16* y, int n)
{
    via_shared<__nv_bfloat16, __nv_bfloat16>(x, y, n);
}
// the same with f16 values made and copied into the bf16 buffer as if they were bf16: other numbers
extern "C" __global__ void scale_f16_via_shared_into_bf16(const __nv_bfloat16* x, __nv_bfloat16* y, int n)
{
    via_shared<__nv_bfloat16, __half>(x, y, n);
}
