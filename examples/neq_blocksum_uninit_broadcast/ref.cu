// Block sum of 8 values per block, the correct way: only the 8 written shared slots are summed.
// Reference for the uninitialized-broadcast regression (issue 8): both kernels end with the same
// expression over the reals, so only the uninitialized-read finding tells them apart.
extern "C" __global__ void blocksum8(const float *x, float *y) {
    __shared__ float s[32];
    __shared__ float total;
    int t = threadIdx.x;
    if (t < 8) s[t] = x[blockIdx.x * 8 + t];
    __syncthreads();
    if (t == 0) {
        float a = 0.0f;
        for (int i = 0; i < 8; i++) a += s[i];
        total = a;                      // broadcast the block sum through shared memory
    }
    __syncthreads();
    y[blockIdx.x * 32 + t] = total;     // every thread stores the broadcast sum
}
