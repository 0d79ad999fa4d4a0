// DEFECTIVE: each block's thread 0 increments a counter through a volatile pointer: a read, then a write,
// not one atomic operation. The accesses are strong (no data race), but two blocks' read-modify-write
// sequences can interleave and lose an increment.
extern "C" __global__ void counter_volatile_rmw(volatile int* count, const int* x, int* out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = 2 * x[i];
    if (threadIdx.x == 0) {
        int seen = *count;
        *count = seen + 1;   // DEFECT: atomicAdd(count, 1) would make it one indivisible update
    }
}
