// Module-scope variables hold their initializers (zeros without one): ref and opt each have their own.
// Compiled twice: -DFOURTH=4 (module_globals_a.ptx) and -DFOURTH=5 (module_globals_b.ptx).
#ifndef FOURTH
#define FOURTH 4
#endif
__device__ unsigned char lut[4] = {1, 2, 3, FOURTH};
__device__ float scale = 2.0f;
__constant__ float offset[2] = {0.5f, 0.25f};
__device__ int zeros[4];

extern "C" __global__ void table_int(const int* x, int* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] + lut[i & 3] + zeros[i & 3];
}

extern "C" __global__ void table_float(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] * scale + offset[i & 1] + (float)lut[i & 3];
}
