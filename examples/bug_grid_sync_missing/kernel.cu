// DEFECTIVE: blocks never synchronize inside a launch; block 0 reads partials other blocks write.
extern "C" __global__ void grid_sync_missing(const int* x, int* part, int* out)
{
    if (threadIdx.x == 0) {
        part[blockIdx.x] = x[blockIdx.x];
    }
    __syncthreads();
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        int s = 0;
        for (int b = 0; b < gridDim.x; b++) {
            s += part[b];   // DEFECT: needs a grid-wide barrier (cg::this_grid().sync())
        }
        out[0] = s;
    }
}
