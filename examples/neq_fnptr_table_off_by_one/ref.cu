// Reference: square, twice, negate by i % 3, inline.
extern "C" __global__ void table_direct(const float *x, float *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        int k = i % 3;
        y[i] = k == 0 ? v * v : (k == 1 ? v + v : -v);
    }
}
