// DEFECT (LLM-style): the B tile is loaded with ldmatrix .x2 without .trans, so the mma gets the transposed
// 8x8 blocks of B. Otherwise:
// Tensor-core HGEMM with inline PTX mma.sync.m16n8k16 and ldmatrix: C[M][N] (f32) = A[M][K] (f16, row-major) *
// B[K][N] (f16, row-major). A block of 2 warps computes a 16x16 tile of C, warp w the 16x8 columns 8w..8w+7.
// Per 16-deep k step the block copies the 16x16 A and B tiles to shared memory element by element; fragments
// come from ldmatrix (A: .x4, B: .x2.trans, which turns the row-major B tile into the .col operand).
// M, N multiples of 16, K a multiple of 16.
#include <cuda_fp16.h>
#define TM 16
#define TN 16
#define TK 16

__device__ __forceinline__ unsigned smem_addr(const void* p)
{
    return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

extern "C" __global__ void gemm_mma_ldmatrix(const __half* __restrict__ A, const __half* __restrict__ B,
                                             float* __restrict__ C, int M, int N, int K)
{
    __shared__ __align__(128) __half As[TM][TK];
    __shared__ __align__(128) __half Bs[TK][TN];
    int tid = threadIdx.x;
    int warp = tid >> 5, lane = tid & 31;
    int row0 = blockIdx.y * TM, col0 = blockIdx.x * TN;
    float d[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (int k0 = 0; k0 < K; k0 += TK) {
        for (int e = tid; e < TM * TK; e += blockDim.x) {
            As[e / TK][e % TK] = A[(row0 + e / TK) * K + k0 + e % TK];
            Bs[e / TN][e % TN] = B[(k0 + e / TN) * N + col0 + e % TN];
        }
        __syncthreads();
        unsigned a[4], b[2];
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                     : "=r"(a[0]), "=r"(a[1]), "=r"(a[2]), "=r"(a[3])
                     : "r"(smem_addr(&As[lane & 15][(lane >> 4) * 8])));
        asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];\n"   // DEFECT: .trans missing
                     : "=r"(b[0]), "=r"(b[1]) : "r"(smem_addr(&Bs[lane & 15][warp * 8])));
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
                     "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
        __syncthreads();
    }
    int g = lane >> 2, t = lane & 3;
    int col = col0 + warp * 8 + 2 * t;
    C[(row0 + g) * N + col] = d[0];
    C[(row0 + g) * N + col + 1] = d[1];
    C[(row0 + g + 8) * N + col] = d[2];
    C[(row0 + g + 8) * N + col + 1] = d[3];
}
