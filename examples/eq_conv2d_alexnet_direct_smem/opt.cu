// Tiled conv2d for the same layer: the CTA first stages the 3x39x71 input patch its 8x16 output tile reads into
// shared memory (zero past the image edge), then each thread computes 4 filters at a time from it (F / 2 a multiple of 4) (register
// blocking), with the kx loop unrolled.
extern "C" __global__ void conv2d_smem(const float* __restrict__ x, const float* __restrict__ w, float* __restrict__ y,
                                       int H, int W, int OH, int OW, int F)
{
    __shared__ float patch[3][39][72];
    int by = blockIdx.y * 8 * 4, bx = blockIdx.x * 16 * 4;
    for (int i = threadIdx.x; i < 3 * 39 * 71; i += blockDim.x) {
        int c = i / (39 * 71), r = (i / 71) % 39, q = i % 71;
        int gy = by + r, gx = bx + q;
        patch[c][r][q] = (gy < H && gx < W) ? x[(c * H + gy) * W + gx] : 0.0f;
    }
    __syncthreads();
    int p = threadIdx.x % 128, g = threadIdx.x / 128;
    int ly = p / 16, lx = p % 16;
    int oy = blockIdx.y * 8 + ly, ox = blockIdx.x * 16 + lx;
    if (oy >= OH || ox >= OW) return;
    for (int f0 = g * (F / 2); f0 < (g + 1) * (F / 2); f0 += 4) {
        float s0 = 0.0f, s1 = 0.0f, s2 = 0.0f, s3 = 0.0f;
        for (int c = 0; c < 3; ++c)
            for (int ky = 0; ky < 11; ++ky) {
#pragma unroll
                for (int kx = 0; kx < 11; ++kx) {
                    float v = patch[c][ly * 4 + ky][lx * 4 + kx];
                    int k = (c * 11 + ky) * 11 + kx;
                    s0 += v * w[(f0 + 0) * 363 + k];
                    s1 += v * w[(f0 + 1) * 363 + k];
                    s2 += v * w[(f0 + 2) * 363 + k];
                    s3 += v * w[(f0 + 3) * 363 + k];
                }
            }
        y[((f0 + 0) * OH + oy) * OW + ox] = s0;
        y[((f0 + 1) * OH + oy) * OW + ox] = s1;
        y[((f0 + 2) * OH + oy) * OW + ox] = s2;
        y[((f0 + 3) * OH + oy) * OW + ox] = s3;
    }
}
