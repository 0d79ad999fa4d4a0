// 2x2 max-pool with a 2-D launch (x: output column, y: output row, z: channel), max as selects in a tree.
extern "C" __global__ void maxpool2x2_tree(const float* __restrict__ x, float* __restrict__ y, int C, int H, int W)
{
    int OH = H / 2, OW = W / 2, ox = blockIdx.x * blockDim.x + threadIdx.x, oy = blockIdx.y, c = blockIdx.z;
    if (ox >= OW) return;
    const float* p = x + (c * H + 2 * oy) * W + 2 * ox;
    float a = p[0], b = p[1], d = p[W], e = p[W + 1];
    float m0 = a > b ? a : b, m1 = d > e ? d : e;
    y[(c * OH + oy) * OW + ox] = m0 > m1 ? m0 : m1;
}
