// Row-wise bias add with an optional bias (a null pointer means "no bias"), as LLM-written kernels do:
// out[r][c] = x[r][c] + (bias ? bias[c] : 0). The manifest passes 0 for `bias`: the guarded kernel is clean.
extern "C" __global__ void bias_nullable(const float* __restrict__ x, const float* __restrict__ bias,
                                         float* __restrict__ out, int rows, int cols)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < rows * cols) {
        float v = x[i];
        if (bias != nullptr) {
            v += bias[i % cols];
        }
        out[i] = v;
    }
}
