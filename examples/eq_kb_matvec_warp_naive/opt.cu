// Matrix-vector product, one warp per row: lane-strided partial sums, then an xor-butterfly of shuffles.
extern "C" __global__ void matvec_warp(const float* __restrict__ A, const float* __restrict__ x,
                                       float* __restrict__ y, int M, int K)
{
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x & 31;
    if (warp >= M) return;
    float acc = 0.0f;
    for (int k = lane; k < K; k += 32) acc += A[warp * K + k] * x[k];
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, off);
    if (lane == 0) y[warp] = acc;
}
