// Rows of 16 ints, two rows per warp, one row per half-warp.
extern "C" __global__ void rowsum_redux(const int* __restrict__ a, int* out, int rows, int cols)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int r = t / 16;                        // cols == 16: one row per half-warp
    int v = a[r * cols + (t & 15)];
    int s = __reduce_add_sync(0xffffffffu, v);  // DEFECT: the full-warp mask sums both rows of the warp
    if ((t & 15) == 0 && r < rows) out[r] = s;
}
