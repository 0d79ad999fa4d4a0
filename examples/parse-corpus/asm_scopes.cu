// Parse corpus: inline asm blocks that open { } scopes and declare .reg (and labels) inside them; the asm is
// inlined several times so the same scoped names and labels repeat in one function.
__device__ __forceinline__ unsigned add_sat_u32(unsigned a, unsigned b)
{
    unsigned r;
    asm("{\n"
        "  .reg .u32 t;\n"
        "  .reg .pred ovf;\n"
        "  add.cc.u32 t, %1, %2;\n"
        "  addc.u32 %0, 0, 0;\n"
        "  setp.ne.u32 ovf, %0, 0;\n"
        "  selp.u32 %0, 0xffffffff, t, ovf;\n"
        "}\n" : "=r"(r) : "r"(a), "r"(b));
    return r;
}

__device__ __forceinline__ float clamp01(float v)
{
    float r;
    asm("{\n"
        "  .reg .f32 lo, hi;\n"
        "  .reg .pred p;\n"
        "  mov.f32 lo, 0f00000000;\n"
        "  mov.f32 hi, 0f3F800000;\n"
        "  setp.lt.f32 p, %1, lo;\n"
        "  @p bra CLAMP_LOW;\n"
        "  min.f32 %0, %1, hi;\n"
        "  bra.uni CLAMP_DONE;\n"
        "CLAMP_LOW:\n"
        "  mov.f32 %0, lo;\n"
        "CLAMP_DONE:\n"
        "}\n" : "=f"(r) : "f"(v));
    return r;
}

extern "C" __global__ void asm_scopes(const unsigned* __restrict__ a, const float* __restrict__ x,
                                      unsigned* __restrict__ s, float* __restrict__ y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        s[i] = add_sat_u32(add_sat_u32(a[i], a[i] >> 1), 7u);
        y[i] = clamp01(x[i]) + clamp01(2.0f * x[i]);
    }
}
