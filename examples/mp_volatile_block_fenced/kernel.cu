// Message passing between two warps of one block through volatile shared memory, __threadfence_block() on
// both sides: a fence of block scope orders the payload for a thread of the same block.
extern "C" __global__ void mp_volatile_block_fenced(const int* x, int* out)
{
    __shared__ volatile int data;
    __shared__ volatile int flag;
    if (threadIdx.x == 0) {
        flag = 0;
        data = 0;
    }
    __syncthreads();
    if (threadIdx.x == 32) {
        while (flag == 0) {
        }
        __threadfence_block();
        out[blockIdx.x] = data;
    }
    if (threadIdx.x == 0) {
        data = x[blockIdx.x] + 1;
        __threadfence_block();
        flag = 1;
    }
}
