// Tall-skinny matmul, one thread per row of C (N == 4): B staged in shared memory, four register accumulators,
// one float4 store per row.
extern "C" __global__ void tallskinny_row(const float* __restrict__ A, const float* __restrict__ B,
                                          float4* __restrict__ C, int M, int N, int K)
{
    __shared__ float Bs[32 * 4];
    for (int t = threadIdx.x; t < K * 4; t += blockDim.x) Bs[t] = B[t];
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= M) return;
    float4 acc = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    for (int k = 0; k < K; ++k) {
        float a = A[i * K + k];
        acc.x += a * Bs[k * 4 + 0];
        acc.y += a * Bs[k * 4 + 1];
        acc.z += a * Bs[k * 4 + 2];
        acc.w += a * Bs[k * 4 + 3];
    }
    C[i] = acc;
}
