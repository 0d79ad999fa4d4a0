// Naive transpose: out[N][M] = in[M][N]^T, uncoalesced writes.
extern "C" __global__ void transpose_naive(const float* __restrict__ in, float* __restrict__ out, int M, int N)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;   // column of in
    int y = blockIdx.y * blockDim.y + threadIdx.y;   // row of in
    if (x < N && y < M) {
        out[x * M + y] = in[y * N + x];
    }
}
