// Hopper warpgroup MMA (sm_90a only): one warpgroup (128 threads) per block computes a 64x8 f32 tile
// D = A (64x16 f16) * B (16x8 f16) with wgmma.mma_async m64n8k16, operands described by shared-memory
// matrix descriptors in the no-swizzle (interleaved 8x8 core matrix) layout.
// A is row-major [M][16] in global memory (K-major); B is given as Bt[8][16] (N x K, K-major).
#include <cuda_fp16.h>

__device__ __forceinline__ unsigned long long make_desc(const void* smem, unsigned lbo, unsigned sbo)
{
    unsigned addr = static_cast<unsigned>(__cvta_generic_to_shared(smem));
    unsigned long long d = 0;
    d |= (unsigned long long)((addr & 0x3FFFF) >> 4);          // bits 0-13: start address >> 4
    d |= (unsigned long long)((lbo & 0x3FFFF) >> 4) << 16;     // bits 16-29: leading dimension byte offset >> 4
    d |= (unsigned long long)((sbo & 0x3FFFF) >> 4) << 32;     // bits 32-45: stride dimension byte offset >> 4
    return d;                                                  // bits 62-63 = 0: no swizzle
}

extern "C" __global__ void wgmma_m64n8k16(const __half* __restrict__ A, const __half* __restrict__ Bt,
                                          float* __restrict__ D)
{
    // Core matrix = 8 rows x 8 halves (128 contiguous bytes). A: core (mi, ki) at (mi * 2 + ki) * 64 halves,
    // so K-adjacent cores are 128 B apart (LBO) and M-adjacent cores 256 B apart (SBO). Bt likewise.
    __shared__ __align__(128) __half As[64 * 16];
    __shared__ __align__(128) __half Bs[8 * 16];
    int tid = threadIdx.x;
    int m0 = blockIdx.x * 64;
    for (int e = tid; e < 64 * 16; e += 128) {
        int r = e / 16, k = e % 16;
        As[((r / 8) * 2 + k / 8) * 64 + (r % 8) * 8 + (k % 8)] = A[(m0 + r) * 16 + k];
    }
    if (tid < 8 * 16) {
        int n = tid / 16, k = tid % 16;
        Bs[(k / 8) * 64 + n * 8 + (k % 8)] = Bt[n * 16 + k];
    }
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    __syncthreads();

    unsigned long long da = make_desc(As, 128, 256);
    unsigned long long db = make_desc(Bs, 128, 256);
    float d0 = 0.0f, d1 = 0.0f, d2 = 0.0f, d3 = 0.0f;
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
    asm volatile(
        "{\n"
        ".reg .pred p;\n"
        "setp.ne.b32 p, %6, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 "
        "{%0, %1, %2, %3}, %4, %5, p, 1, 1, 0, 0;\n"
        "}\n"
        : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
        : "l"(da), "l"(db), "r"(0));
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");

    int warp = tid >> 5, lane = tid & 31;
    int g = lane >> 2, t = lane & 3;
    int r = m0 + warp * 16 + g;
    D[r * 8 + 2 * t] = d0;
    D[r * 8 + 2 * t + 1] = d1;
    D[(r + 8) * 8 + 2 * t] = d2;
    D[(r + 8) * 8 + 2 * t + 1] = d3;
}
