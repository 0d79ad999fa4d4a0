// A __device__ (global-memory) table of device function pointers indexed by thread. Global memory is
// input data to `volta races`, so the call target is data-dependent: the kernel runs on concrete inputs.
__device__ __noinline__ float square(float x) { return x * x; }
__device__ __noinline__ float twice(float x) { return x + x; }
__device__ __noinline__ float negate(float x) { return -x; }

typedef float (*unary_fn)(float);
__device__ unary_fn table[3] = {square, twice, negate};

extern "C" __global__ void fnptr_table_device(const float *x, float *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = table[i % 3](x[i]);
}
