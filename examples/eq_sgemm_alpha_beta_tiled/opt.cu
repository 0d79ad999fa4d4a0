// SGEMM C = alpha*A*B + beta*C, 16x16 shared-memory tiles, each thread two rows (8 apart) of one column;
// the epilogue reads C first and writes beta*C + alpha*acc. M, N, K multiples of 16.
#define TILE 16
extern "C" __global__ void sgemm_tiled2(const float* __restrict__ A, const float* __restrict__ B, float* C,
                                        float alpha, float beta, int M, int N, int K)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;   // block 16 x 8
    int row = blockIdx.y * TILE + ty;
    int col = blockIdx.x * TILE + tx;
    float acc0 = 0.0f, acc1 = 0.0f;
    for (int t = 0; t < K; t += TILE) {
        As[ty][tx] = A[row * K + t + tx];
        As[ty + 8][tx] = A[(row + 8) * K + t + tx];
        Bs[ty][tx] = B[(t + ty) * N + col];
        Bs[ty + 8][tx] = B[(t + ty + 8) * N + col];
        __syncthreads();
        for (int k = 0; k < TILE; ++k) {
            float b = Bs[k][tx];
            acc0 += As[ty][k] * b;
            acc1 += As[ty + 8][k] * b;
        }
        __syncthreads();
    }
    float c0 = C[row * N + col], c1 = C[(row + 8) * N + col];
    C[row * N + col] = beta * c0 + alpha * acc0;
    C[(row + 8) * N + col] = beta * c1 + alpha * acc1;
}
