// DEFECTIVE: a scatter through an index array, with a debugging printf. The destination depends on the data,
// so `volta races` runs it on concrete inputs, where printf is a no-op (`--show-printf` shows its text);
// colliding indices make two threads write one element.
#include <cstdio>

extern "C" __global__ void printf_scatter(const int* idx, const float* x, float* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int j = idx[i] % n;
        if (j < 0) j += n;
        if (i == 0) printf("block %d: first index %d of %d\n", blockIdx.x, j, n);
        out[j] = x[i];   // DEFECT: two threads with equal indices write the same element
    }
}
