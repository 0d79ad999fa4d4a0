// nvcc -ptx -rdc=true -arch=sm_80 extern_exp.cu -o extern_exp.ptx
extern "C" __device__ float myexp(float);
extern "C" __global__ void ref(const float* x, float* y, int n){ int i = blockIdx.x*blockDim.x+threadIdx.x; if(i<n) y[i] = myexp(x[i]) * myexp(x[i]); }
extern "C" __global__ void opt(const float* x, float* y, int n){ int i = blockIdx.x*blockDim.x+threadIdx.x; if(i<n) y[i] = myexp(2.0f * x[i]); }
