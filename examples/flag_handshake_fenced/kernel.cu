// Message passing between blocks: fence + volatile store is a release pattern, volatile load + fence an
// acquire pattern (PTX memory model), so the data write happens before the read. Block 1 spins until
// block 0 sets the flag: the scheduler must let block 0 run while block 1 waits.
extern "C" __global__ void flag_handshake_fenced(volatile int* flag, int* data, int* out)
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
