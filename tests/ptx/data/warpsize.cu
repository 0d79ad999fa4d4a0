// nvcc -ptx -lineinfo -arch=sm_80 warpsize.cu -o warpsize.ptx  (tests/ptx/test_warp_sz.py)
// warpSize in index arithmetic: nvcc emits the predefined PTX constant WARP_SZ.
extern "C" __global__ void warp_of(int* out, int n){
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = (i / warpSize) * 1000 + i % warpSize + warpSize;
}
