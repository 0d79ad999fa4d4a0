// Elementwise scale, one thread per element: out[i] = in[i] * scale (the reference of a TMA staging kernel).
extern "C" __global__ void scale_naive(const float* __restrict__ in, float* __restrict__ out, float scale)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = in[i] * scale;
}
