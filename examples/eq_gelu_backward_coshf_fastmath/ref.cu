// nvcc-flags: --use_fast_math
// GELU (tanh approximation) backward as llm.c writes it: sech^2 from coshf. Under --use_fast_math coshf is
// expanded inline: range reduction j = trunc(|u| log2 e) clamped to 126, 2^(j-2) built in the exponent field
// with shl.b32, ex2.approx of the remainder.
#define GELU_SCALE 0.7978845608f
extern "C" __global__ void gelu_backward(const float* x, const float* dout, float* dx, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        float cube = 0.044715f * v * v * v;
        float u = GELU_SCALE * (v + cube);
        float t = tanhf(u);
        float c = coshf(u);
        float sech2 = 1.0f / (c * c);
        float g = 0.5f * (1.0f + t) + v * 0.5f * sech2 * GELU_SCALE * (1.0f + 3.0f * 0.044715f * v * v);
        dx[i] = g * dout[i];
    }
}
