// In-place "ReLU" that negates the negative elements instead of zeroing them. N=512, 4 blocks of 128.
extern "C" __global__ void relu_branch(float* __restrict__ y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    if (y[i] < 0.0f) y[i] = -y[i];  // DEFECT: |y| instead of max(y, 0)
}
