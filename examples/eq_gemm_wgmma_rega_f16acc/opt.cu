// D = relu(A * B + bias) on Hopper tensor cores (sm_90a) in another wgmma form than eq_gemm_wgmma_bias_relu:
// A from registers (each thread loads its fragments straight from global memory), B from shared memory in the
// 32-byte swizzled K-major layout, f16 accumulators (D = A*B in .f16x2 registers), four m64n16k16 steps along
// K = 64. A is row-major [M][64] f16, B is given as Bt[16][64] (N x K) f16, bias [16] f32, D [M][16] f32.
#include <cuda_fp16.h>

// Byte offset of Bt(n, k) in shared memory: K in blocks of 16 halves (32-byte rows), each block 16 rows of
// 512 bytes, under the 32-byte swizzle (16-byte chunk bit 4 exchanged with bit 7: rows alternate halves).
__device__ __forceinline__ int b_offset(int n, int k)
{
    int byte = (k / 16) * 512 + n * 32 + (k % 16) * 2;
    return byte ^ (((byte >> 7) & 1) << 4);
}

// Descriptor of a 32-byte swizzled K-major operand: LBO 16 (unused), SBO 256 (8 rows of 32 bytes), mode 3.
__device__ __forceinline__ unsigned long long desc_sw32(const void* smem)
{
    unsigned addr = static_cast<unsigned>(__cvta_generic_to_shared(smem));
    unsigned long long d = (addr & 0x3FFFF) >> 4;
    d |= (unsigned long long)(16 >> 4) << 16;
    d |= (unsigned long long)(256 >> 4) << 32;
    d |= 3ull << 62;
    return d;
}

extern "C" __global__ void gemm_bias_relu_wgmma_rega(const __half* __restrict__ A, const __half* __restrict__ Bt,
                                                     const float* __restrict__ bias, float* __restrict__ D)
{
    __shared__ __align__(1024) unsigned char Bs[16 * 64 * 2];
    int tid = threadIdx.x;
    int m0 = blockIdx.x * 64;
    for (int e = tid; e < 16 * 64; e += 128)
        *reinterpret_cast<__half*>(Bs + b_offset(e / 64, e % 64)) = Bt[e];
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    __syncthreads();

    // A fragments of step s (columns 16s..16s+15), as mma.m16n8k16's A per warp: registers hold the pairs
    // (row g, cols 2t..2t+1), (row g+8, same), (row g, cols 2t+8..), (row g+8, cols 2t+8..)
    int warp = tid >> 5, lane = tid & 31, g = lane >> 2, t = lane & 3;
    const __half* arow = A + (m0 + 16 * warp + g) * 64 + 2 * t;
    unsigned a[4][4];
#pragma unroll
    for (int s = 0; s < 4; ++s) {
        a[s][0] = *reinterpret_cast<const unsigned*>(arow + 16 * s);
        a[s][1] = *reinterpret_cast<const unsigned*>(arow + 8 * 64 + 16 * s);
        a[s][2] = *reinterpret_cast<const unsigned*>(arow + 16 * s + 8);
        a[s][3] = *reinterpret_cast<const unsigned*>(arow + 8 * 64 + 16 * s + 8);
    }
    unsigned d[4];   // f16 accumulators: d[j] holds elements 2j (low half) and 2j + 1 (high half)
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#pragma unroll
    for (int s = 0; s < 4; ++s) {
        unsigned long long db = desc_sw32(Bs + 512 * s);
        asm volatile(
            "{\n"
            ".reg .pred p;\n"
            "setp.ne.b32 p, %9, 0;\n"
            "wgmma.mma_async.sync.aligned.m64n16k16.f16.f16.f16 "
            "{%0, %1, %2, %3}, {%4, %5, %6, %7}, %8, p, 1, 1, 0;\n"
            "}\n"
            : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
            : "r"(a[s][0]), "r"(a[s][1]), "r"(a[s][2]), "r"(a[s][3]), "l"(db), "r"(s));
    }
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");

#pragma unroll
    for (int i = 0; i < 8; ++i) {
        int row = m0 + 16 * warp + g + 8 * ((i >> 1) & 1);
        int col = 8 * (i >> 2) + 2 * t + (i & 1);
        __half2 pair = *reinterpret_cast<__half2*>(&d[i >> 1]);
        float v = (i & 1) ? __high2float(pair) : __low2float(pair);
        D[row * 16 + col] = fmaxf(v + bias[col], 0.0f);
    }
}
