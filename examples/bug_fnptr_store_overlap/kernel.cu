// Each thread stores through a function pointer chosen by its index parity: even threads call
// put_own (y[i]), odd threads call put_half, which writes y[i / 2] -- an element another thread owns.
__device__ __noinline__ void put_own(float *y, int i, float v) { y[i] = v; }
__device__ __noinline__ void put_half(float *y, int i, float v) {
    y[i / 2] = v;  // DEFECT: odd thread i writes the slot of thread i / 2 (a race with that thread)
}

typedef void (*store_fn)(float *, int, float);

extern "C" __global__ void fnptr_store_overlap(const float *x, float *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    store_fn put = (i & 1) ? put_half : put_own;
    if (i < n) put(y, i, x[i]);
}
