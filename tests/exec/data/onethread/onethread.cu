// One-thread kernels (grid 1, block 1) for tests/exec/test_onethread.py: each exercises a path of
// volta/exec/fast/onethread.py or a fall back to the general executor. Built with
//   nvcc -ptx -lineinfo -std=c++17 -arch=sm_80 -o onethread.sm80.ptx onethread.cu
#include <math.h>

// Integer index arithmetic only: shifts, xor, div/rem, min, unsigned and 64-bit math.
extern "C" __global__ void index_math(int* out, int n)
{
    for (int i = 0; i < n; ++i) {
        unsigned u = (unsigned)i * 2654435761u;
        long long w = (long long)i * -3000000000LL;
        out[i] = ((i * 7) ^ (i >> 2)) % 5 + min(i, 3) - i / 3 + (int)(u >> 28) + (int)(w >> 40) + (i & 6) * (i | 1);
    }
}

// A branch on data: if-converted by the general executor.
extern "C" __global__ void branchy(const float* x, float* out, int n)
{
    float s = 0.0f;
    for (int i = 0; i < n; ++i) {
        if (x[i] > 0.0f) s += x[i];
        else s -= 2.0f * x[i];
    }
    out[0] = s;
}

// A local array indexed by a loop counter: stores and loads of local memory.
extern "C" __global__ void local_array(const float* x, float* out, int n)
{
    float buf[16];
    for (int i = 0; i < 16; ++i) buf[i] = 0.0f;
    for (int i = 0; i < n; ++i) buf[(i * 5) % 16] += x[i] * (float)(i + 1);
    for (int i = 0; i < 16; ++i) out[i] = buf[i] - buf[(i + 1) % 16];
}

// float4 loads (ld.global.v4.f32), sums and products.
extern "C" __global__ void vec4(const float4* x, float* out, int n)
{
    float s = 0.0f, p = 1.0f;
    for (int i = 0; i < n; ++i) {
        float4 v = x[i];
        s += v.x * v.y - v.z;
        p = p * 0.5f + v.w;
    }
    out[0] = s;
    out[1] = p;
}

// An infinite constant meets data: no real value.
extern "C" __global__ void add_inf(const float* x, float* out, int n)
{
    for (int i = 0; i < n; ++i) out[i] = x[i] + INFINITY;
}

// Reads one element past the end of x.
extern "C" __global__ void read_past_end(const float* x, float* out, int n)
{
    float s = 0.0f;
    for (int i = 0; i <= n; ++i) s += x[i];
    out[0] = s;
}

// Integer data summed (s32 buffers).
extern "C" __global__ void sum_int(const int* x, int* out, int n)
{
    int s = 0;
    for (int i = 0; i < n; ++i) s += x[i] * (i - 2);
    out[0] = s;
}

// The same sum in another order.
extern "C" __global__ void sum_int_reversed(const int* x, int* out, int n)
{
    int s = 0;
    for (int i = n - 1; i >= 0; --i) s += x[i] * (i - 2);
    out[0] = s;
}

// A local array element never written reaches the output.
extern "C" __global__ void uninit_local(const float* x, float* out, int n)
{
    float buf[8];
    for (int i = 0; i < 7; ++i) buf[i] = x[i];
    out[0] = buf[n % 8];
}

// expf (libdevice, full precision) and a division: instructions the general path computes.
extern "C" __global__ void softmax_row(const float* x, float* out, int n)
{
    float m = -INFINITY;
    for (int i = 0; i < n; ++i) m = fmaxf(m, x[i]);
    float s = 0.0f;
    for (int i = 0; i < n; ++i) s += expf(x[i] - m);
    for (int i = 0; i < n; ++i) out[i] = expf(x[i] - m) / s;
}
