// The same layer with the tanh approximation of GELU (tanhf, libdevice): a different function, by up to
// ~1e-3 relative where the dot product is of order 1.
#define K 32
extern "C" __global__ void linear_gelu_tanh(const float* __restrict__ W, const float* __restrict__ x,
                                            float* __restrict__ y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float s = 0.0f;
    for (int k = 0; k < K; ++k) s += W[i * K + k] * x[k];
    y[i] = 0.5f * s * (1.0f + tanhf(0.7978845608f * (s + 0.044715f * s * s * s)));  // DEFECT: tanh approximation
}
