// Per-row sum, min and max of an int matrix (rows of `cols` elements), by one thread.
extern "C" __global__ void rowstats_seq(const int* __restrict__ a, int* out, int rows, int cols)
{
    if (threadIdx.x == 0 && blockIdx.x == 0) {
        for (int r = 0; r < rows; ++r) {
            int s = 0, lo = a[r * cols], hi = a[r * cols];
            for (int j = 0; j < cols; ++j) {
                int v = a[r * cols + j];
                s += v;
                lo = min(lo, v);
                hi = max(hi, v);
            }
            out[3 * r] = s;
            out[3 * r + 1] = lo;
            out[3 * r + 2] = hi;
        }
    }
}
