// One thread per row: the sequential row sum.
extern "C" __global__ void rowsum_seq(const float* x, float* out, int rows, int cols)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= rows) return;
    float s = 0.0f;
    for (int j = 0; j < cols; ++j) s += x[row * cols + j];
    out[row] = s;
}
