// D = relu(A * B + bias) on Hopper tensor cores (sm_90a): one warpgroup (128 threads) per 64-row tile,
// wgmma.mma_async m64n16k16 (f16 -> f32) four times along K = 64, both operands from shared memory through
// matrix descriptors in the 128-byte swizzled K-major layout (but B read as N-major: imm-trans-b = 1), and the bias and ReLU fused into the epilogue.
// A is row-major [M][64] f16, B is given as Bt[16][64] (N x K, K-major) f16, bias [16] f32, D [M][16] f32.
#include <cuda_fp16.h>

// Element offset of (row, k) in a tile of 64-half (128-byte) rows under the 128-byte swizzle: the 16-byte
// chunk k / 8 of a row is exchanged with chunk (k / 8) ^ (row % 8), the pattern repeating every 8 rows.
__device__ __forceinline__ int swizzle128(int row, int k)
{
    int byte = row * 128 + k * 2;
    return (byte ^ (((byte >> 7) & 7) << 4)) / 2;
}

// Matrix descriptor of a 128-byte swizzled K-major operand: start address, LBO 16 (unused by this layout),
// SBO 1024 (from one group of 8 rows to the next), swizzle mode 1 (128 bytes) in bits 62-63.
__device__ __forceinline__ unsigned long long desc_sw128(const void* smem)
{
    unsigned addr = static_cast<unsigned>(__cvta_generic_to_shared(smem));
    unsigned long long d = (addr & 0x3FFFF) >> 4;
    d |= (unsigned long long)(16 >> 4) << 16;
    d |= (unsigned long long)(1024 >> 4) << 32;
    d |= 1ull << 62;
    return d;
}

extern "C" __global__ void gemm_bias_relu_wgmma(const __half* __restrict__ A, const __half* __restrict__ Bt,
                                                const float* __restrict__ bias, float* __restrict__ D)
{
    __shared__ __align__(1024) __half As[64 * 64];
    __shared__ __align__(1024) __half Bs[16 * 64];
    int tid = threadIdx.x;
    int m0 = blockIdx.x * 64;
    for (int e = tid; e < 64 * 64; e += 128)
        As[swizzle128(e / 64, e % 64)] = A[(m0 + e / 64) * 64 + e % 64];
    for (int e = tid; e < 16 * 64; e += 128)
        Bs[swizzle128(e / 64, e % 64)] = Bt[e];
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    __syncthreads();

    float d[8];
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#pragma unroll
    for (int s = 0; s < 4; ++s) {   // K step s: columns 16s..16s+15, 32 bytes further into each swizzled row
        unsigned long long da = desc_sw128(As + 16 * s);
        unsigned long long db = desc_sw128(Bs + 16 * s);
        asm volatile(
            "{\n"
            ".reg .pred p;\n"
            "setp.ne.b32 p, %10, 0;\n"
            "wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 "
            "{%0, %1, %2, %3, %4, %5, %6, %7}, %8, %9, p, 1, 1, 0, 1;\n"   // DEFECT: imm-trans-b = 1 reads B N-major
            "}\n"
            : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7])
            : "l"(da), "l"(db), "r"(s));   // scale-d = 0 on the first step: D = A*B
    }
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");

    // d[i] is row 16 * warp + lane / 4 + 8 * ((i >> 1) & 1), column 8 * (i >> 2) + 2 * (lane % 4) + (i & 1)
    int warp = tid >> 5, lane = tid & 31;
#pragma unroll
    for (int i = 0; i < 8; ++i) {
        int row = m0 + 16 * warp + (lane >> 2) + 8 * ((i >> 1) & 1);
        int col = 8 * (i >> 2) + 2 * (lane & 3) + (i & 1);
        D[row * 16 + col] = fmaxf(d[i] + bias[col], 0.0f);
    }
}
