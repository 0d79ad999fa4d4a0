// Tensor-core HGEMM with inline PTX: C[M][N] (f32) = A[M][K] (f16, row-major) * B[K][N] (f16, row-major).
// One block (2 warps) computes a 16x16 tile of C; warp w computes columns 8w..8w+7 with
// mma.sync.m16n8k16. Tiles of A and B (16x16 f16 each) are staged in shared memory with cp.async,
// double-buffered over K; fragments are loaded with ldmatrix (A: x4, B: x2.trans).
// M, N multiples of 16, K a multiple of 16.
#include <cuda_fp16.h>
#define TM 16
#define TN 16
#define TK 16

__device__ __forceinline__ unsigned smem_addr(const void* p)
{
    return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void cp_async16(void* smem, const void* gmem)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" :: "r"(smem_addr(smem)), "l"(gmem));
}

__device__ __forceinline__ void load_stage(__half (*As)[TK], __half (*Bs)[TN], const __half* A, const __half* B,
                                           int row0, int col0, int k0, int K, int N, int tid)
{
    // 64 threads, 16-byte chunks: threads 0..31 copy the A tile, 32..63 the B tile.
    int c = tid & 31;
    int r = c >> 1, h = (c & 1) * 8;
    if (tid < 32) {
        cp_async16(&As[r][h], A + (row0 + r) * K + k0 + h);
    } else {
        cp_async16(&Bs[r][h], B + (k0 + r) * N + col0 + h);
    }
}

extern "C" __global__ void gemm_mma_sync(const __half* __restrict__ A, const __half* __restrict__ B,
                                         float* __restrict__ C, int M, int N, int K)
{
    __shared__ __align__(128) __half As[2][TM][TK];
    __shared__ __align__(128) __half Bs[2][TK][TN];
    int tid = threadIdx.x;
    int warp = tid >> 5, lane = tid & 31;
    int row0 = blockIdx.y * TM;
    int col0 = blockIdx.x * TN;
    float d[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    int ktiles = K / TK;

    load_stage(As[0], Bs[0], A, B, row0, col0, 0, K, N, tid);
    asm volatile("cp.async.commit_group;\n" ::);
    for (int kt = 0; kt < ktiles; ++kt) {
        int cur = kt & 1;
        if (kt + 1 < ktiles) {
            load_stage(As[cur ^ 1], Bs[cur ^ 1], A, B, row0, col0, (kt + 1) * TK, K, N, tid);
        }
        asm volatile("cp.async.commit_group;\n" ::);
        asm volatile("cp.async.wait_group 1;\n" ::);   // stage `cur` has landed (for this thread)
        __syncthreads();                                 // ... and for every thread

        unsigned a[4], b[2];
        const __half* pa = &As[cur][lane & 15][(lane >> 4) * 8];
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                     : "=r"(a[0]), "=r"(a[1]), "=r"(a[2]), "=r"(a[3]) : "r"(smem_addr(pa)));
        const __half* pb = &Bs[cur][lane & 15][warp * 8];
        asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];\n"
                     : "=r"(b[0]), "=r"(b[1]) : "r"(smem_addr(pb)));
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
                     "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
        __syncthreads();   // everyone is done reading stage `cur` before it is refilled
    }
    asm volatile("cp.async.wait_group 0;\n" ::);

    int g = lane >> 2, t = lane & 3;
    int col = col0 + warp * 8 + 2 * t;
    C[(row0 + g) * N + col] = d[0];
    C[(row0 + g) * N + col + 1] = d[1];
    C[(row0 + g + 8) * N + col] = d[2];
    C[(row0 + g + 8) * N + col + 1] = d[3];
}
