// nvcc -ptx -lineinfo -arch=sm_80 variance.cu -o variance.ptx
// Row variance two ways (equal over the reals); expanding the two-pass form is slow to normalize.
extern "C" __global__ void var_two_pass(const float* x, float* out, int n){
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    const float* row = x + r * n;
    float mean = 0.f;
    for (int i = 0; i < n; ++i) mean += row[i];
    mean /= n;
    float v = 0.f;
    for (int i = 0; i < n; ++i) { float d = row[i] - mean; v += d * d; }
    out[r] = v / n;
}
extern "C" __global__ void var_one_pass(const float* x, float* out, int n){
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    const float* row = x + r * n;
    float s = 0.f, s2 = 0.f;
    for (int i = 0; i < n; ++i) { s += row[i]; s2 += row[i] * row[i]; }
    float mean = s / n;
    out[r] = s2 / n - mean * mean;
}
