#include <cooperative_groups.h>
namespace cg = cooperative_groups;
// Without __cluster_dims__ every cluster is one block, so the cluster barrier orders the block's threads.
extern "C" __global__ void cluster_barrier(int* out)
{
    __shared__ int s[64];
    s[threadIdx.x] = threadIdx.x * 3;
    cg::this_cluster().sync();
    out[blockIdx.x * 64 + threadIdx.x] = s[63 - threadIdx.x];
}
