// The same GELU with sqrt(2/pi) truncated to three digits: close on every test, and a different function.
extern "C" __global__ void gelu_tanh_short(const float* __restrict__ x, float* __restrict__ y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    y[i] = 0.5f * v * (1.0f + tanhf(0.797f * (v + 0.044715f * v * v * v)));  // DEFECT: sqrt(2/pi) truncated to 0.797
}
