// KernelBench-style sum over dim=0 of a (rows x cols) matrix, reference: one thread per column.
extern "C" __global__ void colsum_naive(const float* x, float* out, int rows, int cols)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= cols) return;
    float s = 0.0f;
    for (int r = 0; r < rows; ++r) s += x[r * cols + c];
    out[c] = s;
}
