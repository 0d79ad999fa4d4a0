// DEFECTIVE: 3-tap stencil whose shared tile is one element too small for the right halo.
#define BLOCK 128
extern "C" __global__ void stencil_shared_oob(const float* __restrict__ in, float* __restrict__ out, int n)
{
    __shared__ float tile[BLOCK + 1];   // needs BLOCK + 2 (left and right halo)
    int tid = threadIdx.x;
    int i = blockIdx.x * BLOCK + tid;
    tile[tid + 1] = (i < n) ? in[i] : 0.0f;
    if (tid == 0) {
        tile[0] = (i > 0) ? in[i - 1] : 0.0f;
    }
    if (tid == BLOCK - 1) {
        tile[BLOCK + 1] = (i + 1 < n) ? in[i + 1] : 0.0f;   // DEFECT: index BLOCK + 1 is past the end of tile
    }
    __syncthreads();
    if (i < n) {
        out[i] = 0.25f * tile[tid] + 0.5f * tile[tid + 1] + 0.25f * tile[tid + 2];
    }
}
