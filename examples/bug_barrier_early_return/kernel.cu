// DEFECTIVE: `if (i >= n) return;` before a __syncthreads() (issue 8 §3): in the last block the
// threads past n exit without reaching the barrier the others wait at. Undefined in CUDA; it works
// on GPUs since Volta, which count exited threads as arrived (volta races --allow-exit-before-barrier).
#define BLOCK 128
extern "C" __global__ void shift_left(const float *in, float *out, int n) {
    __shared__ float tile[BLOCK];
    int i = blockIdx.x * BLOCK + threadIdx.x;
    if (i >= n) return;
    tile[threadIdx.x] = in[i];
    __syncthreads();  // DEFECT: threads with i >= n returned before this barrier
    int j = threadIdx.x + 1 < BLOCK && i + 1 < n ? threadIdx.x + 1 : threadIdx.x;
    out[i] = tile[j];
}
