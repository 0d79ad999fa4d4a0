// cp.async double-buffered SGEMM: C[M][N] = A[M][K] * B[K][N], row-major; 16x16 tiles, one thread per
// output. Each thread copies one float of the next A tile and one of the next B tile with
// __pipeline_memcpy_async (cp.async.ca.shared.global, 4 bytes) while the current stage is multiplied.
// M, N multiples of 16, K a multiple of 16.
#include <cuda_pipeline.h>
#define TILE 16

extern "C" __global__ void gemm_cpasync_dbuf(const float* __restrict__ A, const float* __restrict__ B,
                                             float* __restrict__ C, int M, int N, int K)
{
    __shared__ float As[2][TILE][TILE];
    __shared__ float Bs[2][TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;
    int col = blockIdx.x * TILE + tx;
    int ktiles = K / TILE;
    float acc = 0.0f;

    __pipeline_memcpy_async(&As[0][ty][tx], &A[row * K + tx], sizeof(float));
    __pipeline_memcpy_async(&Bs[0][ty][tx], &B[ty * N + col], sizeof(float));
    __pipeline_commit();
    for (int kt = 0; kt < ktiles; ++kt) {
        int cur = kt & 1;
        if (kt + 1 < ktiles) {   // prefetch the next stage
            int k0 = (kt + 1) * TILE;
            __pipeline_memcpy_async(&As[cur ^ 1][ty][tx], &A[row * K + k0 + tx], sizeof(float));
            __pipeline_memcpy_async(&Bs[cur ^ 1][ty][tx], &B[(k0 + ty) * N + col], sizeof(float));
        }
        __pipeline_commit();
        __pipeline_wait_prior(1);   // stage `cur` has landed (for this thread)
        __syncthreads();            // ... and for every thread
        for (int k = 0; k < TILE; ++k) {
            acc += As[cur][ty][k] * Bs[cur][k][tx];
        }
        __syncthreads();            // every thread is done with `cur` before it is refilled
    }
    C[row * N + col] = acc;
}
