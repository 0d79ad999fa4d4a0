// Parse corpus: device functions kept as real .func calls (__noinline__), including one returning a value
// through .param and one taking a pointer.
__device__ __noinline__ float gelu_scalar(float v)
{
    float u = 0.7978845608f * (v + 0.044715f * v * v * v);
    return 0.5f * v * (1.0f + tanhf(u));
}

__device__ __noinline__ void accumulate(float* dst, float v, int n)
{
    for (int i = 0; i < n; ++i) dst[i] += v * i;
}

extern "C" __global__ void noinline_func(const float* __restrict__ x, float* __restrict__ y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float g = gelu_scalar(x[i]);
        y[i] = g;
        if (i == 0) accumulate(y + n, g, 4);
    }
}
