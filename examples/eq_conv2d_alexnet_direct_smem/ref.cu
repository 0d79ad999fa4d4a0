// Direct conv2d, AlexNet's first layer: F filters (96 in AlexNet) 11x11x3, stride 4, no padding, 227x227 input, 55x55 output.
// A CTA of 256 threads computes an 8x16 tile of output pixels for all F filters (12,288 outputs at F = 96): thread
// t takes pixel t % 128 and half of the filters, (F / 2) * (t / 128) onwards, each a 363-term sum read straight from global memory.
extern "C" __global__ void conv2d_direct(const float* __restrict__ x, const float* __restrict__ w, float* __restrict__ y,
                                         int H, int W, int OH, int OW, int F)
{
    int p = threadIdx.x % 128, g = threadIdx.x / 128;
    int oy = blockIdx.y * 8 + p / 16, ox = blockIdx.x * 16 + p % 16;
    if (oy >= OH || ox >= OW) return;
    for (int f = g * (F / 2); f < (g + 1) * (F / 2); ++f) {
        float s = 0.0f;
        for (int c = 0; c < 3; ++c)
            for (int ky = 0; ky < 11; ++ky)
                for (int kx = 0; kx < 11; ++kx)
                    s += x[(c * H + oy * 4 + ky) * W + ox * 4 + kx] * w[((f * 3 + c) * 11 + ky) * 11 + kx];
        y[(f * OH + oy) * OW + ox] = s;
    }
}
