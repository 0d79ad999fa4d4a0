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

// Not in the manifest (tests/exec/test_curand.py runs it): curand_init with an offset skips `offset`
// numbers through precalc_xorwow_offset_matrix; the raw 32-bit numbers that follow.
extern "C" __global__ void curand_offset_kernel(unsigned int *out, unsigned long long seed,
                                                unsigned long long offset, int per_thread, int n) {
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    if (tid >= n) return;
    curandState state;
    curand_init(seed, tid, offset, &state);
    for (int k = 0; k < per_thread; k++) out[tid * per_thread + k] = curand(&state);
}
