// Distributed shared memory (cluster.map_shared_rank -> mapa): cluster_k requires clusters of 2 CTAs (outside
// the model: UNSUPPORTED naming mapa); cluster_one has clusters of one CTA (rank 0 is the CTA itself).
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
extern "C" __global__ void __cluster_dims__(2,1,1) cluster_k(float *out, const float *in) {
  __shared__ float s[128];
  cg::cluster_group cl = cg::this_cluster();
  s[threadIdx.x] = in[blockIdx.x * blockDim.x + threadIdx.x];
  cl.sync();
  float *peer = cl.map_shared_rank(s, (cl.block_rank() + 1) % cl.num_blocks());
  float v = peer[threadIdx.x];
  cl.sync();
  out[blockIdx.x * blockDim.x + threadIdx.x] = v;
}
extern "C" __global__ void cluster_one(float *out, const float *in) {
  __shared__ float s[128];
  cg::cluster_group cl = cg::this_cluster();
  s[threadIdx.x] = in[blockIdx.x * blockDim.x + threadIdx.x];
  cl.sync();
  float *peer = cl.map_shared_rank(s, (cl.block_rank() + 1) % cl.num_blocks());
  float v = peer[threadIdx.x];
  cl.sync();
  out[blockIdx.x * blockDim.x + threadIdx.x] = v;
}
