// Rows of 16 ints, two rows per warp: each half-warp reduces its own row with redux.sync (sm_80
// __reduce_{add,min,max}_sync) under its own membermask, 0x0000ffff or 0xffff0000.
extern "C" __global__ void rowstats_redux(const int* __restrict__ a, int* out, int rows, int cols)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31;
    int r = t / 16;                        // cols == 16: one row per half-warp
    unsigned mask = 0xffffu << (lane & 16);
    if (r < rows) {
        int v = a[r * cols + (t & 15)];
        int s = __reduce_add_sync(mask, v);
        int lo = __reduce_min_sync(mask, v);
        int hi = __reduce_max_sync(mask, v);
        if ((lane & 15) == 0) {
            out[3 * r] = s;
            out[3 * r + 1] = lo;
            out[3 * r + 2] = hi;
        }
    }
}
