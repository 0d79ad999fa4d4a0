// Every kept element gets its own slot: the ticket returned by atomicAdd is distinct per thread, so the
// data-dependent stores never collide (for any input).
extern "C" __global__ void ticket_compact(const float* in, float* out, int* count, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && in[i] > 0.0f) {
        int slot = atomicAdd(count, 1);
        out[slot] = in[i];
    }
}
