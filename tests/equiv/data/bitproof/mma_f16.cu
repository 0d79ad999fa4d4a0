// One warp: D (16x8, f32) = A (16x16, f16) · B (16x8, f16) with one mma.sync m16n8k16 (issue 12: the
// fragments reach the tensor core by different routes; the bit-identity proof must see through them).
// Row-major buffers; fragments follow PTX ISA §9.7.14.5.8. Regenerate: ./regenerate.sh
#include <cuda_fp16.h>

__device__ __forceinline__ unsigned pack2(__half lo, __half hi) {
    unsigned r;
    asm("mov.b32 %0, {%1, %2};" : "=r"(r) : "h"(__half_as_ushort(lo)), "h"(__half_as_ushort(hi)));
    return r;
}

__device__ __forceinline__ void mma16(float *D, const unsigned a[4], const unsigned b[2]) {
    float d0 = 0.f, d1 = 0.f, d2 = 0.f, d3 = 0.f;
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                 "{%0,%1,%2,%3};"
                 : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    int g = threadIdx.x >> 2, t = threadIdx.x & 3;
    D[g * 8 + 2 * t] = d0;
    D[g * 8 + 2 * t + 1] = d1;
    D[(g + 8) * 8 + 2 * t] = d2;
    D[(g + 8) * 8 + 2 * t + 1] = d3;
}

// fragments gathered from global memory, two halves packed per register
extern "C" __global__ void mma_f16_direct(const __half *A, const __half *B, float *D) {
    int g = threadIdx.x >> 2, t = threadIdx.x & 3;
    unsigned a[4], b[2];
    for (int r = 0; r < 4; r++) {
        int row = g + 8 * (r & 1), col = 2 * t + 8 * (r >> 1);
        a[r] = pack2(A[row * 16 + col], A[row * 16 + col + 1]);
    }
    for (int r = 0; r < 2; r++) b[r] = pack2(B[(2 * t + 8 * r) * 8 + g], B[(2 * t + 1 + 8 * r) * 8 + g]);
    mma16(D, a, b);
}

// the same tiles staged in shared memory: A by ldmatrix.x4, B (row-major K x N) by ldmatrix.x2.trans
extern "C" __global__ void mma_f16_ldmatrix(const __half *A, const __half *B, float *D) {
    __shared__ __align__(16) __half sa[256], sb[128];
    for (int i = threadIdx.x; i < 256; i += 32) sa[i] = A[i];
    for (int i = threadIdx.x; i < 128; i += 32) sb[i] = B[i];
    __syncwarp();
    int l = threadIdx.x, m = l >> 3;
    unsigned a[4], b[2];
    unsigned pa = (unsigned)__cvta_generic_to_shared(&sa[((l & 7) + 8 * (m & 1)) * 16 + 8 * (m >> 1)]);
    unsigned pb = (unsigned)__cvta_generic_to_shared(&sb[(l & 15) * 8]);
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                 : "=r"(a[0]), "=r"(a[1]), "=r"(a[2]), "=r"(a[3]) : "r"(pa));
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0,%1}, [%2];" : "=r"(b[0]), "=r"(b[1]) : "r"(pb));
    mma16(D, a, b);
}

// as mma_f16_direct, each A register transposed twice by movmatrix: the same fragments
extern "C" __global__ void mma_f16_movmatrix_twice(const __half *A, const __half *B, float *D) {
    int g = threadIdx.x >> 2, t = threadIdx.x & 3;
    unsigned a[4], b[2];
    for (int r = 0; r < 4; r++) {
        int row = g + 8 * (r & 1), col = 2 * t + 8 * (r >> 1);
        unsigned x = pack2(A[row * 16 + col], A[row * 16 + col + 1]), y;
        asm volatile("movmatrix.sync.aligned.m8n8.trans.b16 %0, %1;" : "=r"(y) : "r"(x));
        asm volatile("movmatrix.sync.aligned.m8n8.trans.b16 %0, %1;" : "=r"(a[r]) : "r"(y));
    }
    for (int r = 0; r < 2; r++) b[r] = pack2(B[(2 * t + 8 * r) * 8 + g], B[(2 * t + 1 + 8 * r) * 8 + g]);
    mma16(D, a, b);
}

// each 8x8 block of A transposed once by movmatrix: another product
extern "C" __global__ void mma_f16_movmatrix_once(const __half *A, const __half *B, float *D) {
    int g = threadIdx.x >> 2, t = threadIdx.x & 3;
    unsigned a[4], b[2];
    for (int r = 0; r < 4; r++) {
        int row = g + 8 * (r & 1), col = 2 * t + 8 * (r >> 1);
        unsigned x = pack2(A[row * 16 + col], A[row * 16 + col + 1]);
        asm volatile("movmatrix.sync.aligned.m8n8.trans.b16 %0, %1;" : "=r"(a[r]) : "r"(x));
    }
    for (int r = 0; r < 2; r++) b[r] = pack2(B[(2 * t + 8 * r) * 8 + g], B[(2 * t + 1 + 8 * r) * 8 + g]);
    mma16(D, a, b);
}

// what mma_f16_movmatrix_once computes, gathered directly: each 8x8 block of A read transposed
extern "C" __global__ void mma_f16_blocks_transposed(const __half *A, const __half *B, float *D) {
    int g = threadIdx.x >> 2, t = threadIdx.x & 3;
    unsigned a[4], b[2];
    for (int r = 0; r < 4; r++) {
        int r0 = 8 * (r & 1), c0 = 8 * (r >> 1);
        a[r] = pack2(A[(r0 + 2 * t) * 16 + c0 + g], A[(r0 + 2 * t + 1) * 16 + c0 + g]);
    }
    for (int r = 0; r < 2; r++) b[r] = pack2(B[(2 * t + 8 * r) * 8 + g], B[(2 * t + 1 + 8 * r) * 8 + g]);
    mma16(D, a, b);
}
