// DEFECTIVE: __syncthreads() in a branch that only the first warp takes (issue 8 §3).
// Threads 32..63 finish the else branch and exit without ever reaching the barrier. CUDA makes
// that undefined behaviour; GPUs since Volta count exited threads as arrived, so it usually works.
extern "C" __global__ void exited_at_barrier(const float *in, float *out) {
    __shared__ float buf[32];
    int tid = threadIdx.x;
    if (tid < 32) {
        buf[tid] = in[blockIdx.x * 64 + tid];
        __syncthreads();  // DEFECT: threads 32..63 of the block never reach this barrier
        out[blockIdx.x * 64 + tid] = buf[31 - tid];
    } else {
        out[blockIdx.x * 64 + tid] = in[blockIdx.x * 64 + tid];
    }
}
