// Kernels that agree over the reals but not always in bits (issue 12): the bit-identity proof must
// prove the first group identical and never the others. Regenerate: ./regenerate.sh
#define N 256

// one thread per row, k in order: the reference order
extern "C" __global__ void dot_seq(const float *a, const float *b, float *out) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    float acc = 0.0f;
    for (int k = 0; k < N; k++) acc = __fmaf_rn(a[row * N + k], b[k], acc);
    out[row] = acc;
}

// the same order with the operands of each product swapped (fma commutes in its first two operands)
extern "C" __global__ void dot_seq_swapped(const float *a, const float *b, float *out) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    float acc = 0.0f;
    for (int k = 0; k < N; k++) acc = __fmaf_rn(b[k], a[row * N + k], acc);
    out[row] = acc;
}

// the same order, unrolled by 4 by hand
extern "C" __global__ void dot_seq_unrolled(const float *a, const float *b, float *out) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    float acc = 0.0f;
    for (int k = 0; k < N; k += 4) {
        acc = __fmaf_rn(a[row * N + k], b[k], acc);
        acc = __fmaf_rn(a[row * N + k + 1], b[k + 1], acc);
        acc = __fmaf_rn(a[row * N + k + 2], b[k + 2], acc);
        acc = __fmaf_rn(a[row * N + k + 3], b[k + 3], acc);
    }
    out[row] = acc;
}

// mul then add, each rounded: not an fma
extern "C" __global__ void dot_mul_add(const float *a, const float *b, float *out) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    float acc = 0.0f;
    for (int k = 0; k < N; k++) acc = __fadd_rn(__fmul_rn(a[row * N + k], b[k]), acc);
    out[row] = acc;
}

// split-K: chunks of CHUNK summed separately, then the partial sums in order
template <int CHUNK>
__device__ float dot_chunked(const float *a, const float *b, int row) {
    float total = 0.0f;
    for (int c = 0; c < N; c += CHUNK) {
        float part = 0.0f;
        for (int k = c; k < c + CHUNK; k++) part = __fmaf_rn(a[row * N + k], b[k], part);
        total = __fadd_rn(total, part);
    }
    return total;
}

extern "C" __global__ void dot_split64(const float *a, const float *b, float *out) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    out[row] = dot_chunked<64>(a, b, row);
}

extern "C" __global__ void dot_split128(const float *a, const float *b, float *out) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    out[row] = dot_chunked<128>(a, b, row);
}

// the reduction order depends on the batch size: rows beyond 4 switch the chunking (batch-variant)
extern "C" __global__ void dot_batch_dependent(const float *a, const float *b, float *out, int rows) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    out[row] = rows > 4 ? dot_chunked<64>(a, b, row) : dot_chunked<128>(a, b, row);
}

// the same for every batch size
extern "C" __global__ void dot_batch_invariant(const float *a, const float *b, float *out, int rows) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < rows) out[row] = dot_chunked<128>(a, b, row);
}
