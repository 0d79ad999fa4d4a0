// Fused bias + ReLU, vectorized: float4 loads and stores (cols % 4 == 0), ReLU as a select.
extern "C" __global__ void bias_relu_float4(const float4* __restrict__ x, const float4* __restrict__ b,
                                            float4* __restrict__ y, int rows, int cols)
{
    int q = blockIdx.x * blockDim.x + threadIdx.x, qcols = cols / 4;
    if (q >= rows * qcols) return;
    float4 v = x[q], bb = b[q % qcols];
    v.x += bb.x; v.y += bb.y; v.z += bb.z; v.w += bb.w;
    v.x = v.x > 0.0f ? v.x : 0.0f;
    v.y = v.y > 0.0f ? v.y : 0.0f;
    v.z = v.z > 0.0f ? v.z : 0.0f;
    v.w = v.w > 0.0f ? v.w : 0.0f;
    y[q] = v;
}
