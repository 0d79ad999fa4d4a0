// Defect an LLM makes: a block-per-row mean that divides by the block size instead of the row length.
extern "C" __global__ void rowmean_block(const float* __restrict__ x, float* __restrict__ out, int rows, int cols)
{
    __shared__ float part[64];
    int r = blockIdx.x, t = threadIdx.x;
    float s = 0.0f;
    for (int c = t; c < cols; c += 64) s += x[r * cols + c];
    part[t] = s;
    __syncthreads();
    for (int h = 32; h > 0; h >>= 1) {
        if (t < h) part[t] += part[t + h];
        __syncthreads();
    }
    if (t == 0) out[r] = part[0] / blockDim.x;  // DEFECT: divides by 64 threads, not by cols
}
