// GELU, tanh form, with sqrt(2/pi) to float precision (0.7978845608f = RN(sqrt(2/pi))). N=512, 4 blocks of 128.
extern "C" __global__ void gelu_tanh(const float* __restrict__ x, float* __restrict__ y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    y[i] = 0.5f * v * (1.0f + tanhf(0.7978845608f * (v + 0.044715f * v * v * v)));
}
