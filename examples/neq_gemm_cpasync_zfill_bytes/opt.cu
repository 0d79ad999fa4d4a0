// DEFECTIVE: three-stage cp.async SGEMM whose A copies pass a float count as src-size (bytes).
// Three-stage cp.async SGEMM (CUTLASS-style multistage): C[M][N] = A[M][K] * B[K][N], row-major.
// One block of 16x16 threads computes a 16x16 tile of C; K advances in steps of 8. Tiles are copied in
// 16-byte chunks with inline `cp.async.cg.shared.global` (threads 0..31: the 16x8 A tile, 32..63: the
// 8x16 B tile), two stages in flight while the third is multiplied. A ragged K is zero-filled by the copy
// itself: the src-size operand says how many of the chunk's 16 bytes exist (the rest land as zeros).
// M, N multiples of 16, K a multiple of 4.
#define TM 16
#define TN 16
#define TK 8
#define STAGES 3

__device__ __forceinline__ void cp_async16(void* smem, const void* gmem, int src_bytes)
{
    unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" :: "r"(s), "l"(gmem), "r"(src_bytes));
}

__device__ __forceinline__ void load_stage(float (*As)[TK], float (*Bs)[TN], const float* A, const float* B,
                                           int row0, int col0, int k0, int K, int N, int tid)
{
    if (tid < 32) {            // A tile: 16 rows of 8 floats, two chunks per row
        int r = tid >> 1, c = (tid & 1) * 4;
        int k = k0 + c;
        int valid = k < K ? min(4, K - k) : 0;        // floats of this chunk inside the row
        cp_async16(&As[r][c], A + (row0 + r) * K + (valid ? k : 0), valid);   // DEFECT: src-size is in bytes, not floats (only the first float lands, the rest zero-filled)
    } else if (tid < 64) {     // B tile: 8 rows of 16 floats, four chunks per row
        int t = tid - 32, r = t >> 2, c = (t & 3) * 4;
        int k = k0 + r;
        cp_async16(&Bs[r][c], B + (k < K ? k : 0) * N + col0 + c, k < K ? 16 : 0);
    }
}

extern "C" __global__ void gemm_cpasync_3stage(const float* __restrict__ A, const float* __restrict__ B,
                                               float* __restrict__ C, int M, int N, int K)
{
    __shared__ __align__(16) float As[STAGES][TM][TK];
    __shared__ __align__(16) float Bs[STAGES][TK][TN];
    int tx = threadIdx.x, ty = threadIdx.y, tid = ty * TN + tx;
    int row0 = blockIdx.y * TM, col0 = blockIdx.x * TN;
    int ktiles = (K + TK - 1) / TK;
    float acc = 0.0f;

    for (int s = 0; s < STAGES - 1; ++s) {   // prologue: the first two stages in flight
        if (s < ktiles) {
            load_stage(As[s], Bs[s], A, B, row0, col0, s * TK, K, N, tid);
        }
        asm volatile("cp.async.commit_group;\n" ::);
    }
    for (int kt = 0; kt < ktiles; ++kt) {
        asm volatile("cp.async.wait_group %0;\n" :: "n"(STAGES - 2));   // tile kt has landed (this thread)
        __syncthreads();            // ... for every thread, and every thread is done with stage (kt-1) % STAGES
        int cur = kt % STAGES;
        for (int k = 0; k < TK; ++k) {
            acc += As[cur][ty][k] * Bs[cur][k][tx];
        }
        int next = kt + STAGES - 1;
        if (next < ktiles) {        // refill the stage read in the previous iteration
            load_stage(As[next % STAGES], Bs[next % STAGES], A, B, row0, col0, next * TK, K, N, tid);
        }
        asm volatile("cp.async.commit_group;\n" ::);
    }
    asm volatile("cp.async.wait_all;\n" ::);
    C[(row0 + ty) * N + col0 + tx] = acc;
}
