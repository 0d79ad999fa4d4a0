// DEFECTIVE: volatile message passing between blocks with __threadfence_block() on both sides: a fence of
// block scope orders nothing for a thread of another block, so the payload read can be stale.
extern "C" __global__ void mp_volatile_grid_block_fence(volatile int* flag, volatile int* data, int* out)
{
    if (threadIdx.x == 0 && blockIdx.x == 0) {
        data[0] = 42;            // DEFECT: the fences that follow are of block scope; the consumer is in another block
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
