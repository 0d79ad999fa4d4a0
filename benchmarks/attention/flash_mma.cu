// Flash-style attention on tensor cores (FlashAttention-2's register layout): one warp per 16 query rows,
// keys in tiles of BC = 16. Per tile the warp computes S = Q K^T (16 x 16) with mma.sync.m16n8k16 (two n8
// tiles, D/16 k steps; Q and K fragments converted from f32 to f16x2 in registers), keeps the online softmax
// on the accumulator fragment (row max across the quad: __shfl_xor_sync 1 and 2), turns P into f16 and reuses
// the accumulator fragment as the A fragment of P V (the C layout of two n8 tiles is the A layout of
// m16n8k16), and rescales the output fragments by exp(m_old - m_new). The row sums are per-thread partial
// sums, added across the quad at the end; the output is divided by them.
//
// Fragments (PTX ISA 9.7.14.5.8, m16n8k16 .f16, lane = 4 g + t):
//   A (16 x 16, row):  a0 = (g, 2t..2t+1)  a1 = (g+8, 2t..2t+1)  a2 = (g, 2t+8..2t+9)  a3 = (g+8, 2t+8..2t+9)
//   B (16 x 8, col):   b0 = (2t..2t+1, g)  b1 = (2t+8..2t+9, g)
//   C (16 x 8, f32):   c0 = (g, 2t)  c1 = (g, 2t+1)  c2 = (g+8, 2t)  c3 = (g+8, 2t+1)
//
// Sizes at compile time: -DD=... (head dim, a multiple of 16), -DNW=... (warps per block, 16 query rows
// each), -DSMEM=1 stages each K/V tile through shared memory as f32 (every warp of the block reads it; default
// when 2 * 16 * D floats fit in 32 KB), SMEM=0 reads the fragments from global memory; -DCAUSAL=1 masks key
// k > query q (its score is -INFINITY, as in naive.cu). Kernel arguments nq (queries: rows q >= nq of the last
// warp read zeros and store nothing) and lk (keys, a multiple of 16).
// benchmarks/bench_attention.py builds it (--opt flash_mma); examples/eq_attention_naive_flash_mma/opt.cu is this
// kernel at D = 16, NW = 1, SMEM = 1 without the nq bound.
#include <cuda_fp16.h>
#include <math.h>
#ifndef D
#define D 16
#endif
#ifndef NW
#define NW 1
#endif
#ifndef CAUSAL
#define CAUSAL 0
#endif
#ifndef SMEM
#define SMEM (2 * 16 * D * 4 <= 32768)
#endif
#define BC 16

// two f32 as one f16x2 register, `lo` in the low half (cvt.rn.f16x2.f32)
__device__ __forceinline__ unsigned pack_half2(float lo, float hi)
{
    __half2 h = __floats2half2_rn(lo, hi);
    return *reinterpret_cast<unsigned*>(&h);
}

// c += A B on one m16n8k16 tile
__device__ __forceinline__ void mma16816(float c[4], unsigned a0, unsigned a1, unsigned a2, unsigned a3,
                                         unsigned b0, unsigned b1)
{
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
}

__device__ __forceinline__ float quad_max(float v)
{
    v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, 1));
    return fmaxf(v, __shfl_xor_sync(0xffffffffu, v, 2));
}

__device__ __forceinline__ float quad_sum(float v)
{
    v += __shfl_xor_sync(0xffffffffu, v, 1);
    return v + __shfl_xor_sync(0xffffffffu, v, 2);
}

extern "C" __global__ void attention_flash_mma(const float* __restrict__ Q, const float* __restrict__ K,
                                               const float* __restrict__ V, float* __restrict__ O,
                                               int nq, int lk, float scale)
{
#if SMEM
    __shared__ float Ks[BC][D];
    __shared__ float Vs[BC][D];
#endif
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    int g = lane >> 2, t = lane & 3;
    int q0 = (blockIdx.x * NW + warp) * 16;
    bool va = q0 + g < nq, vb = q0 + g + 8 < nq;   // rows g and g + 8 of the warp's 16 are queries
    const float* qa = Q + (va ? q0 + g : 0) * D;
    const float* qb = Q + (vb ? q0 + g + 8 : 0) * D;
    float o[D / 8][4];                         // output fragments: columns 8n .. 8n+7
#pragma unroll
    for (int n = 0; n < D / 8; ++n) o[n][0] = o[n][1] = o[n][2] = o[n][3] = 0.0f;
    float ma = -INFINITY, mb = -INFINITY;      // running maxima of rows g and g + 8
    float la = 0.0f, lb = 0.0f;                // this thread's part of the running sums
    for (int j0 = 0; j0 < lk; j0 += BC) {
#if SMEM
        for (int i = threadIdx.x; i < BC * D; i += 32 * NW) {
            Ks[i / D][i % D] = K[j0 * D + i];
            Vs[i / D][i % D] = V[j0 * D + i];
        }
        __syncthreads();
        const float* kt = &Ks[0][0];
        const float* vt = &Vs[0][0];
#else
        const float* kt = K + j0 * D;
        const float* vt = V + j0 * D;
#endif
        // S = Q K^T: n tile 0 holds keys j0 .. j0+7, n tile 1 keys j0+8 .. j0+15
        float s[2][4] = {{0.0f, 0.0f, 0.0f, 0.0f}, {0.0f, 0.0f, 0.0f, 0.0f}};
#pragma unroll
        for (int k0 = 0; k0 < D; k0 += 16) {
            unsigned a0 = va ? pack_half2(qa[k0 + 2 * t], qa[k0 + 2 * t + 1]) : 0u;
            unsigned a1 = vb ? pack_half2(qb[k0 + 2 * t], qb[k0 + 2 * t + 1]) : 0u;
            unsigned a2 = va ? pack_half2(qa[k0 + 2 * t + 8], qa[k0 + 2 * t + 9]) : 0u;
            unsigned a3 = vb ? pack_half2(qb[k0 + 2 * t + 8], qb[k0 + 2 * t + 9]) : 0u;
#pragma unroll
            for (int n = 0; n < 2; ++n) {
                const float* kr = kt + (8 * n + g) * D + k0;   // B[k][n] = K[key][d]: key 8n + g
                mma16816(s[n], a0, a1, a2, a3, pack_half2(kr[2 * t], kr[2 * t + 1]),
                         pack_half2(kr[2 * t + 8], kr[2 * t + 9]));
            }
        }
#pragma unroll
        for (int n = 0; n < 2; ++n)
#pragma unroll
            for (int e = 0; e < 4; ++e) {
                s[n][e] *= scale;
                if (CAUSAL && j0 + 8 * n + 2 * t + (e & 1) > q0 + g + 8 * (e >> 1)) s[n][e] = -INFINITY;
            }
        // online softmax, rows g (elements 0, 1) and g + 8 (elements 2, 3)
        float na = fmaxf(ma, quad_max(fmaxf(fmaxf(s[0][0], s[0][1]), fmaxf(s[1][0], s[1][1]))));
        float nb = fmaxf(mb, quad_max(fmaxf(fmaxf(s[0][2], s[0][3]), fmaxf(s[1][2], s[1][3]))));
        float alpha_a = expf(ma - na), alpha_b = expf(mb - nb);
#pragma unroll
        for (int n = 0; n < 2; ++n) {
            s[n][0] = expf(s[n][0] - na);
            s[n][1] = expf(s[n][1] - na);
            s[n][2] = expf(s[n][2] - nb);
            s[n][3] = expf(s[n][3] - nb);
        }
        la = la * alpha_a + (s[0][0] + s[0][1] + s[1][0] + s[1][1]);
        lb = lb * alpha_b + (s[0][2] + s[0][3] + s[1][2] + s[1][3]);
        ma = na;
        mb = nb;
        // P as the A fragment of P V: key columns 2t.. of n tile 0 are A's k columns 2t.., n tile 1 its 2t+8..
        unsigned p0 = pack_half2(s[0][0], s[0][1]);
        unsigned p1 = pack_half2(s[0][2], s[0][3]);
        unsigned p2 = pack_half2(s[1][0], s[1][1]);
        unsigned p3 = pack_half2(s[1][2], s[1][3]);
#pragma unroll
        for (int n = 0; n < D / 8; ++n) {
            o[n][0] *= alpha_a;
            o[n][1] *= alpha_a;
            o[n][2] *= alpha_b;
            o[n][3] *= alpha_b;
            const float* vc = vt + 2 * t * D + 8 * n + g;     // B[k][n] = V[key][col]: keys 2t, 2t+1, 2t+8, 2t+9
            mma16816(o[n], p0, p1, p2, p3, pack_half2(vc[0], vc[D]), pack_half2(vc[8 * D], vc[9 * D]));
        }
#if SMEM
        __syncthreads();
#endif
    }
    float ia = 1.0f / quad_sum(la), ib = 1.0f / quad_sum(lb);
#pragma unroll
    for (int n = 0; n < D / 8; ++n) {
        float* ra = O + (q0 + g) * D + 8 * n + 2 * t;
        float* rb = O + (q0 + g + 8) * D + 8 * n + 2 * t;
        if (va) {
            ra[0] = o[n][0] * ia;
            ra[1] = o[n][1] * ia;
        }
        if (vb) {
            rb[0] = o[n][2] * ib;
            rb[1] = o[n][3] * ib;
        }
    }
}
