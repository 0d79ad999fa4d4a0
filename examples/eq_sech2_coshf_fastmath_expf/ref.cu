// nvcc-flags: --use_fast_math
// The sech^2 factor of a GELU backward as llm.c writes it, dx = dout / cosh(u)^2, built with --use_fast_math:
// coshf is inlined as a range reduction j = trunc(|u| log2 e) clamped to 126, |u| - j ln 2 (hi + lo), 2^(j-2)
// from the exponent field, ex2.approx of the rest. 256 elements, 2 blocks of 128.
extern "C" __global__ void sech2_coshf(const float* __restrict__ u, const float* __restrict__ dout,
                                       float* __restrict__ dx, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float c = coshf(u[i]);
    dx[i] = dout[i] / (c * c);
}
