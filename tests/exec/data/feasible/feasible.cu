// Kernels for tests/exec/test_feasible.py: accesses on the two sides of branches on tensor data.
// Rebuild: nvcc -ptx -lineinfo -arch=sm_80 -o feasible.ptx feasible.cu

// mode[0] == 0 and mode[0] < 5 hold together (mode[0] = 0): the race is feasible and kept, with its condition
extern "C" __global__ void overlapping_modes(const int* mode, int* a, int* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    if (mode[0] == 0) a[i] = i;
    if (mode[0] < 5) out[i] = a[(i + 1) % n];
}

// a float condition and its opposite: contradictory over the reals, but not decided (NaN), so kept
extern "C" __global__ void float_modes(const float* x, float* a, float* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    if (x[0] < 0.0f) a[i] = 1.0f;
    if (!(x[0] < 0.0f)) out[i] = a[(i + 1) % n];
}

// the branch combines data with the thread index: only thread 0 can store to out[0], so no race
extern "C" __global__ void thread_and_data(const int* v, int* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = i;
    if (v[0] > 0 && i == 0) out[0] = v[0];
}
