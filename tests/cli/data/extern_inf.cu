// nvcc -ptx -rdc=true -lineinfo -arch=sm_80 extern_inf.cu -o extern_inf.ptx
// A causal mask feeding -INFINITY to an extern exp hook (checked with --define-fn __symexpf=exp).
#include <math.h>
extern "C" __device__ float __symexpf(float);
extern "C" __global__ void ref(const float* x, float* y, int n){
    int i = blockIdx.x*blockDim.x+threadIdx.x;
    if (i < n) { float s = (i >= n/2) ? -INFINITY : x[i]; y[i] = __symexpf(s); }
}
extern "C" __global__ void opt(const float* x, float* y, int n){
    int i = blockIdx.x*blockDim.x+threadIdx.x;
    if (i < n) y[i] = (i >= n/2) ? 0.0f : __symexpf(x[i]);
}
extern "C" __global__ void posinf(const float* x, float* y, int n){
    int i = blockIdx.x*blockDim.x+threadIdx.x;
    if (i < n) { float s = (i >= n/2) ? INFINITY : x[i]; y[i] = __symexpf(s); }
}
