// The candidate with full-precision expf, and W read transposed (W[k][i]): the exp forms are one function, so
// the witness shows the transposition, not the last digits of log2 e.
#define K 16
extern "C" __global__ void exp_matvec(const float* __restrict__ W, const float* __restrict__ x,
                                      float* __restrict__ y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float s = 0.0f;
    for (int k = 0; k < K; ++k) s += W[k * K + i] * x[k];  // DEFECT: W transposed
    y[i] = expf(s);
}
