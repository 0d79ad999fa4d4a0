// cluster_group API without __cluster_dims__ (clusters of one CTA): split barrier, dims, ranks.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
extern "C" __global__ void cluster_more(unsigned *out) {
  cg::cluster_group cl = cg::this_cluster();
  cl.barrier_wait(cl.barrier_arrive());
  dim3 d = cl.dim_blocks(); dim3 bi = cl.block_index();
  out[blockIdx.x * blockDim.x + threadIdx.x] = d.x + bi.x + cl.block_rank() + cl.num_threads() + cl.thread_rank();
}
