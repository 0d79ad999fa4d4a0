// Naive single-head attention, one block per query row and one thread per key (Lk = 32 = one warp):
// scores s_j = (q . k_j) * scale, softmax over j (warp shuffles), then out[d] = sum_j p_j * V[j][d].
#define LK 32
#define D 16
extern "C" __global__ void attention_naive(const float* __restrict__ Q, const float* __restrict__ K,
                                           const float* __restrict__ V, float* __restrict__ O, float scale)
{
    __shared__ float p[LK];
    int q = blockIdx.x;
    int j = threadIdx.x;
    float s = 0.0f;
    for (int d = 0; d < D; ++d) s += Q[q * D + d] * K[j * D + d];
    s *= scale;
    float m = s;
    for (int off = 16; off > 0; off >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, off));
    float e = expf(s - m);
    float sum = e;
    for (int off = 16; off > 0; off >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, off);
    p[j] = e / sum;
    __syncthreads();
    if (j < D) {
        float acc = 0.0f;
        for (int k = 0; k < LK; ++k) acc += p[k] * V[k * D + j];
        O[q * D + j] = acc;
    }
}
