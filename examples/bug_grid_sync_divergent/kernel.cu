#include <cooperative_groups.h>
namespace cg = cooperative_groups;
// DEFECTIVE: a grid barrier must be reached by every thread of the grid; blocks with odd index skip it.
extern "C" __global__ void grid_sync_divergent(const int* x, int* part, int* out)
{
    cg::grid_group grid = cg::this_grid();
    if (threadIdx.x == 0) {
        part[blockIdx.x] = x[blockIdx.x];
    }
    if (blockIdx.x % 2 == 0) {
        grid.sync();   // DEFECT: divergent grid barrier
    }
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        out[0] = part[0] + part[2];
    }
}
