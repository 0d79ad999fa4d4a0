// Row sums, one thread per row: out[r] = sum_j x[r, j].
extern "C" __global__ void row_sums(const float* x, float* out, int rows, int cols)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < rows) {
        float s = 0.f;
        for (int j = 0; j < cols; ++j) s += x[r * cols + j];
        out[r] = s;
    }
}
