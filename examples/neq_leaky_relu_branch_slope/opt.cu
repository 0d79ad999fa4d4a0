// Leaky ReLU with a branch and a store on each side, negative slope mistyped. N=512, 4 blocks of 128.
extern "C" __global__ void leaky_branch(const float* __restrict__ x, float* __restrict__ y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    if (v > 0.0f) {
        y[i] = v;
    } else {
        y[i] = 0.1f * v;  // DEFECT: slope 0.1 instead of 0.01
    }
}
