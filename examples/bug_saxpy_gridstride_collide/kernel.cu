// DEFECTIVE: grid-stride saxpy over k = 2i mod n, which is not a permutation: i and i + n/2 hit one element.
extern "C" __global__ void saxpy_collide(float a, const float *x, float *y, unsigned n) {
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        unsigned k = (i * 2u) % n;
        y[k] = a * x[k] + y[k];  // DEFECT: threads i and i + n/2 read and write the same y[k]
    }
}
