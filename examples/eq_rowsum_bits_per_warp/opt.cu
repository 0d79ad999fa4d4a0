// One block of two warps per row: each warp reduces the whole row itself, warp 1 in reverse order, and lane
// 0 of each warp stores the sum. Both warps store the row sum to out[row] unordered: equal over the reals,
// but rounded in two orders, so the word that remains depends on which warp's write lands.
extern "C" __global__ void rowsum_two_orders(const float* x, float* out, int cols)
{
    int row = blockIdx.x, lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    float s = 0.0f;
    for (int j = lane; j < cols; j += 32) {
        int k = warp == 0 ? j : cols - 1 - j;
        s += x[row * cols + k];
    }
    for (int d = 16; d > 0; d /= 2) s += __shfl_xor_sync(0xffffffffu, s, d);
    if (lane == 0) out[row] = s;   // DEFECT: both warps store, and their bits can differ
}
