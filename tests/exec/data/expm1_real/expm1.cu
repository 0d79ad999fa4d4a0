// libdevice expm1f over the reals (tests/exec/test_expm1_real.py). Build: nvcc -arch=sm_80 -ptx expm1.cu -o expm1.ptx
// (no fast math: expm1f is libdevice's full-precision version, ending in `selp.f32 r, +inf, v, j > 128`)
#include <math_constants.h>

extern "C" __global__ void expm1_each(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = expm1f(x[i]);
}

// the same, by a grid-stride loop over fewer threads
extern "C" __global__ void expm1_stride(const float* x, float* y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) y[i] = expm1f(x[i]);
}

// e^x - 1 by expf: equal to expm1f in floats to a few ulps, but its polynomial is another one over the reals
extern "C" __global__ void expf_minus_one(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = expf(x[i]) - 1.0f;
}

// +inf above 100: in floats expm1f overflows there anyway (e^x - 1 > FLT_MAX from x = 88.73)
extern "C" __global__ void expm1_inf_above_100(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float e = expm1f(x[i]);
    y[i] = x[i] > 100.0f ? CUDART_INF_F : e;
  }
}

// DEFECT: +inf above 10, where e^x - 1 is finite: no overflow, so no real value to read it as
extern "C" __global__ void expm1_inf_above_10(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float e = expm1f(x[i]);
    y[i] = x[i] > 10.0f ? CUDART_INF_F : e;
  }
}
