// Flash-style attention on tensor cores (FlashAttention-2's register layout), one warp per 16 query rows,
// K/V tiles of 16 keys in shared memory. Per tile: S = Q K^T with mma.sync.m16n8k16 (two n8 tiles; Q and K
// converted from f32 to f16x2 in registers), online softmax on the accumulator fragment (row max across the
// quad of lanes holding a row: __shfl_xor_sync 1 and 2), P converted to f16 and reused as the A fragment of
// P V (the C layout of two n8 tiles is the A layout of m16n8k16), output fragments rescaled by
// exp(m_old - m_new); per-thread partial row sums added across the quad at the end, output divided by them.
// Fragments (lane = 4 g + t): A a0 = (g, 2t..2t+1), a1 = (g+8, 2t..), a2 = (g, 2t+8..), a3 = (g+8, 2t+8..);
// B b0 = (k 2t..2t+1, n g), b1 = (k 2t+8..2t+9, n g); C c0 = (g, 2t), c1 = (g, 2t+1), c2/c3 the same on row g+8.
// DEFECT: the row sum's second quad shuffle takes lane ^ 4 (the quad of row g ^ 1) instead of lane ^ 2, so each
// row is divided by half its own sum plus half its neighbour's.
#include <cuda_fp16.h>
#include <math.h>
#define D 16
#define BC 16

__device__ __forceinline__ unsigned pack_half2(float lo, float hi)
{
    __half2 h = __floats2half2_rn(lo, hi);   // cvt.rn.f16x2.f32: lo in the low half
    return *reinterpret_cast<unsigned*>(&h);
}

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
    return v + __shfl_xor_sync(0xffffffffu, v, 4);   // DEFECT: lane ^ 4 is the next row's quad, not lane ^ 2
}

extern "C" __global__ void attention_flash_mma(const float* __restrict__ Q, const float* __restrict__ K,
                                               const float* __restrict__ V, float* __restrict__ O,
                                               int lk, float scale)
{
    __shared__ float Ks[BC][D];
    __shared__ float Vs[BC][D];
    int lane = threadIdx.x, g = lane >> 2, t = lane & 3;
    int q0 = blockIdx.x * 16;
    const float* qa = Q + (q0 + g) * D;        // query row g of the warp's 16
    const float* qb = Q + (q0 + g + 8) * D;    // query row g + 8
    float o[D / 8][4];
    for (int n = 0; n < D / 8; ++n) o[n][0] = o[n][1] = o[n][2] = o[n][3] = 0.0f;
    float ma = -INFINITY, mb = -INFINITY, la = 0.0f, lb = 0.0f;
    for (int j0 = 0; j0 < lk; j0 += BC) {
        for (int i = lane; i < BC * D; i += 32) {
            Ks[i / D][i % D] = K[j0 * D + i];
            Vs[i / D][i % D] = V[j0 * D + i];
        }
        __syncthreads();
        float s[2][4] = {{0.0f, 0.0f, 0.0f, 0.0f}, {0.0f, 0.0f, 0.0f, 0.0f}};
        unsigned a0 = pack_half2(qa[2 * t], qa[2 * t + 1]);
        unsigned a1 = pack_half2(qb[2 * t], qb[2 * t + 1]);
        unsigned a2 = pack_half2(qa[2 * t + 8], qa[2 * t + 9]);
        unsigned a3 = pack_half2(qb[2 * t + 8], qb[2 * t + 9]);
        for (int n = 0; n < 2; ++n) {   // n tile n: keys j0 + 8n .. j0 + 8n + 7; B[k][n] = K[key][d]
            const float* kr = &Ks[8 * n + g][0];
            mma16816(s[n], a0, a1, a2, a3, pack_half2(kr[2 * t], kr[2 * t + 1]),
                     pack_half2(kr[2 * t + 8], kr[2 * t + 9]));
        }
        for (int n = 0; n < 2; ++n)
            for (int e = 0; e < 4; ++e) s[n][e] *= scale;
        float na = fmaxf(ma, quad_max(fmaxf(fmaxf(s[0][0], s[0][1]), fmaxf(s[1][0], s[1][1]))));
        float nb = fmaxf(mb, quad_max(fmaxf(fmaxf(s[0][2], s[0][3]), fmaxf(s[1][2], s[1][3]))));
        float alpha_a = expf(ma - na), alpha_b = expf(mb - nb);
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
        unsigned p0 = pack_half2(s[0][0], s[0][1]);   // P as the A fragment: keys 2t.. of n tile 0,
        unsigned p1 = pack_half2(s[0][2], s[0][3]);
        unsigned p2 = pack_half2(s[1][0], s[1][1]);   // keys 2t+8.. from n tile 1
        unsigned p3 = pack_half2(s[1][2], s[1][3]);
        for (int n = 0; n < D / 8; ++n) {
            o[n][0] *= alpha_a;
            o[n][1] *= alpha_a;
            o[n][2] *= alpha_b;
            o[n][3] *= alpha_b;
            const float* vc = &Vs[2 * t][8 * n + g];   // B[k][n] = V[key][col]: keys 2t, 2t+1, 2t+8, 2t+9
            mma16816(o[n], p0, p1, p2, p3, pack_half2(vc[0], vc[D]), pack_half2(vc[8 * D], vc[9 * D]));
        }
        __syncthreads();
    }
    float ia = 1.0f / quad_sum(la), ib = 1.0f / quad_sum(lb);
    for (int n = 0; n < D / 8; ++n) {
        O[(q0 + g) * D + 8 * n + 2 * t] = o[n][0] * ia;
        O[(q0 + g) * D + 8 * n + 2 * t + 1] = o[n][1] * ia;
        O[(q0 + g + 8) * D + 8 * n + 2 * t] = o[n][2] * ib;
        O[(q0 + g + 8) * D + 8 * n + 2 * t + 1] = o[n][3] * ib;
    }
}
