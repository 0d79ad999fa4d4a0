// Direct 1D convolution (cross-correlation) with a 5-tap filter and zero padding:
// out[i] = sum_k w[k] * in[i + k - 2].
#define R 2
extern "C" __global__ void conv1d_direct(const float* __restrict__ in, const float* __restrict__ w,
                                         float* __restrict__ out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float acc = 0.0f;
        for (int k = 0; k < 2 * R + 1; ++k) {
            int j = i + k - R;
            float v = (j >= 0 && j < n) ? in[j] : 0.0f;
            acc += w[k] * v;
        }
        out[i] = acc;
    }
}
