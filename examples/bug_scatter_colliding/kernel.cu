// DEFECTIVE: nothing keeps idx[] a permutation; two threads with equal indices write the same element.
extern "C" __global__ void scatter_colliding(const int* idx, const float* x, float* out, int n, int m)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int j = min(max(idx[i], 0), m - 1);
        out[j] = x[i];   // DEFECT: colliding indices race
    }
}
