// KernelBench-style 1-D convolution (valid, kernel width 5), reference: one thread per output.
extern "C" __global__ void conv1d_naive(const float* x, const float* w, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n - 4) return;
    float acc = 0.0f;
    for (int k = 0; k < 5; ++k) acc += x[i + k] * w[k];
    y[i] = acc;
}
