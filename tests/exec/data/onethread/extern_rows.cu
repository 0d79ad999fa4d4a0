// One-thread kernels for tests/exec/test_onethread.py that call a function with no body (an uninterpreted
// function over the reals) once a key while many accumulators are live: the one-thread path writes back to
// the machine only the registers the call's parameter store and load name, and keeps the rest cached; a
// branch on data (if-converted: the whole cache written back), division, square roots, fast-math exp.
// Built with
//   nvcc -ptx -rdc=true -lineinfo -std=c++17 -arch=sm_80 -use_fast_math -o extern_rows.sm80.ptx extern_rows.cu
extern "C" __device__ float weight_of(float x);

extern "C" __global__ void extern_rows(const float* x, const float* v, float* out, int n)
{
    float acc[8];
    for (int d = 0; d < 8; ++d) acc[d] = 0.0f;
    float den = 0.0f;
    for (int k = 0; k < n; ++k) {
        float w = weight_of(x[k]);
        den += w;
        for (int d = 0; d < 8; ++d) acc[d] += w * v[k * 8 + d];
        if (x[k] > 0.0f) den += 1.0f;
    }
    for (int d = 0; d < 8; ++d) out[d] = acc[d] / den + rsqrtf(den) * sqrtf(den + 2.0f) + __expf(acc[d]);
}
