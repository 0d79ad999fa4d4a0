// ReLU written as a select (setp.gt + selp). Left alone, nvcc folds `v > 0 ? v : 0` into max.f32; the empty
// asm statement consumes the predicate so that the compare and select survive into the PTX.
extern "C" __global__ void relu_select(const float* __restrict__ x, float* __restrict__ out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        bool pos = v > 0.0f;
        out[i] = pos ? v : 0.0f;
        asm volatile("" :: "r"((int)pos));
    }
}
