// The __constant__ function-pointer table indexed one entry off: every lane calls its neighbour's callee.
__device__ __noinline__ float square(float x) { return x * x; }
__device__ __noinline__ float twice(float x) { return x + x; }
__device__ __noinline__ float negate(float x) { return -x; }

typedef float (*unary_fn)(float);
__constant__ unary_fn table[3] = {square, twice, negate};

extern "C" __global__ void table_fnptr(const float *x, float *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = table[(i + 1) % 3](x[i]);  // DEFECT: (i + 1) % 3 instead of i % 3
}
