// GELU, tanh approximation; tanh(u) computed as 1 - 2 / (exp(2u) + 1) with the fast __expf.
extern "C" __global__ void gelu_tanh(const float* __restrict__ x, float* __restrict__ out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        float u = 0.7978845608f * (v + 0.044715f * v * v * v);
        float t = 1.0f - 2.0f / (__expf(2.0f * u) + 1.0f);
        out[i] = 0.5f * v * (1.0f + t);
    }
}
