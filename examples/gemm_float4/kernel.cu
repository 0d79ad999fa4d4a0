// Tiled SGEMM with float4-vectorized global loads (ld.global.v4.f32) into 16x16 shared tiles.
// Threads 0..63 load the A tile, 64..127 the B tile, each one float4. M, N, K multiples of 16.
#define TILE 16
extern "C" __global__ void gemm_float4(const float* __restrict__ A, const float* __restrict__ B,
                                       float* __restrict__ C, int M, int N, int K)
{
    __shared__ __align__(16) float As[TILE][TILE];
    __shared__ __align__(16) float Bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int tid = ty * TILE + tx;
    int row = blockIdx.y * TILE + ty;
    int col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (int t = 0; t < K; t += TILE) {
        if (tid < 64) {
            int r = tid / 4, c4 = (tid % 4) * 4;
            float4 v = *reinterpret_cast<const float4*>(&A[(blockIdx.y * TILE + r) * K + t + c4]);
            *reinterpret_cast<float4*>(&As[r][c4]) = v;
        } else if (tid < 128) {
            int e = tid - 64;
            int r = e / 4, c4 = (e % 4) * 4;
            float4 v = *reinterpret_cast<const float4*>(&B[(t + r) * N + blockIdx.x * TILE + c4]);
            *reinterpret_cast<float4*>(&Bs[r][c4]) = v;
        }
        __syncthreads();
        for (int k = 0; k < TILE; ++k) {
            acc += As[ty][k] * Bs[k][tx];
        }
        __syncthreads();
    }
    C[row * N + col] = acc;
}
