// Per-row sum of an int matrix (rows of `cols` elements), by one thread.
extern "C" __global__ void rowsum_seq(const int* __restrict__ a, int* out, int rows, int cols)
{
    if (threadIdx.x == 0 && blockIdx.x == 0) {
        for (int r = 0; r < rows; ++r) {
            int s = 0;
            for (int j = 0; j < cols; ++j) s += a[r * cols + j];
            out[r] = s;
        }
    }
}
