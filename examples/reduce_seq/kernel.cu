// Sequential-per-block reference reduction: thread 0 of each block sums the block's chunk in order.
#define CHUNK 256
extern "C" __global__ void reduce_seq(const float* __restrict__ in, float* __restrict__ out, int n)
{
    if (threadIdx.x == 0) {
        int base = blockIdx.x * CHUNK;
        float acc = 0.0f;
        for (int j = 0; j < CHUNK; ++j) {
            int i = base + j;
            if (i < n) {
                acc += in[i];
            }
        }
        out[blockIdx.x] = acc;
    }
}
