// DEFECTIVE: the volatile flag accesses do not race with each other, but without fences they are not a
// release/acquire pair, so the plain data write and the read in the other block race.
extern "C" __global__ void flag_handshake_nofence(volatile int* flag, int* data, int* out)
{
    if (threadIdx.x == 0 && blockIdx.x == 0) {
        data[0] = 42;   // DEFECT: no __threadfence() between this write and the flag
        *flag = 1;
    }
    if (threadIdx.x == 0 && blockIdx.x == 1) {
        while (*flag == 0) {
        }
        out[0] = data[0];
    }
}
