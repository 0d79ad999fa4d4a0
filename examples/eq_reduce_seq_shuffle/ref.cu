// Sequential-per-block integer reduction (reference): thread 0 of each block sums a 256-element chunk.
#define CHUNK 256
extern "C" __global__ void reduce_seq_s32(const int* __restrict__ in, int* __restrict__ out, int n)
{
    if (threadIdx.x == 0) {
        int base = blockIdx.x * CHUNK;
        int acc = 0;
        for (int j = 0; j < CHUNK; ++j) {
            if (base + j < n) acc += in[base + j];
        }
        out[blockIdx.x] = acc;
    }
}
