// cuRAND per-thread state, but the two blocks store into the same half of the output: thread t of
// block 0 and thread t of block 1 write one slot.
#include <curand_kernel.h>

extern "C" __global__ void curand_shared_slot(float *out, unsigned long long seed, int n) {
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    if (tid >= n) return;
    curandState state;
    curand_init(seed, tid, 0, &state);
    out[tid % (n / 2)] = curand_uniform(&state);  // DEFECT: threads tid and tid + n/2 write one slot
}
