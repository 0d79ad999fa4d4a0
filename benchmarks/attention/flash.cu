// Flash-style attention: K and V are streamed through shared memory in tiles of BC keys; each thread owns
// one query row and keeps the online-softmax state (running max m, running sum l, unnormalized output acc).
// Sizes at compile time: -DD=... (head dim), -DBR=... (query rows per block), -DBC=... (keys per tile);
// -DCAUSAL=1 masks key k > q.
// benchmarks/bench_attention.py builds it; at D = BR = BC = 16 it computes examples/eq_attention_naive_flash/opt.cu.
#include <math.h>
#ifndef D
#define D 16
#endif
#ifndef BR
#define BR 16
#endif
#ifndef BC
#define BC 16
#endif
#ifndef CAUSAL
#define CAUSAL 0
#endif
extern "C" __global__ void attention_flash(const float* __restrict__ Q, const float* __restrict__ K,
                                           const float* __restrict__ V, float* __restrict__ O,
                                           int lk, float scale)
{
    __shared__ float Ks[BC][D];
    __shared__ float Vs[BC][D];
    int t = threadIdx.x;
    int q = blockIdx.x * BR + t;
    float qv[D], acc[D];
    for (int d = 0; d < D; ++d) {
        qv[d] = Q[q * D + d] * scale;
        acc[d] = 0.0f;
    }
    float m = -INFINITY, l = 0.0f;
    for (int j0 = 0; j0 < lk; j0 += BC) {
        for (int i = t; i < BC * D; i += BR) {
            Ks[i / D][i % D] = K[j0 * D + i];
            Vs[i / D][i % D] = V[j0 * D + i];
        }
        __syncthreads();
        for (int j = 0; j < BC; ++j) {
            if (CAUSAL && j0 + j > q) break;   // key beyond the query: masked (takes no part)
            float s = 0.0f;
            for (int d = 0; d < D; ++d) s += qv[d] * Ks[j][d];
            float m_new = fmaxf(m, s);
            float alpha = expf(m - m_new);
            float p = expf(s - m_new);
            l = l * alpha + p;
            for (int d = 0; d < D; ++d) acc[d] = acc[d] * alpha + p * Vs[j][d];
            m = m_new;
        }
        __syncthreads();
    }
    float inv = 1.0f / l;
    for (int d = 0; d < D; ++d) O[q * D + d] = acc[d] * inv;
}
