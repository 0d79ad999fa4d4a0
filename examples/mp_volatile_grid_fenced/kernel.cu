// Message passing between blocks through volatile payload and flag, with __threadfence() between payload and
// flag on both sides: fence + strong write is a release pattern, strong read + fence an acquire pattern, so
// the payload's write happens before its read (PTX memory model).
extern "C" __global__ void mp_volatile_grid_fenced(volatile int* flag, volatile int* data, int* out)
{
    if (threadIdx.x == 0 && blockIdx.x == 0) {
        data[0] = 42;
        __threadfence();
        *flag = 1;
    }
    if (threadIdx.x == 0 && blockIdx.x == 1) {
        while (*flag == 0) {
        }
        __threadfence();
        out[0] = data[0];
    }
}
