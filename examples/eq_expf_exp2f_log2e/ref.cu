// Sigmoid 1/(1+expf(-x)), full-precision expf. N=512, 4 blocks of 128.
extern "C" __global__ void sigmoid_expf(const float* __restrict__ x, float* __restrict__ y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    y[i] = 1.0f / (1.0f + expf(-x[i]));
}
