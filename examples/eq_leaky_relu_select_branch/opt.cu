// Leaky ReLU written with a branch and a store on each side (nvcc keeps the branch). N=512, 4 blocks of 128.
extern "C" __global__ void leaky_branch(const float* __restrict__ x, float* __restrict__ y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    if (v > 0.0f) {
        y[i] = v;
    } else {
        y[i] = 0.01f * v;
    }
}
