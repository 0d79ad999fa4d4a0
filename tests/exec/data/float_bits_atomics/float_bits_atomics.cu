// volta check over the reals: integer atomics on a float's bits (the float atomicMax/atomicMin trick). Signed
// integers order negative floats backwards, unsigned ones put them above every positive float, so the integer
// max/min of the bits is not the float max/min of the values; over the reals the bits carry the float's value.
// nvcc -ptx -lineinfo -arch=sm_80 float_bits_atomics.cu -o float_bits_atomics.sm80.ptx

extern "C" __global__ void max_unsigned_bits(const float* x, float* out, int n) {
    int i = threadIdx.x;
    if (i < n) atomicMax((unsigned*)out, __float_as_uint(x[i]));
}

extern "C" __global__ void min_signed_bits(const float* x, float* out, int n) {
    int i = threadIdx.x;
    if (i < n) atomicMin((int*)out, __float_as_int(x[i]));
}

extern "C" __global__ void max_loaded_bits(const float* x, float* out, int n) {
    int i = threadIdx.x;
    if (i < n) atomicMax((int*)out, ((const int*)x)[i]);
}

extern "C" __global__ void add_bits(const float* x, float* out, int n) {
    int i = threadIdx.x;
    if (i < n) atomicAdd((int*)out, __float_as_int(x[i]));
}

extern "C" __global__ void max_loop(const float* x, float* out, int n) {
    if (threadIdx.x == 0) {
        float m = 0.0f;
        for (int i = 0; i < n; i++) m = fmaxf(m, x[i]);
        out[0] = m;
    }
}

extern "C" __global__ void min_loop(const float* x, float* out, int n) {
    if (threadIdx.x == 0) {
        float m = 0.0f;
        for (int i = 0; i < n; i++) m = fminf(m, x[i]);
        out[0] = m;
    }
}

extern "C" __global__ void add_loop(const float* x, float* out, int n) {
    if (threadIdx.x == 0) {
        float m = 0.0f;
        for (int i = 0; i < n; i++) m += x[i];
        out[0] = m;
    }
}

extern "C" __global__ void max_ints(const int* x, int* out, int n) {
    int i = threadIdx.x;
    if (i < n) atomicMax(out, x[i]);
}

extern "C" __global__ void max_ints_loop(const int* x, int* out, int n) {
    if (threadIdx.x == 0) {
        int m = 0;
        for (int i = 0; i < n; i++) m = max(m, x[i]);
        out[0] = m;
    }
}
