// Defect an LLM makes: the shared tile's halo is loaded for 3 of the 4 extra elements, so the last tap of the
// block's last output reads a shared slot nobody wrote.
#define B 64
extern "C" __global__ void conv1d_tiled_short_halo(const float* __restrict__ x, const float* __restrict__ w,
                                                   float* __restrict__ y, int n)
{
    __shared__ float tile[B + 4];
    int t = threadIdx.x, i = blockIdx.x * B + t;
    if (i < n) tile[t] = x[i];
    if (t < 3 && i + B < n) tile[B + t] = x[i + B];  // DEFECT: the halo needs 4 elements (t < 4)
    __syncthreads();
    if (i >= n - 4) return;
    float acc = 0.0f;
    for (int k = 0; k < 5; ++k) acc += tile[t + k] * w[k];
    y[i] = acc;
}
