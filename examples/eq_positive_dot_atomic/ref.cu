// Dot product of the entries where a is positive, by one thread: out[0] = sum_{a[i] > 0} a[i] * b[i].
extern "C" __global__ void positive_dot_seq(const float* __restrict__ a, const float* __restrict__ b, float* out, int n)
{
    if (threadIdx.x == 0 && blockIdx.x == 0) {
        float s = 0.0f;
        for (int i = 0; i < n; ++i)
            if (a[i] > 0.0f) s += a[i] * b[i];
        out[0] = s;
    }
}
