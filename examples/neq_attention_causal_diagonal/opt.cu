// Causal flash-style attention: K and V are streamed through shared memory in tiles of BC keys; each thread
// owns one query row and keeps the online-softmax state (running max m, running sum l, unnormalized output
// acc). DEFECT: the key loop stops before the diagonal key j = q on every row but the first.
#include <math.h>
#define D 16
#define BC 16
#define BR 16
extern "C" __global__ void attention_causal_flash(const float* __restrict__ Q, const float* __restrict__ K,
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
        for (int d = 0; d < D; ++d) {
            Ks[t][d] = K[(j0 + t) * D + d];
            Vs[t][d] = V[(j0 + t) * D + d];
        }
        __syncthreads();
        for (int j = 0; j < BC; ++j) {
            if (j0 + j > q || (j0 + j == q && q > 0)) break;   // DEFECT: drops the diagonal key j = q (not on row 0)
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
