// Shared-memory tiled 1D convolution (5 taps, zero padding): each block stages its input tile plus a
// 2-element halo on each side, then every thread convolves from shared memory. Same summation order
// as conv1d_direct.
#define R 2
#define BLOCK 128
extern "C" __global__ void conv1d_tiled(const float* __restrict__ in, const float* __restrict__ w,
                                        float* __restrict__ out, int n)
{
    __shared__ float tile[BLOCK + 2 * R];
    __shared__ float ws[2 * R + 1];
    int tid = threadIdx.x;
    int base = blockIdx.x * BLOCK;
    for (int e = tid; e < BLOCK + 2 * R; e += BLOCK) {
        int j = base + e - R;
        tile[e] = (j >= 0 && j < n) ? in[j] : 0.0f;
    }
    if (tid < 2 * R + 1) ws[tid] = w[tid];
    __syncthreads();
    int i = base + tid;
    if (i < n) {
        float acc = 0.0f;
        for (int k = 0; k < 2 * R + 1; ++k) {
            acc += ws[k] * tile[tid + k];
        }
        out[i] = acc;
    }
}
