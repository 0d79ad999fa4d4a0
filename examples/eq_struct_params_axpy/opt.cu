// The same axpy with its arguments packed in a struct passed by value, in another order, and the sum regrouped.
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
        p.y[i] = p.y[i] + p.x[i] * p.a;
    }
}
