// A large struct passed by value, compiled with -G (no optimization): nvcc takes the parameter's address
// (`mov.b64 %rd, k_param_0`) and copies it to local memory, and the weight table is indexed at run time.
struct Params {
    float w[32];
    const float* in;
    float* out;
    int n;
    float scale;
};

extern "C" __global__ void struct_big_O0(Params p)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < p.n) {
        p.out[i] = p.in[i] * p.w[i % 32] * p.scale;
    }
}
