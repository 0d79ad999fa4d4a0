// SAXPY: out = alpha * x + y, alpha is a by-value float parameter.
extern "C" __global__ void saxpy(float alpha, const float* __restrict__ x, const float* __restrict__ y,
                                 float* __restrict__ out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = alpha * x[i] + y[i];
    }
}
