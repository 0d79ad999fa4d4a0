// The struct-argument axpy with one defect: it adds x where it should add y.
struct AxpyArgs {
    int n;
    float a;
    float* y;
    const float* x;
};

extern "C" __global__ void axpy_struct(AxpyArgs p)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < p.n) {
        p.y[i] = p.x[i] + p.x[i] * p.a;  // DEFECT: p.x[i] instead of p.y[i]
    }
}
