// KernelBench-style sum over dim=1 of a (rows x cols) matrix, reference: one thread per row.
extern "C" __global__ void rowsum_naive(const float* x, float* out, int rows, int cols)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < rows) {
        float s = 0.0f;
        for (int c = 0; c < cols; ++c) s += x[r * cols + c];
        out[r] = s;
    }
}
