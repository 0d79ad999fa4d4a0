// DEFECTIVE: an external helper with no body (the `nondet()` of verification suites) picks which neighbour's
// shared-memory slot a thread reads, with no barrier after the writes. `volta races` treats the helper's
// result as an unconstrained input: drawn with each input set (0 in the `zeros` set: each thread reads its
// own slot, no race; other values: another thread's slot, a race).
extern "C" __device__ int nondet_int();

extern "C" __global__ void nondet_helper(const float* x, float* y)
{
    __shared__ float s[64];
    int t = threadIdx.x;
    s[t] = x[blockIdx.x * 64 + t];
    int shift = nondet_int() & 63;
    y[blockIdx.x * 64 + t] = s[(t + shift) & 63];   // DEFECT: no __syncthreads() between the writes and this read
}
