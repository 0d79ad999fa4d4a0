// Kernels for tests/exec/test_ifconvert.py: branches on tensor data that volta check if-converts (or refuses).
// Regenerate: nvcc -ptx -lineinfo -std=c++17 -arch=sm_80 -o ifconvert.sm80.ptx ifconvert.cu

// an early exit under a data condition: y keeps its old value where v < 0
extern "C" __global__ void early_exit(const float* __restrict__ x, float* __restrict__ y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    if (v < 0.0f) return;
    y[i] = 2.0f * v;
}

// the same as a select over the old value
extern "C" __global__ void early_exit_select(const float* __restrict__ x, float* __restrict__ y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    y[i] = v < 0.0f ? y[i] : 2.0f * v;
}

// the trip count depends on the data: stays unsupported
extern "C" __global__ void data_loop(const float* __restrict__ x, float* __restrict__ y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    while (v > 1.0f) v *= 0.5f;
    y[i] = v;
}

// a barrier inside a branch on data: stays unsupported
extern "C" __global__ void data_barrier(const float* __restrict__ x, float* __restrict__ y, int n)
{
    __shared__ float s[128];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = x[i];
    s[threadIdx.x] = v;
    if (v > 0.0f) {
        __syncthreads();
        v = s[(threadIdx.x + 1) % 128];
    }
    y[i] = v;
}

// an out-of-bounds store that happens only when the element is positive (the last thread writes y[n])
extern "C" __global__ void data_oob(const float* __restrict__ x, float* __restrict__ y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    if (v > 0.0f) y[i + 1] = v;
}

// a store on one side only, into an output buffer (its value otherwise is unknown)
extern "C" __global__ void one_sided(const float* __restrict__ x, float* __restrict__ y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    if (v > 0.0f) y[i] = v;
}

// the positive part with fmaxf, for one_sided over an inout buffer
extern "C" __global__ void keep_or_positive(const float* __restrict__ x, float* __restrict__ y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    y[i] = v > 0.0f ? v : y[i];
}

// nested branches that compute a register merged at two joins (sign with a dead zone)
extern "C" __global__ void nested_sign(const float* __restrict__ x, float* __restrict__ y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    float r;
    if (v > 0.25f) {
        r = v * v;
        if (v > 4.0f) r = 16.0f + v;
        y[i] = r + 1.0f;
    } else if (v < -0.25f) {
        y[i] = -v;
    } else {
        y[i] = 0.0f;
    }
}

extern "C" __global__ void nested_sign_select(const float* __restrict__ x, float* __restrict__ y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    float big = v > 4.0f ? 16.0f + v : v * v;
    y[i] = v > 0.25f ? big + 1.0f : (v < -0.25f ? -v : 0.0f);
}

// a do-while whose backward branch is the only data-dependent one: never if-converted
extern "C" __global__ void data_do_while(const float* __restrict__ x, float* __restrict__ y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    do { v = v * 0.5f; } while (v > 1.0f);
    y[i] = v;
}

// two threads store one element, each on both sides of its own branch (a race, never EQUIVALENT)
extern "C" __global__ void shared_element(const float* __restrict__ x, float* __restrict__ y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    if (v > 0.0f) y[i / 2] = v; else y[i / 2] = -v;
}

// |x| without a race, for shared_element
extern "C" __global__ void abs_half(const float* __restrict__ x, float* __restrict__ y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n || i % 2 == 0) return;
    y[i / 2] = fabsf(x[i]);
}

// shared memory written only where the element is positive, then read by every thread: uninitialized
// where it is not (volta races must say so, not clean)
extern "C" __global__ void shared_maybe_written(const float* __restrict__ x, float* __restrict__ y, int n)
{
    __shared__ float s[64];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = x[i];
    if (v > 0.0f) s[threadIdx.x] = v;
    __syncthreads();
    y[i] = s[threadIdx.x];
}
