// Matrix-vector product y = A·x in f32 (reference): one thread per row, f32 accumulation, f32 store.
#define K 64
extern "C" __global__ void gemv_f32(const float* __restrict__ A, const float* __restrict__ x,
                                    float* __restrict__ y, int m)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < m) {
        float acc = 0.0f;
        for (int k = 0; k < K; ++k) acc += A[i * K + k] * x[k];
        y[i] = acc;
    }
}
