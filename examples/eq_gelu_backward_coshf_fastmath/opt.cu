// nvcc-flags: --use_fast_math
// The same GELU backward, two elements per thread (float2), the upstream gradient distributed over the two terms.
#define GELU_SCALE 0.7978845608f
__device__ float gelu_backward_one(float v, float d)
{
    float u = GELU_SCALE * (v + 0.044715f * v * v * v);
    float c = coshf(u);
    float sech2 = 1.0f / (c * c);
    float slope = GELU_SCALE * (1.0f + 3.0f * 0.044715f * v * v);
    return d * 0.5f + d * 0.5f * tanhf(u) + (d * v) * (0.5f * slope) * sech2;
}
extern "C" __global__ void gelu_backward_float2(const float2* x, const float2* dout, float2* dx, int n2)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n2) {
        float2 v = x[i], d = dout[i];
        dx[i] = make_float2(gelu_backward_one(v.x, d.x), gelu_backward_one(v.y, d.y));
    }
}
