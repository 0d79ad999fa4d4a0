// Sequential-per-block f32 reduction (reference): thread 0 of each block sums a 256-element chunk in order.
#define CHUNK 256
extern "C" __global__ void reduce_seq_f32(const float* __restrict__ in, float* __restrict__ out, int n)
{
    if (threadIdx.x == 0) {
        int base = blockIdx.x * CHUNK;
        float acc = 0.0f;
        for (int j = 0; j < CHUNK; ++j) {
            if (base + j < n) acc += in[base + j];
        }
        out[blockIdx.x] = acc;
    }
}
