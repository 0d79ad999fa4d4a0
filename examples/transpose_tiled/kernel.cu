// Shared-memory tiled transpose with a padded tile (33 columns, no bank conflicts).
// Block 32x8: each thread moves 4 elements. M, N multiples of 32.
#define TILE 32
#define ROWS 8
extern "C" __global__ void transpose_tiled(const float* __restrict__ in, float* __restrict__ out, int M, int N)
{
    __shared__ float tile[TILE][TILE + 1];
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS) {
        tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * N + x];
    }
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS) {
        out[(y + j) * M + x] = tile[threadIdx.x][threadIdx.y + j];
    }
}
