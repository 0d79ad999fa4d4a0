// Sum over dim=0 with a 32x8 block: 8 row-strided partial sums per column, combined through shared memory by a
// tree over threadIdx.y.
extern "C" __global__ void colsum_block(const float* __restrict__ x, float* __restrict__ out, int rows, int cols)
{
    __shared__ float part[8][32];
    int tx = threadIdx.x, ty = threadIdx.y, c = blockIdx.x * 32 + tx;
    float s = 0.0f;
    for (int r = ty; r < rows; r += 8) s += x[r * cols + c];
    part[ty][tx] = s;
    __syncthreads();
    for (int h = 4; h > 0; h >>= 1) {
        if (ty < h) part[ty][tx] += part[ty + h][tx];
        __syncthreads();
    }
    if (ty == 0) out[c] = part[0][tx];
}
