// DEFECTIVE: __threadfence_block() is a fence at .cta scope; the release/acquire pattern it forms does not
// synchronize with a thread of another block, so data[0] still races.
extern "C" __global__ void flag_handshake_block_fence(volatile int* flag, int* data, int* out)
{
    if (threadIdx.x == 0 && blockIdx.x == 0) {
        data[0] = 42;   // DEFECT: published with a block-scoped fence; the consumer is in another block
        __threadfence_block();
        *flag = 1;
    }
    if (threadIdx.x == 0 && blockIdx.x == 1) {
        while (*flag == 0) {
        }
        __threadfence_block();
        out[0] = data[0];
    }
}
