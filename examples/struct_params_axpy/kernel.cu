// y = a*x + y with every argument in one struct passed by value, fields of mixed widths
// (pointers, a float, a 64-bit count): nvcc reads each field with ld.param at its offset.
struct AxpyArgs {
    int n;
    float a;
    const float* x;
    float* y;
    long long stride;
};

extern "C" __global__ void axpy_struct(AxpyArgs p)
{
    for (long long i = blockIdx.x * blockDim.x + threadIdx.x; i < p.n; i += p.stride) {
        p.y[i] = p.a * p.x[i] + p.y[i];
    }
}
