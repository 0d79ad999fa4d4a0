// DEFECTIVE (math): SAXPY that computes alpha * x - y for the last element only.
extern "C" __global__ void saxpy_neg_last(float alpha, const float* __restrict__ x, const float* __restrict__ y,
                                          float* __restrict__ out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        if (i == n - 1) {
            out[i] = alpha * x[i] - y[i];   // DEFECT: sign flip on the last element, should be + y[i]
        } else {
            out[i] = alpha * x[i] + y[i];
        }
    }
}
