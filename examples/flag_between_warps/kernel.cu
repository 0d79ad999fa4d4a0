// Message passing between two warps of one block through shared memory: warp 0 writes the data,
// __threadfence_block(), sets a volatile flag; warp 1 spins on the flag, __threadfence_block(), reads.
// A .cta fence suffices inside one block; warp 1 must let warp 0 run while it waits.
extern "C" __global__ void flag_between_warps(const int* x, int* out)
{
    __shared__ int data;
    __shared__ volatile int flag;
    if (threadIdx.x == 0) {
        flag = 0;
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
