// Pairwise sums through a struct passed by value ({const float* in; float* out; int n;}): thread i adds
// in[i] into out[i / 2]. Both threads of a pair write the same output element with no synchronization.
struct PairArgs {
    const float* in;
    float* out;
    int n;
};

extern "C" __global__ void pair_sum(PairArgs a)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < a.n) {
        a.out[i / 2] += a.in[i];  // DEFECT: both threads of a pair read-modify-write out[i / 2]
    }
}
