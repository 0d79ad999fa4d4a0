// DEFECTIVE: message passing between blocks with the payload and the flag both volatile and no fence.
// Every access is strong (no data race in the PTX memory model), but nothing orders the payload's write
// before its read: block 1 can see the flag set and still read the old payload.
extern "C" __global__ void mp_volatile_grid_nofence(volatile int* flag, volatile int* data, int* out)
{
    if (threadIdx.x == 0 && blockIdx.x == 0) {
        data[0] = 42;   // DEFECT: no __threadfence() between the payload and the flag
        *flag = 1;
    }
    if (threadIdx.x == 0 && blockIdx.x == 1) {
        while (*flag == 0) {
        }
        out[0] = data[0];
    }
}
