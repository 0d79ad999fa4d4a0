// Naive single-head attention, one block per query row and one thread per key (LK = 32 = one warp):
// scores s_j = (q . k_j) * scale, softmax over j (warp shuffles), then out[c] = sum_j p_j * V[j][c]
// (thread j computes the columns c = j, j + 32, ...). Sizes at compile time: -DD=... (head dim).
// benchmarks/bench_attention.py builds it; for D <= 32 it is examples/eq_attention_naive_flash/ref.cu.
#include <math.h>
#define LK 32
#ifndef D
#define D 16
#endif
#ifndef CAUSAL
#define CAUSAL 0
#endif
extern "C" __global__ void attention_naive(const float* __restrict__ Q, const float* __restrict__ K,
                                           const float* __restrict__ V, float* __restrict__ O, float scale)
{
    __shared__ float p[LK];
    int q = blockIdx.x;
    int j = threadIdx.x;
    float s = 0.0f;
    for (int d = 0; d < D; ++d) s += Q[q * D + d] * K[j * D + d];
    s *= scale;
    if (CAUSAL && j > q) s = -INFINITY;
    float m = s;
    for (int off = 16; off > 0; off >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, off));
    float e = expf(s - m);
    float sum = e;
    for (int off = 16; off > 0; off >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, off);
    p[j] = e / sum;
    __syncthreads();
    for (int c = j; c < D; c += LK) {
        float acc = 0.0f;
        for (int k = 0; k < LK; ++k) acc += p[k] * V[k * D + c];
        O[q * D + c] = acc;
    }
}
