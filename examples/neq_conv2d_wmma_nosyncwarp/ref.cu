// Direct 2-D convolution, NCHW, one thread per output element: out = bias + sum over (ci, kh, kw) of
// w * x, with both factors rounded to half first (the tensor-core kernel multiplies half operands) and taps
// outside the image skipped. 2 images of 3x12x12, 20 filters of 3x5x5, stride 2, padding 2: 6x6 outputs.
#include <cuda_fp16.h>
#define NB 2
#define CI 3
#define H 12
#define W 12
#define CO 20
#define KH 5
#define KW 5
#define STRIDE 2
#define PAD 2
#define HO ((H + 2 * PAD - KH) / STRIDE + 1)
#define WO ((W + 2 * PAD - KW) / STRIDE + 1)

extern "C" __global__ void conv2d_direct(const float* __restrict__ x, const float* __restrict__ w,
                                         const float* __restrict__ bias, float* __restrict__ out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= NB * CO * HO * WO) return;
    int ox = i % WO, oy = (i / WO) % HO, co = (i / (WO * HO)) % CO, n = i / (WO * HO * CO);
    float acc = 0.0f;
    for (int ci = 0; ci < CI; ++ci)
        for (int kh = 0; kh < KH; ++kh)
            for (int kw = 0; kw < KW; ++kw) {
                int iy = oy * STRIDE - PAD + kh, ix = ox * STRIDE - PAD + kw;
                if (iy < 0 || iy >= H || ix < 0 || ix >= W) continue;
                float a = __half2float(__float2half(w[((co * CI + ci) * KH + kh) * KW + kw]));
                float b = __half2float(__float2half(x[((n * CI + ci) * H + iy) * W + ix]));
                acc = fmaf(a, b, acc);
            }
    out[i] = acc + bias[co];
}
