// Function-pointer kernels for tests/exec/test_indirect_call.py (nvcc -arch=sm_80 -ptx -lineinfo fnptr.cu).
__device__ __noinline__ float sq(float x) { return x * x; }
__device__ __noinline__ float twice(float x) { return x + x; }
__device__ __noinline__ float neg(float x) { return -x; }

typedef float (*unary_fn)(float);
__device__ unary_fn table[3] = {sq, twice, neg};

extern "C" __global__ void apply_one(const float *x, float *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unary_fn f = sq;
    if (i < n) y[i] = f(x[i]);
}

extern "C" __global__ void apply_table(const float *x, float *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = table[i % 3](x[i]);
}

extern "C" __global__ void apply_select(const float *x, float *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unary_fn f = (i & 1) ? twice : sq;
    if (i < n) y[i] = f(x[i]);
}

__constant__ unary_fn ctable[3] = {sq, twice, neg};

extern "C" __global__ void apply_ctable(const float *x, float *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = ctable[i % 3](x[i]);
}

__device__ unary_fn gfn = twice;

extern "C" __global__ void apply_global_fn(const float *x, float *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = gfn(x[i]);
}

extern "C" __global__ void apply_wild(const float *x, float *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unary_fn f = (unary_fn)((unsigned long long)(i == 5 ? 1234 : 0) + (unsigned long long)sq);
    if (i < n) y[i] = f(x[i]);
}
