// C[M][N] (f32) = A[M][K] (f16) * B[K][N] (f16) on Hopper tensor cores (sm_90a), N = 32, K a multiple of 32:
// one warpgroup per 64-row tile, K in tiles of 32 staged through two shared buffers, each tile two
// wgmma.mma_async m64n32k16 steps. The wgmmas run asynchronously: each iteration issues the current tile's
// wgmmas, then `wgmma.wait_group 1` completes only the previous tile's (so the current one is in flight while
// the next tile is loaded into the buffer the previous one read), and the accumulators chain across tiles.
// Layouts (64-byte swizzle): A K-major (rows of 32 halves), B N-major (rows of 32 halves along N, imm-trans-b).
#include <cuda_fp16.h>

// Element offset of (row, col) in a tile of 32-half (64-byte) rows under the 64-byte swizzle: 16-byte chunk
// bits [4,6) of the byte address exchanged with bits [7,9), the pattern repeating every 512 bytes.
__device__ __forceinline__ int swizzle64(int row, int col)
{
    int byte = row * 64 + col * 2;
    return (byte ^ (((byte >> 7) & 3) << 4)) / 2;
}

// Descriptor of a 64-byte swizzled operand: start, LBO, SBO, swizzle mode 2 (64 bytes) in bits 62-63.
__device__ __forceinline__ unsigned long long desc_sw64(const void* smem, unsigned lbo, unsigned sbo)
{
    unsigned addr = static_cast<unsigned>(__cvta_generic_to_shared(smem));
    unsigned long long d = (addr & 0x3FFFF) >> 4;
    d |= (unsigned long long)((lbo & 0x3FFFF) >> 4) << 16;
    d |= (unsigned long long)((sbo & 0x3FFFF) >> 4) << 32;
    d |= 2ull << 62;
    return d;
}

__device__ __forceinline__ void load_tile(__half* As, __half* Bs, const __half* A, const __half* B, int m0, int k0,
                                          int K, int N, int tid)
{
    for (int e = tid; e < 64 * 32; e += 128)   // A rows m0.., columns k0..k0+31
        As[swizzle64(e / 32, e % 32)] = A[(m0 + e / 32) * K + k0 + e % 32];
    for (int e = tid; e < 32 * 32; e += 128)   // B rows k0..k0+31, all 32 columns
        Bs[swizzle64(e / 32, e % 32)] = B[(k0 + e / 32) * N + e % 32];
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}

#define WGMMA_M64N32K16(d, da, db, scale)                                                                  \
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %18, 0;\n"                                              \
                 "wgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16 "                                      \
                 "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}, %16, %17, p, 1, 1, 0, 1;\n}\n" \
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
                   "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]),      \
                   "+f"(d[15])                                                                              \
                 : "l"(da), "l"(db), "r"((int)(scale)))

extern "C" __global__ void gemm_wgmma_pipelined(const __half* __restrict__ A, const __half* __restrict__ B,
                                                float* __restrict__ C, int M, int N, int K)
{
    __shared__ __align__(1024) __half As[2][64 * 32];
    __shared__ __align__(1024) __half Bs[2][32 * 32];
    int tid = threadIdx.x;
    int m0 = blockIdx.x * 64;
    float d[16];
    load_tile(As[0], Bs[0], A, B, m0, 0, K, N, tid);
    __syncthreads();
    int tiles = K / 32;
    for (int t = 0; t < tiles; ++t) {
        int s = t & 1;
        asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
        // A: K step j starts 32 bytes into each row (SBO 512: 8 rows of 64 bytes); B (N-major): K step j starts
        // 16 rows of 64 bytes further (SBO 512 per 8 K rows; LBO unused: N fits one 64-byte row)
#pragma unroll
        for (int j = 0; j < 2; ++j)
            WGMMA_M64N32K16(d, desc_sw64(As[s] + 16 * j, 16, 512), desc_sw64(Bs[s] + 16 * 32 * j, 16, 512),
                            t > 0 || j > 0);
        asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
        asm volatile("wgmma.wait_group.sync.aligned 1;\n" ::: "memory");   // tile t-1's wgmmas are complete
        __syncthreads();                                                    // in every warp
        if (t + 1 < tiles)
            load_tile(As[s ^ 1], Bs[s ^ 1], A, B, m0, 32 * (t + 1), K, N, tid);
        __syncthreads();
    }
    asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");

    int warp = tid >> 5, lane = tid & 31;
#pragma unroll
    for (int i = 0; i < 16; ++i) {
        int row = m0 + 16 * warp + (lane >> 2) + 8 * ((i >> 1) & 1);
        int col = 8 * (i >> 2) + 2 * (lane & 3) + (i & 1);
        C[row * N + col] = d[i];
    }
}
