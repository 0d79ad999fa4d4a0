// Grid-stride saxpy over a permuted index (k = 7i mod n, a permutation when gcd(7, n) = 1): race-free,
// though threads of different iterations and blocks touch interleaved elements (issue 14: loops must not
// give false positives; every finding must show two real threads on one element).
extern "C" __global__ void saxpy_permuted(float a, const float *x, float *y, unsigned n) {
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        unsigned k = (i * 7u) % n;
        y[k] = a * x[k] + y[k];
    }
}
