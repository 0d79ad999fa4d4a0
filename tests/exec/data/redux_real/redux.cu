// redux.sync over the reals (tests/exec/test_redux_real.py). Build: nvcc -arch=sm_80 -ptx redux.cu -o redux.ptx
// __reduce_{add,min,max,and,or}_sync (sm_80) compile to redux.sync.{add,min,max,and,or}.{s32,u32,b32}.

// one sum per 32 consecutive elements, sequentially
extern "C" __global__ void sum_ref(const int* a, int* out, int n) {
  if (threadIdx.x == 0 && blockIdx.x == 0) {
    for (int w = 0; w < n / 32; ++w) {
      int s = 0;
      for (int j = 0; j < 32; ++j) s += a[w * 32 + j];
      out[w] = s;
    }
  }
}

// one warp per 32 elements: __reduce_add_sync over the full warp
extern "C" __global__ void sum_redux(const int* a, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = i < n ? a[i] : 0;
  int s = __reduce_add_sync(0xffffffffu, v);
  if ((threadIdx.x & 31) == 0 && i < n) out[i / 32] = s;
}

// the same, but the writing lane is picked by a reduction of concrete values (the warp's first index)
extern "C" __global__ void sum_redux_first_lane(const int* a, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int s = __reduce_add_sync(0xffffffffu, a[i]);
  unsigned first = __reduce_min_sync(0xffffffffu, (unsigned)i);
  if ((unsigned)i == first) out[first / 32] = s;
}

// DEFECT: the two half-warps reduce separately (membermask 0x0000ffff / 0xffff0000), lane 0 has half the sum
extern "C" __global__ void sum_redux_half_mask(const int* a, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x & 31;
  unsigned mask = lane < 16 ? 0x0000ffffu : 0xffff0000u;
  int s = __reduce_add_sync(mask, a[i]);
  if (lane == 0) out[i / 32] = s;
}

// min and max per 32 elements, sequentially: out[2w] = min, out[2w+1] = max
extern "C" __global__ void minmax_ref(const int* a, int* out, int n) {
  if (threadIdx.x == 0 && blockIdx.x == 0) {
    for (int w = 0; w < n / 32; ++w) {
      int lo = a[w * 32], hi = a[w * 32];
      for (int j = 1; j < 32; ++j) {
        lo = min(lo, a[w * 32 + j]);
        hi = max(hi, a[w * 32 + j]);
      }
      out[2 * w] = lo;
      out[2 * w + 1] = hi;
    }
  }
}

extern "C" __global__ void minmax_redux(const int* a, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = a[i];
  int lo = __reduce_min_sync(0xffffffffu, v);
  int hi = __reduce_max_sync(0xffffffffu, v);
  if ((threadIdx.x & 31) == 0) {
    out[2 * (i / 32)] = lo;
    out[2 * (i / 32) + 1] = hi;
  }
}

// DEFECT: max where min was meant
extern "C" __global__ void minmax_redux_swapped(const int* a, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = a[i];
  int lo = __reduce_max_sync(0xffffffffu, v);
  int hi = __reduce_max_sync(0xffffffffu, v);
  if ((threadIdx.x & 31) == 0) {
    out[2 * (i / 32)] = lo;
    out[2 * (i / 32) + 1] = hi;
  }
}

// unsigned min per 32 elements (redux.sync.min.u32)
extern "C" __global__ void umin_ref(const unsigned* a, unsigned* out, int n) {
  if (threadIdx.x == 0 && blockIdx.x == 0) {
    for (int w = 0; w < n / 32; ++w) {
      unsigned lo = a[w * 32];
      for (int j = 1; j < 32; ++j) lo = min(lo, a[w * 32 + j]);
      out[w] = lo;
    }
  }
}

extern "C" __global__ void umin_redux(const unsigned* a, unsigned* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned lo = __reduce_min_sync(0xffffffffu, a[i]);
  if ((threadIdx.x & 31) == 0) out[i / 32] = lo;
}

// bitwise reductions of data: no real meaning
extern "C" __global__ void or_redux(const int* a, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned r = __reduce_or_sync(0xffffffffu, (unsigned)a[i]);
  if ((threadIdx.x & 31) == 0) out[i / 32] = (int)r;
}

extern "C" __global__ void and_redux(const int* a, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned r = __reduce_and_sync(0xffffffffu, (unsigned)a[i]);
  if ((threadIdx.x & 31) == 0) out[i / 32] = (int)r;
}

// a max of float bits (the non-negative-float trick): integer arithmetic on float bits, no real meaning here
extern "C" __global__ void fmax_bits_ref(const float* x, float* out, int n) {
  if (threadIdx.x == 0 && blockIdx.x == 0) {
    for (int w = 0; w < n / 32; ++w) {
      float hi = fabsf(x[w * 32]);
      for (int j = 1; j < 32; ++j) hi = fmaxf(hi, fabsf(x[w * 32 + j]));
      out[w] = hi;
    }
  }
}

extern "C" __global__ void fmax_bits_redux(const float* x, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int b = __reduce_max_sync(0xffffffffu, __float_as_int(fabsf(x[i])));
  if ((threadIdx.x & 31) == 0) out[i / 32] = __int_as_float(b);
}

// UNDEFINED: every lane runs the reduction, but lane 31 is outside the membermask 0x7fffffff
extern "C" __global__ void sum_redux_outside_mask(const int* a, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int s = __reduce_add_sync(0x7fffffffu, a[i]);
  if ((threadIdx.x & 31) == 0) out[i / 32] = s;
}

// an unsigned max of signed data: negative values compare as large unsigned numbers (refused over the reals)
extern "C" __global__ void umax_of_signed(const int* a, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned hi = __reduce_max_sync(0xffffffffu, (unsigned)a[i]);
  if ((threadIdx.x & 31) == 0) out[i / 32] = (int)hi;
}
