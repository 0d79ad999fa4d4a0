// cp.async.bulk shared->global with bulk groups, and barrier.cluster with every ordering (nvcc 13, sm_90).
extern "C" __global__ void bulk_store(float *out, const float *in) {
  __shared__ alignas(128) float s[256];
  s[threadIdx.x] = in[blockIdx.x * 256 + threadIdx.x] * 2.f;
  asm volatile("fence.proxy.async.shared::cta;");
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" :: "l"(out + blockIdx.x*256), "r"((unsigned)__cvta_generic_to_shared(s)), "r"(1024) : "memory");
    asm volatile("cp.async.bulk.commit_group;");
    asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
  }
  __syncthreads();
}
extern "C" __global__ void bulk_store_nosync(float *out, const float *in) {
  __shared__ alignas(128) float s[256];
  s[threadIdx.x] = in[blockIdx.x * 256 + threadIdx.x] * 2.f;
  asm volatile("fence.proxy.async.shared::cta;");
  if (threadIdx.x == 0) {
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" :: "l"(out + blockIdx.x*256), "r"((unsigned)__cvta_generic_to_shared(s)), "r"(1024) : "memory");
    asm volatile("cp.async.bulk.commit_group;");
    asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
  }
  __syncthreads();
}
extern "C" __global__ void cl_orders(float *out) {
  asm volatile("barrier.cluster.arrive.relaxed.aligned;");
  asm volatile("barrier.cluster.wait.aligned;");
  asm volatile("barrier.cluster.arrive.release;");
  asm volatile("barrier.cluster.wait.acquire;");
  asm volatile("barrier.cluster.arrive;");
  asm volatile("barrier.cluster.wait;");
  out[threadIdx.x] = 1.f;
}
