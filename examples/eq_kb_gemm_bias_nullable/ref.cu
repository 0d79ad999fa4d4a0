// KernelBench-style linear layer y = x @ W^T + b with an optional bias (nullptr: no bias), reference: one thread
// per output.
extern "C" __global__ void linear_naive(const float* x, const float* W, const float* b, float* y,
                                        int M, int N, int K)
{
    int i = blockIdx.y * blockDim.y + threadIdx.y, j = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= M || j >= N) return;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += x[i * K + k] * W[j * K + k];
    if (b != nullptr) acc += b[j];
    y[i * N + j] = acc;
}
