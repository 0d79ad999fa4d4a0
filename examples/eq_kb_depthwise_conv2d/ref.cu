// KernelBench-style depthwise 3x3 convolution (no padding, stride 1), reference: one thread per output.
extern "C" __global__ void dwconv_naive(const float* x, const float* w, float* y, int C, int H, int W)
{
    int OH = H - 2, OW = W - 2;
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= C * OH * OW) return;
    int c = idx / (OH * OW), oy = (idx / OW) % OH, ox = idx % OW;
    float acc = 0.0f;
    for (int ky = 0; ky < 3; ++ky)
        for (int kx = 0; kx < 3; ++kx)
            acc += x[(c * H + oy + ky) * W + ox + kx] * w[c * 9 + ky * 3 + kx];
    y[idx] = acc;
}
