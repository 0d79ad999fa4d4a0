// GPT-2 style token + position embedding: out[t, c] = wte[ids[t], c] + wpe[t, c]. One thread per (token,
// channel); the token id is read from an int buffer, so the load address wte + ids[t]*C depends on data.
extern "C" __global__ void embed_tokens(const int* ids, const float* wte, const float* wpe, float* out,
                                        int ntok, int C)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < ntok * C) {
        int t = i / C, c = i % C;
        int ix = ids[t];
        out[i] = wte[ix * C + c] + wpe[t * C + c];
    }
}
