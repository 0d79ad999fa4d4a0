// volta check over the reals: float arithmetic on integer data (an int's bits read as a float).
// nvcc -arch=sm_80 --ptx -lineinfo integer_bits.cu -o integer_bits.sm80.ptx
extern "C" __global__ void plus_one(const int* x, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = x[i] + 1;
}

extern "C" __global__ void one_plus(const int* x, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = 1 + x[i];
}

// the bits of x[i] as a float, plus 1.0f, back to bits: not x[i] + 1 for any nonzero x[i]
extern "C" __global__ void plus_one_as_float(const int* x, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = __float_as_int(__int_as_float(x[i]) + 1.0f);
}

// an int moved through a float register without arithmetic keeps its bits
extern "C" __global__ void plus_one_moved(const int* x, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = __float_as_int(__int_as_float(x[i] + 1));
}
