// The same choice through a function pointer: selp between two function addresses, then an indirect call.
__device__ __noinline__ float square(float x) { return x * x; }
__device__ __noinline__ float twice(float x) { return x + x; }

typedef float (*unary_fn)(float);

extern "C" __global__ void select_fnptr(const float *x, float *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unary_fn f = (i & 1) ? twice : square;
    if (i < n) y[i] = f(x[i]);
}
