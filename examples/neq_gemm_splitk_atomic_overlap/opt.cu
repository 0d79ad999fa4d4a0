// DEFECT: split-K SGEMM whose slices overlap by one k (`k <= k0 + per`): the shared boundary terms are
// added twice, and the last slice reads column K of A (row + 1's first element) — an LLM off-by-one.
extern "C" __global__ void gemm_splitk_atomic(const float* __restrict__ A, const float* __restrict__ B,
                                              float* __restrict__ C, int M, int N, int K)
{
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int per = K / gridDim.z;
    int k0 = blockIdx.z * per;
    if (row < M && col < N) {
        float acc = 0.0f;
        for (int k = k0; k <= k0 + per && k < K; ++k) {
            acc += A[row * K + k] * B[k * N + col];
        }
        atomicAdd(&C[row * N + col], acc);
    }
}
