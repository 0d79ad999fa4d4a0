// y = a * x over n elements; -DOFF_BY_ONE lets the thread i == n through (out of bounds).
extern "C" __global__ void scale(const float* x, float* y, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
#ifdef OFF_BY_ONE
    if (i <= n) y[i] = a * x[i];
#else
    if (i < n) y[i] = a * x[i];
#endif
}
