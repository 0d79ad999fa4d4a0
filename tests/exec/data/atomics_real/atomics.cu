// Atomics over the reals (tests/exec/test_atomics_real.py). Build: nvcc -arch=sm_80 -ptx atomics.cu -o atomics.ptx
#include <climits>

extern "C" __global__ void dot_ref(const float* a, const float* b, float* out, int n) {
  if (threadIdx.x == 0 && blockIdx.x == 0) {
    float s = 0.f;
    for (int i = 0; i < n; ++i) s += a[i] * b[i];
    out[0] = s;
  }
}

// a shared accumulator per block, then one global atomicAdd per block
extern "C" __global__ void dot_shared_atomic(const float* a, const float* b, float* out, int n) {
  __shared__ float s;
  if (threadIdx.x == 0) s = 0.f;
  __syncthreads();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&s, a[i] * b[i]);
  __syncthreads();
  if (threadIdx.x == 0) atomicAdd(out, s);
}

// DEFECT: thread 0 reads the shared sum while other threads may still be adding to it
extern "C" __global__ void dot_shared_nosync(const float* a, const float* b, float* out, int n) {
  __shared__ float s;
  if (threadIdx.x == 0) s = 0.f;
  __syncthreads();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&s, a[i] * b[i]);
  if (threadIdx.x == 0) atomicAdd(out, s);
}

// warp shuffles, then one atomicAdd per warp through `red` written by hand
extern "C" __global__ void dot_warp_red(const float* a, const float* b, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? a[i] * b[i] : 0.f;
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  if ((threadIdx.x & 31) == 0) asm volatile("red.global.add.f32 [%0], %1;" :: "l"(out), "f"(v) : "memory");
}

// DEFECT: a plain read of the accumulated value in the same kernel, unordered with other blocks' atomics
extern "C" __global__ void dot_read_back(const float* a, const float* b, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(out, a[i] * b[i]);
  if (i == 0) out[1] = out[0];
}

extern "C" __global__ void max_ref(const int* a, int* out, int n) {
  if (threadIdx.x == 0 && blockIdx.x == 0) {
    int m = INT_MIN;
    for (int i = 0; i < n; ++i) m = max(m, a[i]);
    out[0] = m;
  }
}

extern "C" __global__ void max_ref_from_zero(const int* a, int* out, int n) {
  if (threadIdx.x == 0 && blockIdx.x == 0) {
    int m = 0;
    for (int i = 0; i < n; ++i) m = max(m, a[i]);
    out[0] = m;
  }
}

// atomicMax into a zeroed output: max(0, a...), which is not the INT_MIN-seeded max of the reference
extern "C" __global__ void max_atomic(const int* a, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicMax(out, a[i]);
}

extern "C" __global__ void min_atomic_u32(const unsigned* a, unsigned* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicMin(out, a[i]);
}

extern "C" __global__ void or_atomic(const int* a, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicOr(out, a[i]);
}

extern "C" __global__ void exch_atomic(const float* a, const float* b, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicExch(out, a[i] * b[i]);
}

// the old value used: which thread sees which partial sum depends on the order
extern "C" __global__ void dot_uses_old(const float* a, const float* b, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float old = atomicAdd(out, a[i] * b[i]);
    if (i == n - 1) out[1] = old;
  }
}

// y = y0 + A x with y an inout buffer, one atomic per (row, column chunk)
extern "C" __global__ void gemv_acc_ref(const float* A, const float* x, float* y, int n) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < n) {
    float s = y[r];
    for (int c = 0; c < n; ++c) s += A[r * n + c] * x[c];
    y[r] = s;
  }
}

extern "C" __global__ void gemv_acc_atomic(const float* A, const float* x, float* y, int n) {
  int r = blockIdx.x, c = blockIdx.y * blockDim.x + threadIdx.x;
  if (c < n) atomicAdd(&y[r], A[r * n + c] * x[c]);
}

// a concrete counter beside the data: the number of threads that ran
extern "C" __global__ void count_ref(const float* a, const float* b, float* out, int n) {
  if (threadIdx.x == 0 && blockIdx.x == 0) {
    float s = 0.f;
    for (int i = 0; i < n; ++i) s += a[i] * b[i];
    out[0] = s;
    reinterpret_cast<int*>(out)[2] = n;
  }
}

extern "C" __global__ void count_atomic(const float* a, const float* b, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    atomicAdd(out, a[i] * b[i]);
    atomicAdd(reinterpret_cast<int*>(out) + 2, 1);
  }
}

// an atomic under a data-dependent branch: if-conversion does not run atomics under a condition
extern "C" __global__ void positive_sum_atomic(const float* a, const float* b, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && a[i] > 0.f) atomicAdd(out, a[i] * b[i]);
}

// add and max on one address: the final value depends on the order (max(0 + a, b) vs max(0, b) + a)
extern "C" __global__ void add_max_mixed(const int* a, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    if (i & 1) atomicAdd(out, a[i]);
    else atomicMax(out, a[i]);
  }
}

// the same with concrete contributions: a counter that some threads add to and others raise
extern "C" __global__ void add_max_mixed_counter(const int* a, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    atomicMax(out, a[i]);
    if (i & 1) atomicAdd(out + 1, 1);
    else atomicMax(out + 1, 3);
  }
}

// sequential sum of the positive products (the branch is if-converted)
extern "C" __global__ void positive_sum_ref(const float* a, const float* b, float* out, int n) {
  if (threadIdx.x == 0 && blockIdx.x == 0) {
    float s = 0.f;
    for (int i = 0; i < n; ++i)
      if (a[i] > 0.f) s += a[i] * b[i];
    out[0] = s;
  }
}

// conditional atomics per block in shared memory, then one global atomic per block (another order)
extern "C" __global__ void positive_sum_shared_atomic(const float* a, const float* b, float* out, int n) {
  __shared__ float s;
  if (threadIdx.x == 0) s = 0.f;
  __syncthreads();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && a[i] > 0.f) atomicAdd(&s, a[i] * b[i]);
  __syncthreads();
  if (threadIdx.x == 0) atomicAdd(out, s);
}

// DEFECT: the condition tests b instead of a
extern "C" __global__ void positive_sum_wrong_cond(const float* a, const float* b, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && b[i] > 0.f) atomicAdd(out, a[i] * b[i]);
}

// a count of the positive entries: a concrete contribution under a data condition
extern "C" __global__ void positive_count_ref(const int* a, int* out, int n) {
  if (threadIdx.x == 0 && blockIdx.x == 0) {
    int c = 0;
    for (int i = 0; i < n; ++i) c += a[i] > 0;
    out[0] = c;
  }
}

extern "C" __global__ void positive_count_atomic(const int* a, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && a[i] > 0) atomicAdd(out, 1);
}

// the largest entry above a threshold of 10, or 0
extern "C" __global__ void max_above_ref(const int* a, int* out, int n) {
  if (threadIdx.x == 0 && blockIdx.x == 0) {
    int m = 0;
    for (int i = 0; i < n; ++i) if (a[i] > 10) m = max(m, a[i]);
    out[0] = m;
  }
}

extern "C" __global__ void max_above_atomic(const int* a, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && a[i] > 10) atomicMax(out, a[i]);
}

// a wrapping counter (atomicInc with one bound) beside the data: the number of threads that ran, mod 100
extern "C" __global__ void count_inc_ref(const float* a, const float* b, float* out, int n) {
  if (threadIdx.x == 0 && blockIdx.x == 0) {
    float s = 0.f;
    for (int i = 0; i < n; ++i) s += a[i] * b[i];
    out[0] = s;
    reinterpret_cast<unsigned*>(out)[2] = n % 100;
  }
}

extern "C" __global__ void count_inc_atomic(const float* a, const float* b, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    atomicAdd(out, a[i] * b[i]);
    atomicInc(reinterpret_cast<unsigned*>(out) + 2, 99u);
  }
}

// each thread its own bound: the final value depends on the order
extern "C" __global__ void count_inc_bounds(const float* a, const float* b, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    atomicAdd(out, a[i] * b[i]);
    atomicInc(reinterpret_cast<unsigned*>(out) + 2, 50u + (i & 7));
  }
}
