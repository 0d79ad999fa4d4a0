// A __constant__ table of device function pointers indexed by thread: each lane calls its own
// callee (an indirect `call` through the loaded pointer), and every thread writes its own element.
__device__ __noinline__ float square(float x) { return x * x; }
__device__ __noinline__ float twice(float x) { return x + x; }
__device__ __noinline__ float negate(float x) { return -x; }

typedef float (*unary_fn)(float);
__constant__ unary_fn table[3] = {square, twice, negate};

extern "C" __global__ void fnptr_table_const(const float *x, float *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = table[i % 3](x[i]);
}
