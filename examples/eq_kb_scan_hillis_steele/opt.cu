// Inclusive scan, one block per row: Hillis-Steele with two shared buffers (read one, write the other).
#define N 64
extern "C" __global__ void cumsum_hillis_steele(const float* __restrict__ x, float* __restrict__ y, int rows, int n)
{
    __shared__ float buf[2][N];
    int r = blockIdx.x, t = threadIdx.x, src = 0;
    buf[0][t] = x[r * N + t];
    __syncthreads();
    for (int off = 1; off < N; off <<= 1) {
        float v = buf[src][t];
        if (t >= off) v += buf[src][t - off];
        buf[1 - src][t] = v;
        src = 1 - src;
        __syncthreads();
    }
    y[r * N + t] = buf[src][t];
}
