// Linear layer with an optional bias: the accumulator starts at the bias (or 0), W^T tiles in shared memory.
#define T 16
extern "C" __global__ void linear_tiled(const float* __restrict__ x, const float* __restrict__ W,
                                        const float* __restrict__ b, float* __restrict__ y, int M, int N, int K)
{
    __shared__ float xs[T][T];
    __shared__ float ws[T][T + 1];
    int tx = threadIdx.x, ty = threadIdx.y, i = blockIdx.y * T + ty, j = blockIdx.x * T + tx;
    float acc = b ? b[j] : 0.0f;
    for (int t = 0; t < K; t += T) {
        xs[ty][tx] = x[i * K + t + tx];
        ws[tx][ty] = W[(blockIdx.x * T + ty) * K + t + tx];
        __syncthreads();
        for (int k = 0; k < T; ++k) acc += xs[ty][k] * ws[k][tx];
        __syncthreads();
    }
    y[i * N + j] = acc;
}
