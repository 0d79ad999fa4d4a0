// In-place ReLU that stores only the negative elements (a store under a data condition). N=512, 4 blocks of 128.
extern "C" __global__ void relu_branch(float* __restrict__ y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    if (y[i] < 0.0f) y[i] = 0.0f;
}
