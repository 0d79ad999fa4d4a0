// nvcc -ptx -lineinfo -arch=sm_80 embedding.cu -o embedding.ptx
// Embedding lookups whose load address depends on token ids read from an int buffer (issue 28 §5): the
// reference, a variant with the two tables swapped, and one that clamps ids to 62 (wrong only for id 63).
extern "C" __global__ void embed_ref(const int* ids, const float* wte, const float* wpe, float* out, int ntok, int C)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < ntok * C) {
        int t = i / C, c = i % C;
        out[i] = wte[ids[t] * C + c] + wpe[t * C + c];
    }
}
extern "C" __global__ void embed_swapped(const int* ids, const float* wte, const float* wpe, float* out, int ntok,
                                         int C)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < ntok * C) {
        int t = i / C, c = i % C;
        out[i] = wte[t * C + c] + wpe[ids[t] * C + c];   // DEFECT: the tables swapped
    }
}
extern "C" __global__ void embed_clamp62(const int* ids, const float* wte, const float* wpe, float* out, int ntok,
                                         int C)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < ntok * C) {
        int t = i / C, c = i % C;
        int ix = min(ids[t], 62);                          // DEFECT: the last row (63) is never read
        out[i] = wte[ix * C + c] + wpe[t * C + c];
    }
}
