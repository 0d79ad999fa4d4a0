// cuRAND XORWOW per-thread state: curand_init(seed, tid, 0) (skip-ahead by subsequence through the
// precalc_xorwow_matrix tables), then one curand_uniform per thread into its own slot.
#include <curand_kernel.h>

extern "C" __global__ void curand_uniform_kernel(float *out, unsigned long long seed, int n) {
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    if (tid >= n) return;
    curandState state;
    curand_init(seed, tid, 0, &state);
    out[tid] = curand_uniform(&state);
}
