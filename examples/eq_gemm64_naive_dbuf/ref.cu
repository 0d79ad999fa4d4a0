// Naive SGEMM C = A*B (row-major, A MxK, B KxN): one CTA of 512 threads computes a 64x64 tile of C;
// thread t owns column t % 64 and rows t / 64 + 8*i (8 outputs), each a K-term dot product read from global.
extern "C" __global__ void sgemm64_naive(const float* __restrict__ A, const float* __restrict__ B,
                                         float* __restrict__ C, int M, int N, int K)
{
    int t = threadIdx.x;
    int col = blockIdx.x * 64 + (t & 63);
    int rbase = blockIdx.y * 64 + (t >> 6);
    for (int i = 0; i < 8; ++i) {
        int row = rbase + 8 * i;
        float acc = 0.0f;
        for (int k = 0; k < K; ++k)
            acc += A[row * K + k] * B[k * N + col];
        C[row * N + col] = acc;
    }
}
