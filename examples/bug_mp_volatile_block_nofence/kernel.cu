// DEFECTIVE: message passing between two warps of one block through volatile shared memory, no fence:
// warp 1 can see the flag and still read the old payload.
extern "C" __global__ void mp_volatile_block_nofence(const int* x, int* out)
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
        out[blockIdx.x] = data;
    }
    if (threadIdx.x == 0) {
        data = x[blockIdx.x] + 1;   // DEFECT: no __threadfence_block() between the payload and the flag
        flag = 1;
    }
}
