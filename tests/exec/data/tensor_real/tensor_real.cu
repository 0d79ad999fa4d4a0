// Kernels for tests/exec/test_tensor_real.py: tensor-core instructions over the reals in volta check
// (volta/exec/handlers/tensor_real.py) against naive one-thread-per-element references.
// Regenerate: nvcc -ptx -lineinfo -std=c++17 -arch=sm_80 -o tensor_real.sm80.ptx tensor_real.cu
#include <cuda_fp16.h>
#include <mma.h>
using namespace nvcuda;

__device__ __forceinline__ unsigned smem_addr(const void* p)
{
    return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// ---- references: C[M][N] = A[M][K] * B[K][N] (row-major), one thread per element -------------------------

extern "C" __global__ void naive_f16(const __half* A, const __half* B, float* C, int M, int N, int K)
{
    int row = blockIdx.y * blockDim.y + threadIdx.y, col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= M || col >= N) return;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k)
        acc += __half2float(A[row * K + k]) * __half2float(B[k * N + col]);
    C[row * N + col] = acc;
}

// B stored transposed, [N][K]: C = A * B^T
extern "C" __global__ void naive_f16_nt(const __half* A, const __half* B, float* C, int M, int N, int K)
{
    int row = blockIdx.y * blockDim.y + threadIdx.y, col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= M || col >= N) return;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k)
        acc += __half2float(A[row * K + k]) * __half2float(B[col * K + k]);
    C[row * N + col] = acc;
}

extern "C" __global__ void naive_f32(const float* A, const float* B, float* C, int M, int N, int K)
{
    int row = blockIdx.y * blockDim.y + threadIdx.y, col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= M || col >= N) return;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k)
        acc += A[row * K + k] * B[k * N + col];
    C[row * N + col] = acc;
}

extern "C" __global__ void naive_f64(const double* A, const double* B, double* C, int M, int N, int K)
{
    int row = blockIdx.y * blockDim.y + threadIdx.y, col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= M || col >= N) return;
    double acc = 0.0;
    for (int k = 0; k < K; ++k)
        acc += A[row * K + k] * B[k * N + col];
    C[row * N + col] = acc;
}

// ---- mma.sync m16n8k16 f16 -> f32 with ldmatrix fragments: one warp per 16x8 tile of C -----------------
// grid (N/8, M/16), block 32; K a multiple of 16. B_TRANS false is the defect: the row-major B tile loaded
// without .trans gives the mma the transposed 8x8 blocks of B.

template <bool B_TRANS, bool B_MOVMATRIX = false>
__device__ void mma_ldmatrix_tile(const __half* A, const __half* B, float* C, int N, int K)
{
    __shared__ __align__(128) __half As[16][16];
    __shared__ __align__(128) __half Bs[16][8];
    int lane = threadIdx.x;
    int row0 = blockIdx.y * 16, col0 = blockIdx.x * 8;
    float d[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (int k0 = 0; k0 < K; k0 += 16) {
        for (int e = lane; e < 256; e += 32)
            As[e / 16][e % 16] = A[(row0 + e / 16) * K + k0 + e % 16];
        for (int e = lane; e < 128; e += 32)
            Bs[e / 8][e % 8] = B[(k0 + e / 8) * N + col0 + e % 8];
        __syncwarp();
        unsigned a[4], b[2];
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                     : "=r"(a[0]), "=r"(a[1]), "=r"(a[2]), "=r"(a[3])
                     : "r"(smem_addr(&As[lane & 15][(lane >> 4) * 8])));
        if (B_TRANS)
            asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];\n"
                         : "=r"(b[0]), "=r"(b[1]) : "r"(smem_addr(&Bs[lane & 15][0])));
        else
            asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];\n"
                         : "=r"(b[0]), "=r"(b[1]) : "r"(smem_addr(&Bs[lane & 15][0])));
        if (B_MOVMATRIX)   // the 8x8 blocks of B as ldmatrix without .trans holds them, transposed in registers
            for (int i = 0; i < 2; ++i)
                asm volatile("movmatrix.sync.aligned.m8n8.trans.b16 %0, %1;\n" : "=r"(b[i]) : "r"(b[i]));
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
                     "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
        __syncwarp();
    }
    int g = lane >> 2, t = lane & 3;
    C[(row0 + g) * N + col0 + 2 * t] = d[0];
    C[(row0 + g) * N + col0 + 2 * t + 1] = d[1];
    C[(row0 + g + 8) * N + col0 + 2 * t] = d[2];
    C[(row0 + g + 8) * N + col0 + 2 * t + 1] = d[3];
}

extern "C" __global__ void mma_ldmatrix(const __half* A, const __half* B, float* C, int M, int N, int K)
{
    mma_ldmatrix_tile<true>(A, B, C, N, K);
}

extern "C" __global__ void mma_ldmatrix_notrans(const __half* A, const __half* B, float* C, int M, int N, int K)
{
    mma_ldmatrix_tile<false>(A, B, C, N, K);
}

extern "C" __global__ void mma_movmatrix(const __half* A, const __half* B, float* C, int M, int N, int K)
{
    mma_ldmatrix_tile<false, true>(A, B, C, N, K);
}

// ---- mma.sync m16n8k8 tf32: fragments straight from global memory (PTX ISA 9.7.14.5.7) -------------------

__device__ __forceinline__ unsigned to_tf32(float x)
{
    unsigned r;
    asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(x));
    return r;
}

extern "C" __global__ void mma_tf32(const float* A, const float* B, float* C, int M, int N, int K)
{
    int lane = threadIdx.x, g = lane >> 2, t = lane & 3;
    int row0 = blockIdx.y * 16, col0 = blockIdx.x * 8;
    float d[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (int k0 = 0; k0 < K; k0 += 8) {
        unsigned a0 = to_tf32(A[(row0 + g) * K + k0 + t]);
        unsigned a1 = to_tf32(A[(row0 + g + 8) * K + k0 + t]);
        unsigned a2 = to_tf32(A[(row0 + g) * K + k0 + t + 4]);
        unsigned a3 = to_tf32(A[(row0 + g + 8) * K + k0 + t + 4]);
        unsigned b0 = to_tf32(B[(k0 + t) * N + col0 + g]);
        unsigned b1 = to_tf32(B[(k0 + t + 4) * N + col0 + g]);
        asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 "
                     "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                     : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
    }
    C[(row0 + g) * N + col0 + 2 * t] = d[0];
    C[(row0 + g) * N + col0 + 2 * t + 1] = d[1];
    C[(row0 + g + 8) * N + col0 + 2 * t] = d[2];
    C[(row0 + g + 8) * N + col0 + 2 * t + 1] = d[3];
}

// ---- mma.sync m8n8k4 f64 (PTX ISA 9.7.14.5.2): one warp per 8x8 tile ------------------------------------

extern "C" __global__ void mma_f64(const double* A, const double* B, double* C, int M, int N, int K)
{
    int lane = threadIdx.x, g = lane >> 2, t = lane & 3;
    int row0 = blockIdx.y * 8, col0 = blockIdx.x * 8;
    double d0 = 0.0, d1 = 0.0;
    for (int k0 = 0; k0 < K; k0 += 4) {
        double a = A[(row0 + g) * K + k0 + t];
        double b = B[(k0 + t) * N + col0 + g];
        asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};\n"
                     : "+d"(d0), "+d"(d1) : "d"(a), "d"(b));
    }
    C[(row0 + g) * N + col0 + 2 * t] = d0;
    C[(row0 + g) * N + col0 + 2 * t + 1] = d1;
}

// ---- wmma m16n16k16 on C = A * B^T with B stored [N][K]: a col_major B fragment reads it right ----------
// grid (N/16, M/16), block 32. B_COL false is the defect: the fragment declared row_major.

template <typename Layout>
__device__ void wmma_nt_tile(const __half* A, const __half* B, float* C, int N, int K)
{
    int row0 = blockIdx.y * 16, col0 = blockIdx.x * 16;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, Layout> b;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    for (int k0 = 0; k0 < K; k0 += 16) {
        wmma::load_matrix_sync(a, A + row0 * K + k0, K);
        wmma::load_matrix_sync(b, B + col0 * K + k0, K);
        wmma::mma_sync(acc, a, b, acc);
    }
    wmma::store_matrix_sync(C + row0 * N + col0, acc, N, wmma::mem_row_major);
}

extern "C" __global__ void wmma_nt_col(const __half* A, const __half* B, float* C, int M, int N, int K)
{
    wmma_nt_tile<wmma::col_major>(A, B, C, N, K);
}

extern "C" __global__ void wmma_nt_row(const __half* A, const __half* B, float* C, int M, int N, int K)
{
    wmma_nt_tile<wmma::row_major>(A, B, C, N, K);
}

// ---- shapes and types the real model refuses --------------------------------------------------------------

// integer mma: four s8 elements a register, wrapping s32 accumulators
extern "C" __global__ void mma_s8(const unsigned* A, const unsigned* B, int* C)
{
    int lane = threadIdx.x;
    unsigned a0 = A[4 * lane], a1 = A[4 * lane + 1], a2 = A[4 * lane + 2], a3 = A[4 * lane + 3];
    unsigned b0 = B[2 * lane], b1 = B[2 * lane + 1];
    int d[4] = {0, 0, 0, 0};
    asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                 : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
    for (int i = 0; i < 4; ++i)
        C[4 * lane + i] = d[i];
}

// the sm_70 quad-pair shape m8n8k4 with f16 inputs
extern "C" __global__ void mma_m8n8k4_f16(const unsigned* A, const unsigned* B, float* C)
{
    int lane = threadIdx.x;
    unsigned a0 = A[2 * lane], a1 = A[2 * lane + 1], b0 = B[2 * lane], b1 = B[2 * lane + 1];
    float d[8] = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32 "
                 "{%0, %1, %2, %3, %4, %5, %6, %7}, {%8, %9}, {%10, %11}, {%0, %1, %2, %3, %4, %5, %6, %7};\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7])
                 : "r"(a0), "r"(a1), "r"(b0), "r"(b1));
    for (int i = 0; i < 8; ++i)
        C[8 * lane + i] = d[i];
}

// integer wmma
extern "C" __global__ void wmma_s8(const signed char* A, const signed char* B, int* C)
{
    wmma::fragment<wmma::matrix_a, 16, 16, 16, signed char, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, signed char, wmma::col_major> b;
    wmma::fragment<wmma::accumulator, 16, 16, 16, int> acc;
    wmma::fill_fragment(acc, 0);
    wmma::load_matrix_sync(a, A, 16);
    wmma::load_matrix_sync(b, B, 16);
    wmma::mma_sync(acc, a, b, acc);
    wmma::store_matrix_sync(C, acc, 16, wmma::mem_row_major);
}
