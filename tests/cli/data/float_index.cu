// nvcc -ptx -lineinfo -arch=sm_80 float_index.cu -o float_index.ptx
// A gather whose index is a float input converted to int: the address depends on float data, which no
// assignment of integer inputs fixes (volta check: UNSUPPORTED, naming the instruction).
extern "C" __global__ void float_index(const float* x, const float* table, float* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = table[(int)x[i] & 63];
}
