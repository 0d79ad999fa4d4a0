// Kernels for tests/exec/test_runtime.py: printf in a concrete run, and bodiless (nondet) functions.
// Rebuild: nvcc -ptx -lineinfo -arch=sm_80 -o runtime.ptx runtime.cu
#include <cstdio>

extern "C" __device__ int nondet_int();
extern "C" __device__ float nondet_float();

// printf with every kind of argument; the data-dependent branch sends `volta races` to concrete inputs
extern "C" __global__ void printing(const int* idx, int* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && idx[i] >= 0) {
        out[i] = idx[i];
        printf("t%d b%u idx=%d x=%5.2f h=%x s=%s c=%c ll=%lld %%\n", threadIdx.x, blockIdx.x, idx[i], 0.5f * i,
               255u, "ok", 'z', (long long)i * 1000000000LL);
    }
}

// a race only when the bodiless function returns a positive number: every thread then writes out[0]
extern "C" __global__ void nondet_race(int* out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = nondet_int();
    float f = nondet_float();
    if (v > 0 && f == f)
        out[0] = i;
}
