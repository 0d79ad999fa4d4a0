// out = X^T + Y with a padded 16x17 shared tile so the transposed read is coalesced and bank-conflict free.
#define T 16
extern "C" __global__ void transpose_add_tiled(const float* __restrict__ X, const float* __restrict__ Y,
                                               float* __restrict__ out, int n)
{
    __shared__ float tile[T][T + 1];
    int bx = blockIdx.x * T, by = blockIdx.y * T, tx = threadIdx.x, ty = threadIdx.y;
    if (by + tx < n && bx + ty < n) tile[ty][tx] = X[(bx + ty) * n + by + tx];
    __syncthreads();
    int i = by + ty, j = bx + tx;
    if (i < n && j < n) out[i * n + j] = Y[i * n + j] + tile[tx][ty];
}
