// TF32 tensor-core SGEMM with inline PTX mma.sync.m16n8k8.tf32: C[M][N] = A[M][K] * B[K][N], all f32 row-major.
// A block of 2 warps computes a 16x16 tile of C, warp w the 16x8 columns 8w..8w+7; fragments are read straight
// from global memory in the m16n8k8 .tf32 layout (PTX ISA 9.7.14.5.7) and rounded with cvt.rna.tf32.f32.
// M, N multiples of 16, K a multiple of 8.
__device__ __forceinline__ unsigned to_tf32(float x)
{
    unsigned r;
    asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(x));
    return r;
}

extern "C" __global__ void gemm_mma_tf32(const float* __restrict__ A, const float* __restrict__ B,
                                         float* __restrict__ C, int M, int N, int K)
{
    int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    int g = lane >> 2, t = lane & 3;
    int row0 = blockIdx.y * 16, col0 = blockIdx.x * 16 + warp * 8;
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
    int col = col0 + 2 * t;
    C[(row0 + g) * N + col] = d[0];
    C[(row0 + g) * N + col + 1] = d[1];
    C[(row0 + g + 8) * N + col] = d[2];
    C[(row0 + g + 8) * N + col + 1] = d[3];
}
