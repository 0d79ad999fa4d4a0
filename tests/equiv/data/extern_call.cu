// nvcc -ptx -rdc=true -arch=sm_80 extern_call.cu -o extern_call.ptx  (an extern device function with no body)
extern "C" __device__ float __symexpf(float);
extern "C" __global__ void ref(const float* x, float* y, int n){ int i = blockIdx.x*blockDim.x+threadIdx.x; if(i<n) y[i] = __symexpf(x[i]) * 2.0f; }
extern "C" __global__ void opt(const float* x, float* y, int n){ int i = blockIdx.x*blockDim.x+threadIdx.x; if(i<n) y[i] = __symexpf(x[i]) + __symexpf(x[i]); }
extern "C" __global__ void bad(const float* x, float* y, int n){ int i = blockIdx.x*blockDim.x+threadIdx.x; if(i<n) y[i] = __symexpf(x[i]) + __symexpf(x[n-1-i]); }
