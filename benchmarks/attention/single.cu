// Single-thread reference attention: one thread computes every query row in turn (scores, max, exp-sum,
// then out[q][c] = sum_k p_k * V[k][c] / sum). Sizes at compile time: -DNQ=... -DLK=... -DD=...;
// -DCAUSAL=1 masks key k > q (it takes no part in the max or the sum).
// benchmarks/bench_attention.py builds it (launch: grid 1, block 1).
#include <math.h>
#ifndef NQ
#define NQ 32
#endif
#ifndef LK
#define LK 32
#endif
#ifndef D
#define D 16
#endif
#ifndef CAUSAL
#define CAUSAL 0
#endif
extern "C" __global__ void attention_single(const float* __restrict__ Q, const float* __restrict__ K,
                                            const float* __restrict__ V, float* __restrict__ O, float scale)
{
    float p[LK];
    for (int q = 0; q < NQ; ++q) {
        int n = CAUSAL ? (q + 1 < LK ? q + 1 : LK) : LK;   // keys this row sees
        float m = -INFINITY;
        for (int k = 0; k < n; ++k) {
            float s = 0.0f;
            for (int d = 0; d < D; ++d) s += Q[q * D + d] * K[k * D + d];
            p[k] = s * scale;
            m = fmaxf(m, p[k]);
        }
        float sum = 0.0f;
        for (int k = 0; k < n; ++k) {
            p[k] = expf(p[k] - m);
            sum += p[k];
        }
        for (int c = 0; c < D; ++c) {
            float acc = 0.0f;
            for (int k = 0; k < n; ++k) acc += p[k] * V[k * D + c];
            O[q * D + c] = acc / sum;
        }
    }
}
