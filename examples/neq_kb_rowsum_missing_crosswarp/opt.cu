// Defect an LLM makes: the warp-shuffle reduction is right, but the warps' sums are never combined.
extern "C" __global__ void rowsum_warp_only(const float* __restrict__ x, float* __restrict__ out, int rows, int cols)
{
    int r = blockIdx.x;
    float s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) s += x[r * cols + c];
    for (int off = 16; off > 0; off >>= 1) s += __shfl_down_sync(0xffffffffu, s, off);
    if (threadIdx.x == 0) out[r] = s;  // DEFECT: only warp 0's partial sum reaches the output
}
