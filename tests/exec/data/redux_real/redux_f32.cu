// redux.sync .f32 forms (sm_100a, inline PTX: CUDA has no intrinsic for them) over the reals
// (tests/exec/test_redux_real.py). Build: nvcc -arch=sm_100a -ptx redux_f32.cu -o redux_f32.ptx

// the largest |x| and the smallest x per 32 elements, sequentially: out[2w] = max |x|, out[2w+1] = min x
extern "C" __global__ void fminmax_ref(const float* x, float* out, int n) {
  if (threadIdx.x == 0 && blockIdx.x == 0) {
    for (int w = 0; w < n / 32; ++w) {
      float hi = fabsf(x[w * 32]), lo = x[w * 32];
      for (int j = 1; j < 32; ++j) {
        hi = fmaxf(hi, fabsf(x[w * 32 + j]));
        lo = fminf(lo, x[w * 32 + j]);
      }
      out[2 * w] = hi;
      out[2 * w + 1] = lo;
    }
  }
}

extern "C" __global__ void fminmax_redux(const float* x, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = x[i], hi, lo;
  asm volatile("redux.sync.max.abs.NaN.f32 %0, %1, 0xffffffff;" : "=f"(hi) : "f"(v));
  asm volatile("redux.sync.min.f32 %0, %1, 0xffffffff;" : "=f"(lo) : "f"(v));
  if ((threadIdx.x & 31) == 0) {
    out[2 * (i / 32)] = hi;
    out[2 * (i / 32) + 1] = lo;
  }
}

// DEFECT: the max without .abs
extern "C" __global__ void fminmax_redux_noabs(const float* x, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = x[i], hi, lo;
  asm volatile("redux.sync.max.NaN.f32 %0, %1, 0xffffffff;" : "=f"(hi) : "f"(v));
  asm volatile("redux.sync.min.f32 %0, %1, 0xffffffff;" : "=f"(lo) : "f"(v));
  if ((threadIdx.x & 31) == 0) {
    out[2 * (i / 32)] = hi;
    out[2 * (i / 32) + 1] = lo;
  }
}
