// Kernels for tests/exec/test_overlap_real.py: stores into some of the bytes of a stored value, and loads
// that start inside one, in volta check (volta/exec/state/access.py: region.cover).
// Regenerate: nvcc -ptx -lineinfo -arch=sm_80 -o overlap.sm80.ptx overlap.cu
#include <cuda_fp16.h>

extern "C" __global__ void twice(const float* x, float* y, int n)
{
    int i = threadIdx.x;
    y[i] = x[i] * 2.0f;
}

// the high half of a shared f32 value zeroed by a 16-bit store, then the f32 read back (was EQUIVALENT to twice)
extern "C" __global__ void high_half_zeroed(const float* x, float* y, int n)
{
    __shared__ float s[32];
    int i = threadIdx.x;
    s[i] = x[i] * 2.0f;
    __syncthreads();
    reinterpret_cast<unsigned short*>(s)[2 * i + 1] = 0;
    __syncthreads();
    y[i] = s[i];
}

// the same store into the neighbouring slot: the value read is intact (EQUIVALENT to twice)
extern "C" __global__ void neighbour_zeroed(const float* x, float* y, int n)
{
    __shared__ float s[64];
    int i = threadIdx.x;
    s[2 * i] = x[i] * 7.0f;
    s[2 * i + 1] = x[i] * 2.0f;
    __syncthreads();
    reinterpret_cast<unsigned short*>(s)[4 * i + 1] = 0;
    __syncthreads();
    y[i] = s[2 * i + 1];
}

// a shared buffer reused: f32 values, then both halves of each slot rewritten as f16 and read as f16
extern "C" __global__ void reused_as_halves(const float* x, float* y, int n)
{
    __shared__ float s[32];
    int i = threadIdx.x;
    s[i] = x[i] * 4.0f;
    __syncthreads();
    float v = s[i] * 0.5f;
    __syncthreads();
    __half* h = reinterpret_cast<__half*>(s);
    h[2 * i] = __float2half(x[i]);
    h[2 * i + 1] = __float2half(v);
    __syncthreads();
    y[i] = __half2float(h[2 * i]) + __half2float(h[2 * i + 1]) * 0.0f + v - __half2float(h[2 * i]);
}

// the f32 value overwritten whole by a 32-bit constant, then read: the constant
extern "C" __global__ void overwritten_whole(const float* x, float* y, int n)
{
    __shared__ float s[32];
    int i = threadIdx.x;
    s[i] = x[i] * 2.0f;
    __syncthreads();
    reinterpret_cast<unsigned*>(s)[i] = 0x40000000u;   // 2.0f
    __syncthreads();
    y[i] = s[i];
}

extern "C" __global__ void two(const float* x, float* y, int n)
{
    y[threadIdx.x] = 2.0f;
}

// the high word of a shared f64 value read as a float (was EQUIVALENT to zeros)
extern "C" __global__ void high_word_read(const double* x, float* y, int n)
{
    __shared__ double s[32];
    int i = threadIdx.x;
    s[i] = x[i] * 2.0;
    __syncthreads();
    y[i] = reinterpret_cast<float*>(s)[2 * i + 1];
}

extern "C" __global__ void zeros(const double* x, float* y, int n)
{
    y[threadIdx.x] = 0.0f;
}

// the low word of a shared f64 value overwritten, the f64 read back
extern "C" __global__ void low_word_replaced(const double* x, double* y, int n)
{
    __shared__ double s[32];
    int i = threadIdx.x;
    s[i] = x[i] * 2.0;
    __syncthreads();
    reinterpret_cast<unsigned*>(s)[2 * i] = 7u;
    __syncthreads();
    y[i] = s[i];
}

extern "C" __global__ void twice_f64(const double* x, double* y, int n)
{
    y[threadIdx.x] = x[threadIdx.x] * 2.0;
}

// an output element whose high half is zeroed after the value is stored (the outputs backstop)
extern "C" __global__ void output_high_half_zeroed(const float* x, float* y, int n)
{
    int i = threadIdx.x;
    y[i] = x[i] * 2.0f;
    reinterpret_cast<unsigned short*>(y)[2 * i + 1] = 0;
}
