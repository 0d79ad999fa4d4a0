// The same embedding, one warp per token: each lane reads the id once and walks the channels with a float4
// stride (C a multiple of 128), adding the position row; 64-bit row offsets as llm.c's encoder does.
extern "C" __global__ void embed_tokens_warp(const int* ids, const float* wte, const float* wpe, float* out,
                                             int ntok, int C)
{
    int t = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    if (t >= ntok) return;
    const float4* row = reinterpret_cast<const float4*>(wte + (long)ids[t] * C);
    const float4* pos = reinterpret_cast<const float4*>(wpe + (long)t * C);
    float4* dst = reinterpret_cast<float4*>(out + (long)t * C);
    for (int c4 = lane; c4 < C / 4; c4 += 32) {
        float4 a = row[c4], b = pos[c4];
        dst[c4] = make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
    }
}
