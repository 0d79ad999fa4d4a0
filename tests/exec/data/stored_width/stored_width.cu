// Kernels for tests/exec/test_stored_width_real.py: values written with a width or a 16-bit format other than
// the one they are read with, in volta check (volta/exec/handlers/tensor_real.py, volta/exec/handlers/hopper.py, check.outputs).
// Regenerate: nvcc -ptx -lineinfo -std=c++17 -arch=sm_90 -o stored_width.sm90.ptx stored_width.cu
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <mma.h>
using namespace nvcuda;

__device__ __forceinline__ unsigned smem(const void* p)
{
    return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// ---- 1. wmma.store of elements whose width is not the output buffer's element width -----------------------
// C = A B for one 16x16x16 tile (A, B f16 row-major), one warp.

template <typename Acc>
__device__ __forceinline__ void tile_product(const __half* A, const __half* B,
                                             wmma::fragment<wmma::accumulator, 16, 16, 16, Acc>& c)
{
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> b;
    wmma::load_matrix_sync(a, A, 16);
    wmma::load_matrix_sync(b, B, 16);
    wmma::fill_fragment(c, Acc(0.0f));
    wmma::mma_sync(c, a, b, c);
}

// the f16 tile stored straight into C: a float view of C sees two halves in each element
extern "C" __global__ void wmma_f16_store(const __half* A, const __half* B, __half* C)
{
    wmma::fragment<wmma::accumulator, 16, 16, 16, __half> c;
    tile_product(A, B, c);
    wmma::store_matrix_sync(C, c, 16, wmma::mem_row_major);
}

// C[i] = the even elements of the f16 tile, each converted to float
extern "C" __global__ void wmma_f16_even(const __half* A, const __half* B, float* C)
{
    __shared__ __align__(32) __half S[256];
    wmma::fragment<wmma::accumulator, 16, 16, 16, __half> c;
    tile_product(A, B, c);
    wmma::store_matrix_sync(S, c, 16, wmma::mem_row_major);
    __syncwarp();
    for (int i = threadIdx.x; i < 128; i += 32) C[i] = __half2float(S[2 * i]);
}

// the f32 tile stored straight into C: a half view of C sees the two halves of each float's bits
extern "C" __global__ void wmma_f32_store(const __half* A, const __half* B, float* C)
{
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> c;
    tile_product(A, B, c);
    wmma::store_matrix_sync(C, c, 16, wmma::mem_row_major);
}

// C[2i] = the f32 tile's element i rounded to f16, C[2i + 1] = 0
extern "C" __global__ void wmma_f32_as_halves(const __half* A, const __half* B, __half* C)
{
    __shared__ __align__(32) float S[256];
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> c;
    tile_product(A, B, c);
    wmma::store_matrix_sync(S, c, 16, wmma::mem_row_major);
    __syncwarp();
    for (int i = threadIdx.x; i < 256; i += 32) C[2 * i] = __float2half(S[i]);
    for (int i = threadIdx.x; i < 256; i += 32) C[2 * i + 1] = __float2half(0.0f);
}

// ---- 2. cp.async.bulk shared -> global of elements whose width is not the output buffer's -----------------

__device__ __forceinline__ void bulk_store(void* dst, const void* src, unsigned bytes)
{
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    if (threadIdx.x == 0) {
        asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;"
                     :: "l"(dst), "r"(smem(src)), "r"(bytes) : "memory");
        asm volatile("cp.async.bulk.commit_group;" ::: "memory");
        asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
    }
}

// 64 threads: a shared f32 tile 2 x[i] copied to C by one bulk store (256 bytes)
extern "C" __global__ void bulk_store_f32(const float* x, float* C)
{
    __shared__ __align__(128) float S[64];
    S[threadIdx.x] = 2.0f * x[threadIdx.x];
    bulk_store(C, S, sizeof(S));
}

// 64 threads: a shared f16 tile (2 x[i] rounded) copied to C by one bulk store (128 bytes)
extern "C" __global__ void bulk_store_f16(const float* x, __half* C)
{
    __shared__ __align__(128) __half S[64];
    S[threadIdx.x] = __float2half(2.0f * x[threadIdx.x]);
    bulk_store(C, S, sizeof(S));
}

// 64 threads: each float of a shared tile holds a concrete 0 in its low half and 2 x[i] rounded to f16 in its high
// half (on a GPU the float 2^16-scaled bits of the half); bulk-stored into C
extern "C" __global__ void bulk_store_high_halves(const float* x, float* C)
{
    __shared__ __align__(128) __half S[128];
    S[2 * threadIdx.x] = __float2half(0.0f);
    __syncthreads();
    S[2 * threadIdx.x + 1] = __float2half(2.0f * x[threadIdx.x]);
    bulk_store(C, S, sizeof(S));
}

// 64 threads: the same tile read back with ld.shared.f32
extern "C" __global__ void load_high_halves(const float* x, float* C)
{
    __shared__ __align__(16) __half S[128];
    S[2 * threadIdx.x] = __float2half(0.0f);
    __syncthreads();
    S[2 * threadIdx.x + 1] = __float2half(2.0f * x[threadIdx.x]);
    __syncthreads();
    C[threadIdx.x] = reinterpret_cast<const float*>(S)[threadIdx.x];
}

// 64 threads: the high halves of C's floats written with a concrete f16 1.0, the low halves never
extern "C" __global__ void high_halves_only(const float* x, float* C)
{
    reinterpret_cast<unsigned short*>(C)[2 * threadIdx.x + 1] = 0x3c00;
}

// 64 threads: C[i] = 0; and a kernel that writes nothing
extern "C" __global__ void zeros_f32(const float* x, float* C) { C[threadIdx.x] = 0.0f; }
extern "C" __global__ void no_writes(const float* x, float* C) {}

// 64 threads: C[i] = 2 x[i]
extern "C" __global__ void twice_f32(const float* x, float* C) { C[threadIdx.x] = 2.0f * x[threadIdx.x]; }

// 64 threads: C[i] = 2 x[i] rounded to f16
extern "C" __global__ void twice_f16(const float* x, __half* C)
{
    C[threadIdx.x] = __float2half(2.0f * x[threadIdx.x]);
}

// 32 threads: C[i] = 2 x[2i] as a double (what the f32 bulk store's bytes would be if read as f64 elements
// one float at a time)
extern "C" __global__ void twice_even_f64(const float* x, double* C)
{
    C[threadIdx.x] = (double)(2.0f * x[2 * threadIdx.x]);
}

// ---- 3. a computed 16-bit value stored in one format, moved by ldmatrix / wmma.load, read in the other -----
// C[16][8] = A[16][16] Bt[8][16]^T, A and Bt f32; the tiles are rounded to 16 bits in shared memory.

__device__ __forceinline__ unsigned short to16(float v, bool half)
{
    return half ? __half_as_ushort(__float2half(v)) : __bfloat16_as_ushort(__float2bfloat16(v));
}

template <bool A_HALF, bool B_HALF, bool MMA_BF16>
__device__ __forceinline__ void mma_tile(const float* A, const float* Bt, float* C)
{
    __shared__ __align__(128) unsigned short As[16][16];
    __shared__ __align__(128) unsigned short Bs[8][16];
    int lane = threadIdx.x;
    for (int i = lane; i < 256; i += 32) As[i / 16][i % 16] = to16(A[i], A_HALF);
    for (int i = lane; i < 128; i += 32) Bs[i / 16][i % 16] = to16(Bt[i], B_HALF);
    __syncwarp();
    unsigned a0, a1, a2, a3, b0, b1;
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(a0), "=r"(a1), "=r"(a2), "=r"(a3)
                 : "r"(smem(&As[(lane & 7) + ((lane >> 3) & 1) * 8][(lane >> 4) * 8])));
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];"
                 : "=r"(b0), "=r"(b1) : "r"(smem(&Bs[lane & 7][((lane >> 3) & 1) * 8])));
    float c[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    if (MMA_BF16)
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
                     "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                     : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                     : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
    else
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
                     "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                     : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                     : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
    int g = lane >> 2, t = lane & 3;
    C[g * 8 + 2 * t] = c[0];
    C[g * 8 + 2 * t + 1] = c[1];
    C[(g + 8) * 8 + 2 * t] = c[2];
    C[(g + 8) * 8 + 2 * t + 1] = c[3];
}

extern "C" __global__ void mma_f16(const float* A, const float* Bt, float* C) { mma_tile<true, true, false>(A, Bt, C); }
extern "C" __global__ void mma_bf16(const float* A, const float* Bt, float* C) { mma_tile<false, false, true>(A, Bt, C); }
// A rounded to bf16 and read by an f16 mma (and the reverse): the bits are another number
extern "C" __global__ void mma_f16_reads_bf16_a(const float* A, const float* Bt, float* C)
{
    mma_tile<false, true, false>(A, Bt, C);
}
extern "C" __global__ void mma_bf16_reads_f16_a(const float* A, const float* Bt, float* C)
{
    mma_tile<true, false, true>(A, Bt, C);
}

// 16 x 8 threads: C[r][c] = sum_k A[r][k] Bt[c][k]
extern "C" __global__ void naive_abt(const float* A, const float* Bt, float* C)
{
    int r = threadIdx.y, c = threadIdx.x;
    float acc = 0.0f;
    for (int k = 0; k < 16; ++k) acc += A[r * 16 + k] * Bt[c * 16 + k];
    C[r * 8 + c] = acc;
}

// wmma.load as f16 of a shared tile rounded to f16 (or to bf16: the bits are another number); C = A B, 16x16x16
template <bool A_HALF>
__device__ __forceinline__ void wmma_tile(const float* A, const float* B, float* C)
{
    __shared__ __align__(32) unsigned short As[256];
    __shared__ __align__(32) unsigned short Bs[256];
    for (int i = threadIdx.x; i < 256; i += 32) {
        As[i] = to16(A[i], A_HALF);
        Bs[i] = to16(B[i], true);
    }
    __syncwarp();
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> b;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> c;
    wmma::load_matrix_sync(a, reinterpret_cast<const __half*>(As), 16);
    wmma::load_matrix_sync(b, reinterpret_cast<const __half*>(Bs), 16);
    wmma::fill_fragment(c, 0.0f);
    wmma::mma_sync(c, a, b, c);
    wmma::store_matrix_sync(C, c, 16, wmma::mem_row_major);
}

extern "C" __global__ void wmma_f16_tiles(const float* A, const float* B, float* C) { wmma_tile<true>(A, B, C); }
extern "C" __global__ void wmma_f16_reads_bf16_a(const float* A, const float* B, float* C) { wmma_tile<false>(A, B, C); }

// 16 x 16 threads: C[r][c] = sum_k A[r][k] B[k][c]
extern "C" __global__ void naive_ab(const float* A, const float* B, float* C)
{
    int r = threadIdx.y, c = threadIdx.x;
    float acc = 0.0f;
    for (int k = 0; k < 16; ++k) acc += A[r * 16 + k] * B[k * 16 + c];
    C[r * 16 + c] = acc;
}

// 16 x 16 threads, A given as bf16 and B as f16: C = A B (the reference for wmma_f32_store on a bf16 A)
extern "C" __global__ void naive_bf16_f16(const __nv_bfloat16* A, const __half* B, float* C)
{
    int r = threadIdx.y, c = threadIdx.x;
    float acc = 0.0f;
    for (int k = 0; k < 16; ++k) acc += __bfloat162float(A[r * 16 + k]) * __half2float(B[k * 16 + c]);
    C[r * 16 + c] = acc;
}

// ---- 4. stmatrix (no real-number model): an 8x8 f16 tile through ldmatrix and stmatrix, one warp ------------
extern "C" __global__ void stmatrix_copy(const __half* x, __half* C)
{
    __shared__ __align__(128) __half S[64];
    __shared__ __align__(128) __half T[64];
    int lane = threadIdx.x;
    S[2 * lane] = x[2 * lane];
    S[2 * lane + 1] = x[2 * lane + 1];
    __syncwarp();
    unsigned r;
    asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(r) : "r"(smem(&S[(lane & 7) * 8])));
    asm volatile("stmatrix.sync.aligned.m8n8.x1.shared.b16 [%0], {%1};"
                 :: "r"(smem(&T[(lane & 7) * 8])), "r"(r) : "memory");
    __syncwarp();
    C[2 * lane] = T[2 * lane];
    C[2 * lane + 1] = T[2 * lane + 1];
}
