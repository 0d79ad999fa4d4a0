// Reference: one thread (grid 1, block 1) computes every element of C = A B in turn (row-major,
// M x K times K x N). Long loops in one lane: volta/exec/fast/onethread.py runs it without the lane machinery.
extern "C" __global__ void gemm_onethread(const float* __restrict__ A, const float* __restrict__ B, float* C,
                                          int M, int N, int K)
{
    for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) {
            float acc = 0.0f;
            for (int k = 0; k < K; ++k) acc += A[i * K + k] * B[k * N + j];
            C[i * N + j] = acc;
        }
}
