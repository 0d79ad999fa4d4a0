// Fused gemm + scale + residual: 16x16 shared tiles, 2 outputs per thread along rows, epilogue fma(acc, alpha, R).
#define T 16
extern "C" __global__ void gemm_scale_residual_tiled(const float* __restrict__ A, const float* __restrict__ B,
                                                     const float* __restrict__ R, float* __restrict__ out,
                                                     int M, int N, int K, float alpha)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    int tx = threadIdx.x, ty = threadIdx.y;          // block 16x8: each thread owns rows ty and ty + 8
    int row0 = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float acc0 = 0.0f, acc1 = 0.0f;
    for (int t = 0; t < K; t += T) {
        for (int r = ty; r < T; r += 8) {
            As[r][tx] = A[(blockIdx.y * T + r) * K + t + tx];
            Bs[r][tx] = B[(t + r) * N + col];
        }
        __syncthreads();
        for (int k = 0; k < T; ++k) {
            float b = Bs[k][tx];
            acc0 += As[ty][k] * b;
            acc1 += As[ty + 8][k] * b;
        }
        __syncthreads();
    }
    out[row0 * N + col] = fmaf(acc0, alpha, R[row0 * N + col]);
    out[(row0 + 8) * N + col] = fmaf(acc1, alpha, R[(row0 + 8) * N + col]);
}
