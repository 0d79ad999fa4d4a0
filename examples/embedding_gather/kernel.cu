// Embedding lookup: out[t, :] = table[clamp(idx[t]), :]. One block per 8 tokens, one thread per feature.
#define DIM 32
extern "C" __global__ void embedding_gather(const int* __restrict__ idx, const float* __restrict__ table,
                                            float* __restrict__ out, int ntok, int vocab)
{
    int t = blockIdx.x * blockDim.y + threadIdx.y;
    int d = threadIdx.x;
    if (t < ntok) {
        int row = idx[t];
        row = min(max(row, 0), vocab - 1);   // clamp: indices are untrusted input
        out[t * DIM + d] = table[row * DIM + d];
    }
}
