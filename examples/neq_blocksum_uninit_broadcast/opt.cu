// DEFECT: writes 8 of 32 shared slots, then sums all 32: 24 never-written slots enter the sum.
// The sum is broadcast through a shared slot before it reaches global memory, which once hid the
// uninitialized read from `volta check` (the taint was dropped on the shared round trip).
extern "C" __global__ void blocksum32(const float *x, float *y) {
    __shared__ float s[32];
    __shared__ float total;
    int t = threadIdx.x;
    if (t < 8) s[t] = x[blockIdx.x * 8 + t];
    __syncthreads();
    if (t == 0) {
        float a = 0.0f;
        for (int i = 0; i < 32; i++) a += s[i];  // DEFECT: slots 8..31 were never written
        total = a;
    }
    __syncthreads();
    y[blockIdx.x * 32 + t] = total;
}
