// nvcc -ptx -lineinfo --use_fast_math -arch=sm_80 cosh_erfc.cu -o cosh_erfc.fastmath.ptx
// nvcc -ptx -lineinfo -arch=sm_80 cosh_erfc.cu -o cosh_erfc.ptx
// coshf and erfcf, whose exp range reductions build 2^j in a float's exponent field (issue 28 §5), against
// formula-level references.
extern "C" __global__ void cosh_lib(const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = coshf(x[i]);
}
extern "C" __global__ void cosh_formula(const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { float a = fabsf(x[i]); y[i] = 0.5f * (expf(a) + expf(-a)); }
}
extern "C" __global__ void erfc_lib(const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = erfcf(x[i]);
}
extern "C" __global__ void erfc_twice(const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { float v = x[i]; y[i] = 2.0f * erfcf(v) - erfcf(v); }
}
