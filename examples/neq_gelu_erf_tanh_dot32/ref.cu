// A linear layer with GELU, exact erf form: y[i] = gelu(sum_k W[i][k] x[k]), K = 32, erff (libdevice).
// 64 outputs, 2 blocks of 32.
#define K 32
extern "C" __global__ void linear_gelu_erf(const float* __restrict__ W, const float* __restrict__ x,
                                           float* __restrict__ y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float s = 0.0f;
    for (int k = 0; k < K; ++k) s += W[i * K + k] * x[k];
    y[i] = 0.5f * s * (1.0f + erff(s * 0.70710678f));
}
