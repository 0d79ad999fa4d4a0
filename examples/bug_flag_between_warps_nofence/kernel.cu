// DEFECTIVE: the warp-to-warp flag handshake without fences: the volatile flag accesses do not race, but
// nothing orders warp 0's plain data write before warp 1's read.
extern "C" __global__ void flag_between_warps_nofence(const int* x, int* out)
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
        out[blockIdx.x] = data;
    }
    if (threadIdx.x == 0) {
        data = x[blockIdx.x] + 1;   // DEFECT: no __threadfence_block() between this write and the flag
        flag = 1;
    }
}
