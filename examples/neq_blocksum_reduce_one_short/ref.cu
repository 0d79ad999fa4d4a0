// One-kernel reference: every block's thread 0 adds the whole input in order (block 0 stores it).
extern "C" __global__ void sum_sequential(const float* x, float* out, int n)
{
    if (threadIdx.x == 0 && blockIdx.x == 0) {
        float acc = 0.0f;
        for (int i = 0; i < n; ++i)
            acc += x[i];
        out[0] = acc;
    }
}
