// Depthwise 3x3 convolution with an 8x8 output tile per block: the 10x10 input patch (with halo) and the
// channel's 9 weights staged in shared memory, grid (tilesX, tilesY, C).
#define TO 8
#define TI (TO + 2)
extern "C" __global__ void dwconv_tiled(const float* __restrict__ x, const float* __restrict__ w,
                                        float* __restrict__ y, int C, int H, int W)
{
    __shared__ float patch[TI][TI];
    __shared__ float wk[9];
    int OH = H - 2, OW = W - 2, c = blockIdx.z;
    int ox0 = blockIdx.x * TO, oy0 = blockIdx.y * TO;
    int t = threadIdx.y * TO + threadIdx.x;
    for (int i = t; i < TI * TI; i += TO * TO) {
        int py = i / TI, px = i % TI, iy = oy0 + py, ix = ox0 + px;
        patch[py][px] = (iy < H && ix < W) ? x[(c * H + iy) * W + ix] : 0.0f;
    }
    if (t < 9) wk[t] = w[c * 9 + t];
    __syncthreads();
    int oy = oy0 + threadIdx.y, ox = ox0 + threadIdx.x;
    if (oy < OH && ox < OW) {
        float acc = 0.0f;
#pragma unroll
        for (int ky = 0; ky < 3; ++ky)
#pragma unroll
            for (int kx = 0; kx < 3; ++kx) acc += patch[threadIdx.y + ky][threadIdx.x + kx] * wk[ky * 3 + kx];
        y[(c * OH + oy) * OW + ox] = acc;
    }
}
