// Reference: the per-parity choice computed inline.
extern "C" __global__ void select_direct(const float *x, float *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        y[i] = (i & 1) ? v + v : v * v;
    }
}
