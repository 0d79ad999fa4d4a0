// Direct 2D convolution, NCHW with 2 input and 4 output channels, 3x3 filter, stride 1, zero padding 1,
// plus bias and ReLU. One thread per output pixel; blockIdx.z selects the output channel.
#define CIN 2
#define KS 3
extern "C" __global__ void conv2d_direct(const float* __restrict__ in, const float* __restrict__ w,
                                         const float* __restrict__ bias, float* __restrict__ out, int H, int W)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int co = blockIdx.z;
    if (x >= W || y >= H) return;
    float acc = bias[co];
    for (int ci = 0; ci < CIN; ++ci) {
        for (int ky = 0; ky < KS; ++ky) {
            for (int kx = 0; kx < KS; ++kx) {
                int iy = y + ky - 1, ix = x + kx - 1;
                if (iy >= 0 && iy < H && ix >= 0 && ix < W) {
                    acc += w[((co * CIN + ci) * KS + ky) * KS + kx] * in[(ci * H + iy) * W + ix];
                }
            }
        }
    }
    out[(co * H + y) * W + x] = fmaxf(acc, 0.0f);
}
