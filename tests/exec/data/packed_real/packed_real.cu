// Kernels for tests/exec/test_packed_real.py: f16x2/bf16x2 registers over the reals in volta check
// (volta/exec/handlers/tensor_real.py packed_compute, store_pairs): cvt.rn.f16x2.f32 packing, per-half arithmetic, stores
// of pairs, shuffles of packed registers, and mma.sync fragments packed from f32 in registers.
// Regenerate: nvcc -ptx -lineinfo -std=c++17 -arch=sm_80 -o packed_real.sm80.ptx packed_real.cu
#include <cuda_bf16.h>
#include <cuda_fp16.h>

__device__ __forceinline__ unsigned bits_of(__half2 h) { return *reinterpret_cast<unsigned*>(&h); }
__device__ __forceinline__ __half2 half2_of(unsigned u) { return *reinterpret_cast<__half2*>(&u); }

// ---- packing: out (f16[2n]) = (x[i], y[i]) pairs --------------------------------------------------------

extern "C" __global__ void pack_xy(const float* x, const float* y, const float* z, __half2* out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = __floats2half2_rn(x[i], y[i]);          // cvt.rn.f16x2.f32 out, y, x: x is the low half
}

extern "C" __global__ void pack_zy(const float* x, const float* y, const float* z, __half2* out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = __floats2half2_rn(z[i], y[i]);          // another low half
}

extern "C" __global__ void pack_yx(const float* x, const float* y, const float* z, __half2* out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = __floats2half2_rn(y[i], x[i]);          // halves swapped
}

extern "C" __global__ void separate_xy(const float* x, const float* y, const float* z, __half* out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[2 * i] = __float2half(x[i]);
    out[2 * i + 1] = __float2half(y[i]);
}

// the pair moves to the next lane of the warp with a shuffle of its 32-bit register before the store
extern "C" __global__ void pack_shuffled(const float* x, const float* y, const float* z, __half2* out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned p = bits_of(__floats2half2_rn(x[i], y[i]));
    p = __shfl_xor_sync(0xffffffffu, p, 1);
    out[i ^ 1] = half2_of(p);
}

// ---- per-half arithmetic: (x*y + 1, y*z + 2) --------------------------------------------------------------

extern "C" __global__ void fma_halves(const float* x, const float* y, const float* z, __half2* out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    __half2 a = __floats2half2_rn(x[i], y[i]);
    __half2 b = __floats2half2_rn(y[i], z[i]);
    out[i] = __hfma2(a, b, __floats2half2_rn(1.0f, 2.0f));   // the constant pair is an immediate's bits
}

extern "C" __global__ void fma_separate(const float* x, const float* y, const float* z, __half* out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[2 * i] = __float2half(x[i] * y[i] + 1.0f);
    out[2 * i + 1] = __float2half(y[i] * z[i] + 2.0f);
}

extern "C" __global__ void add_sub_halves(const float* x, const float* y, const float* z, __half2* out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    __half2 a = __floats2half2_rn(x[i], y[i]);
    __half2 b = __floats2half2_rn(z[i], x[i]);
    out[i] = __hsub2(__hadd2(a, b), __hmul2(b, b));     // (x + z - z*z, y + x - x*x)
}

extern "C" __global__ void add_sub_separate(const float* x, const float* y, const float* z, __half* out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[2 * i] = __float2half(x[i] + z[i] - z[i] * z[i]);
    out[2 * i + 1] = __float2half(y[i] + x[i] - x[i] * x[i]);
}

// ---- refused: a pair stored into a buffer of another element type, and an f32 stored over f16 elements ----

extern "C" __global__ void pack_into_f32(const float* x, const float* y, const float* z, float* out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    reinterpret_cast<__half2*>(out)[i] = __floats2half2_rn(x[i], y[i]);
}

extern "C" __global__ void bf16_pack_into_f16(const float* x, const float* y, const float* z, __half* out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    reinterpret_cast<__nv_bfloat162*>(out)[i] = __floats2bfloat162_rn(x[i], y[i]);
}

extern "C" __global__ void f32_over_halves(const float* x, const float* y, const float* z, __half* out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    reinterpret_cast<float*>(out)[i] = x[i];
}

extern "C" __global__ void bf16_pack(const float* x, const float* y, const float* z, __nv_bfloat162* out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = __floats2bfloat162_rn(x[i], y[i]);
}

extern "C" __global__ void bf16_separate(const float* x, const float* y, const float* z, __nv_bfloat16* out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[2 * i] = __float2bfloat16(x[i]);
    out[2 * i + 1] = __float2bfloat16(y[i]);
}

// per-half comparison: two predicates, one per half (refused over the reals)
extern "C" __global__ void compare_halves(const float* x, const float* y, const float* z, __half2* out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    __half2 a = __floats2half2_rn(x[i], y[i]);
    unsigned lo, hi;
    asm("{ .reg .pred p, q; setp.gt.f16x2 p|q, %2, %3; selp.u32 %0, 1, 0, p; selp.u32 %1, 1, 0, q; }"
        : "=r"(lo), "=r"(hi) : "r"(bits_of(a)), "r"(0u));
    out[i] = lo && hi ? a : __floats2half2_rn(0.0f, 0.0f);
}

// ---- mma.sync with fragments packed from f32 in registers: C[16][8k] = A[16][16] * B[16][8k] (f32) ----------

extern "C" __global__ void gemm_f32_naive(const float* A, const float* B, float* C, int M, int N, int K)
{
    int row = blockIdx.y * blockDim.y + threadIdx.y, col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= M || col >= N) return;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
    C[row * N + col] = acc;
}

template <bool SWAP>
__device__ void gemm_packed_tile(const float* A, const float* B, float* C, int N, int K)
{
    int lane = threadIdx.x, g = lane >> 2, t = lane & 3;
    int row0 = blockIdx.y * 16, col0 = blockIdx.x * 8;
    float d[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (int k0 = 0; k0 < K; k0 += 16) {
        const float* ra = A + (row0 + g) * K + k0 + 2 * t;
        const float* rb = A + (row0 + g + 8) * K + k0 + 2 * t;
        const float* cb = B + (k0 + 2 * t) * N + col0 + g;
        unsigned a0 = bits_of(__floats2half2_rn(ra[0], ra[1]));
        unsigned a1 = SWAP ? bits_of(__floats2half2_rn(rb[1], rb[0]))     // the defect: halves swapped
                           : bits_of(__floats2half2_rn(rb[0], rb[1]));
        unsigned a2 = bits_of(__floats2half2_rn(ra[8], ra[9]));
        unsigned a3 = bits_of(__floats2half2_rn(rb[8], rb[9]));
        unsigned b0 = bits_of(__floats2half2_rn(cb[0], cb[N]));
        unsigned b1 = bits_of(__floats2half2_rn(cb[8 * N], cb[9 * N]));
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
                     "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                     : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
    }
    C[(row0 + g) * N + col0 + 2 * t] = d[0];
    C[(row0 + g) * N + col0 + 2 * t + 1] = d[1];
    C[(row0 + g + 8) * N + col0 + 2 * t] = d[2];
    C[(row0 + g + 8) * N + col0 + 2 * t + 1] = d[3];
}

extern "C" __global__ void gemm_mma_packed(const float* A, const float* B, float* C, int M, int N, int K)
{
    gemm_packed_tile<false>(A, B, C, N, K);
}

extern "C" __global__ void gemm_mma_packed_swapped(const float* A, const float* B, float* C, int M, int N, int K)
{
    gemm_packed_tile<true>(A, B, C, N, K);
}

// integer arithmetic on a packed register's bits (refused over the reals)
extern "C" __global__ void pair_bits_plus_one(const float* x, const float* y, const float* z, unsigned* out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = bits_of(__floats2half2_rn(x[i], y[i])) + 1u;
}

// atomics on packed pairs (refused over the reals)
extern "C" __global__ void pair_atomic_add(const float* x, const float* y, const float* z, __half2* out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    atomicAdd(&out[i >> 1], __floats2half2_rn(x[i], y[i]));
}
