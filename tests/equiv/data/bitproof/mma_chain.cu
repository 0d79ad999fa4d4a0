// One warp computes D (16x8) = A (16x16) · B (16x8) with two tensor-core mma.sync m16n8k8 TF32 steps chained
// through the accumulator (issue 12: MMA terms in the bit-identity proof). Row-major fp32 buffers; fragments
// follow PTX ISA §9.7.14.5.7. Regenerate: ./regenerate.sh
__device__ __forceinline__ void mma_k8(float d[4], const float *A, const float *B, int kk) {
    int g = threadIdx.x >> 2, t = threadIdx.x & 3;
    unsigned a0 = __float_as_uint(A[g * 16 + kk + t]), a1 = __float_as_uint(A[(g + 8) * 16 + kk + t]);
    unsigned a2 = __float_as_uint(A[g * 16 + kk + t + 4]), a3 = __float_as_uint(A[(g + 8) * 16 + kk + t + 4]);
    unsigned b0 = __float_as_uint(B[(kk + t) * 8 + g]), b1 = __float_as_uint(B[(kk + t + 4) * 8 + g]);
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                 "{%0,%1,%2,%3};"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
}

__device__ __forceinline__ void store(float *D, const float d[4]) {
    int g = threadIdx.x >> 2, t = threadIdx.x & 3;
    D[g * 8 + 2 * t] = d[0];
    D[g * 8 + 2 * t + 1] = d[1];
    D[(g + 8) * 8 + 2 * t] = d[2];
    D[(g + 8) * 8 + 2 * t + 1] = d[3];
}

// k = 0..7, then 8..15 chained through c: the reference order
extern "C" __global__ void mma_k_in_order(const float *A, const float *B, float *D) {
    float d[4] = {0.f, 0.f, 0.f, 0.f};
    mma_k8(d, A, B, 0);
    mma_k8(d, A, B, 8);
    store(D, d);
}

// the same chain with the stores reversed and the loads of the second step issued first: bit-identical
extern "C" __global__ void mma_k_in_order_reloaded(const float *A, const float *B, float *D) {
    float d[4] = {0.f, 0.f, 0.f, 0.f};
    for (int kk = 0; kk < 16; kk += 8) mma_k8(d, A, B, kk);
    int g = threadIdx.x >> 2, t = threadIdx.x & 3;
    D[(g + 8) * 8 + 2 * t + 1] = d[3];
    D[(g + 8) * 8 + 2 * t] = d[2];
    D[g * 8 + 2 * t + 1] = d[1];
    D[g * 8 + 2 * t] = d[0];
}

// the k halves swapped: 8..15 first, then 0..7 (equal over the reals, not in bits)
extern "C" __global__ void mma_k_halves_swapped(const float *A, const float *B, float *D) {
    float d[4] = {0.f, 0.f, 0.f, 0.f};
    mma_k8(d, A, B, 8);
    mma_k8(d, A, B, 0);
    store(D, d);
}

// split-K: each half from a zero accumulator, then one f32 addition
extern "C" __global__ void mma_k_split(const float *A, const float *B, float *D) {
    float lo[4] = {0.f, 0.f, 0.f, 0.f}, hi[4] = {0.f, 0.f, 0.f, 0.f};
    mma_k8(lo, A, B, 0);
    mma_k8(hi, A, B, 8);
    for (int i = 0; i < 4; i++) lo[i] += hi[i];
    store(D, lo);
}

// f64 m8n8k4 (PTX ISA §9.7.14.5.2), D (8x8) = A (8x4) · B (4x8): an IEEE fma chain, defined under --fp ieee
__device__ __forceinline__ void mma_f64(double d[2], const double *A, const double *B, int k0) {
    int g = threadIdx.x >> 2, t = threadIdx.x & 3;
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};"
                 : "+d"(d[0]), "+d"(d[1]) : "d"(A[g * 8 + k0 + t]), "d"(B[(k0 + t) * 8 + g]));
}

// K = 8 as two m8n8k4 steps (A 8x8, B 8x8), in order or swapped
extern "C" __global__ void mma_f64_in_order(const double *A, const double *B, double *D) {
    double d[2] = {0.0, 0.0};
    mma_f64(d, A, B, 0);
    mma_f64(d, A, B, 4);
    int g = threadIdx.x >> 2, t = threadIdx.x & 3;
    D[g * 8 + 2 * t] = d[0];
    D[g * 8 + 2 * t + 1] = d[1];
}

extern "C" __global__ void mma_f64_swapped(const double *A, const double *B, double *D) {
    double d[2] = {0.0, 0.0};
    mma_f64(d, A, B, 4);
    mma_f64(d, A, B, 0);
    int g = threadIdx.x >> 2, t = threadIdx.x & 3;
    D[g * 8 + 2 * t + 1] = d[1];
    D[g * 8 + 2 * t] = d[0];
}
