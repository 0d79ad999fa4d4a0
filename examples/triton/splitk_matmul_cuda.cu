// The split-K matmul space of splitk_matmul_configs.toml written in CUDA (issue 12): C (32x32) = A (32x32) ·
// B (32x32), fp32 row-major, one warp per 16x16 output tile (grid 2x2), TF32 mma.sync m16n8k8 (PTX ISA
// §9.7.14.5.7 fragments). Like the Triton kernel, each of SPLIT_K parts is its own chain of MMAs from zero
// over a contiguous K range, and acc += part in order (acc starts at +0.0). Regenerate: python configs.py
#define K 32
#define N 32

__device__ __forceinline__ void mma_k8(float d[4], const float *A, const float *B, int row0, int col0, int k) {
    int g = threadIdx.x >> 2, t = threadIdx.x & 3;
    unsigned a0 = __float_as_uint(A[(row0 + g) * K + k + t]), a1 = __float_as_uint(A[(row0 + g + 8) * K + k + t]);
    unsigned a2 = __float_as_uint(A[(row0 + g) * K + k + t + 4]);
    unsigned a3 = __float_as_uint(A[(row0 + g + 8) * K + k + t + 4]);
    unsigned b0 = __float_as_uint(B[(k + t) * N + col0 + g]), b1 = __float_as_uint(B[(k + t + 4) * N + col0 + g]);
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                 "{%0,%1,%2,%3};"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
}

// REVERSED: the k8 steps of each part in decreasing k; HALVES_SWAPPED: the right n8 half first
template <int SPLIT_K, bool REVERSED, bool HALVES_SWAPPED>
__device__ void splitk(const float *A, const float *B, float *C) {
    int row0 = blockIdx.x * 16, g = threadIdx.x >> 2, t = threadIdx.x & 3;
    for (int hh = 0; hh < 2; hh++) {
        int h = HALVES_SWAPPED ? 1 - hh : hh, col0 = blockIdx.y * 16 + 8 * h;
        float acc[4] = {0.f, 0.f, 0.f, 0.f};
        for (int s = 0; s < SPLIT_K; s++) {
            float part[4] = {0.f, 0.f, 0.f, 0.f};
            for (int j = 0; j < K / SPLIT_K / 8; j++) {
                int step = REVERSED ? K / SPLIT_K / 8 - 1 - j : j;
                mma_k8(part, A, B, row0, col0, s * (K / SPLIT_K) + 8 * step);
            }
            for (int i = 0; i < 4; i++) acc[i] += part[i];
        }
        C[(row0 + g) * N + col0 + 2 * t] = acc[0];
        C[(row0 + g) * N + col0 + 2 * t + 1] = acc[1];
        C[(row0 + g + 8) * N + col0 + 2 * t] = acc[2];
        C[(row0 + g + 8) * N + col0 + 2 * t + 1] = acc[3];
    }
}

extern "C" __global__ void splitk1(const float *A, const float *B, float *C) { splitk<1, false, false>(A, B, C); }
extern "C" __global__ void splitk1_halves_swapped(const float *A, const float *B, float *C) {
    splitk<1, false, true>(A, B, C);
}
extern "C" __global__ void splitk1_reversed(const float *A, const float *B, float *C) { splitk<1, true, false>(A, B, C); }
extern "C" __global__ void splitk2(const float *A, const float *B, float *C) { splitk<2, false, false>(A, B, C); }
extern "C" __global__ void splitk4(const float *A, const float *B, float *C) { splitk<4, false, false>(A, B, C); }
