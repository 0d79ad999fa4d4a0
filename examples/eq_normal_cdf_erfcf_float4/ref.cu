// The standard normal CDF through libdevice erfcf: Phi(x) = erfc(-x / sqrt(2)) / 2, one element per thread.
// erfcf (no fast math) multiplies a rational approximation by exp(-z^2), whose range reduction builds 2^j in
// the exponent field (shl.b32) with j = trunc(-z^2 log2 e) clamped to [-126, 0].
#define SQRT1_2 0.70710678118654752440f
extern "C" __global__ void normal_cdf(const float* x, float* p, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] = 0.5f * erfcf(-x[i] * SQRT1_2);
}
