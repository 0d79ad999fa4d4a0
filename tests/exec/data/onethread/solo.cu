// Kernels where one thread of a larger launch runs alone for a while, for tests/exec/test_onethread_solo.py
// (volta/exec/fast/onethread.py `solo`): the lane executor's scheduler picks it alone, and the decoded steps
// must leave the same values, findings and counts. Built with
//   nvcc -ptx -lineinfo -std=c++17 -arch=sm_80 -o solo.sm80.ptx solo.cu

// thread 0 sums alone; the others exit
extern "C" __global__ void dot_first(const float* x, const float* y, float* out, int n)
{
    if (threadIdx.x == 0) {
        float a = 0.0f;
        for (int i = 0; i < n; i++) a += x[i] * y[i];
        out[blockIdx.x] = a;
    }
}

// thread 0 sums while the others wait at the barrier; then every thread scales its element by the sum
extern "C" __global__ void sum_then_scale(const float* x, float* out, int n)
{
    __shared__ float total;
    if (threadIdx.x == 0) {
        float a = 0.0f;
        for (int i = 0; i < n; i++) a += x[i];
        total = a;
    }
    __syncthreads();
    if (threadIdx.x < n) out[threadIdx.x] = x[threadIdx.x] * total;
}

// every thread's value is lane-structured; thread 0 then folds its own value into a long loop
extern "C" __global__ void own_value_then_loop(const float* x, float* out, int n)
{
    float v = x[threadIdx.x] * 3.0f;
    out[threadIdx.x] = v;
    if (threadIdx.x == 0) {
        float a = v;
        for (int i = 0; i < n; i++) a = a * 0.5f + x[i];
        out[blockDim.x] = a;
    }
}

// thread 0 reads what the other threads write, with no barrier in between: a race either way
extern "C" __global__ void reads_others_unsynced(float* y, float* out, int n)
{
    if (threadIdx.x == 0) {
        float a = 0.0f;
        for (int i = 0; i < n; i++) a += y[i];
        out[0] = a;
    } else {
        y[threadIdx.x] = 1.0f;
    }
}

// each thread loops its own number of times: lanes leave the loop one by one
extern "C" __global__ void ragged_loops(const float* x, float* out, int n)
{
    float a = 0.0f;
    for (int i = 0; i <= (int)threadIdx.x && i < n; i++) a += x[i] * (float)(i + 1);
    out[threadIdx.x] = a;
}

// thread 0 reads shared memory nobody wrote
extern "C" __global__ void first_reads_unwritten(const float* x, float* out, int n)
{
    __shared__ float s[32];
    if (threadIdx.x > 0) s[threadIdx.x] = x[threadIdx.x];
    __syncthreads();
    if (threadIdx.x == 0) {
        float a = 0.0f;
        for (int i = 0; i < n; i++) a += s[i % 32] + x[i];
        out[0] = a;
    }
}

// the reference of the pairs: one thread per output, no long loop
extern "C" __global__ void dot_parallel(const float* x, const float* y, float* out, int n)
{
    __shared__ float part[32];
    float a = 0.0f;
    for (int i = threadIdx.x; i < n; i += 32) a += x[i] * y[i];
    part[threadIdx.x] = a;
    __syncthreads();
    if (threadIdx.x == 0) {
        float t = 0.0f;
        for (int k = 0; k < 32; k++) t += part[k];
        out[blockIdx.x] = t;
    }
}
