// Defect an LLM makes: Hillis-Steele scan done in place in one shared buffer. Thread t reads buf[t - off] while
// thread t - off may already have overwritten it in the same step: a read-write race on shared memory.
#define N 64
extern "C" __global__ void cumsum_inplace(const float* __restrict__ x, float* __restrict__ y, int rows, int n)
{
    __shared__ float buf[N];
    int r = blockIdx.x, t = threadIdx.x;
    buf[t] = x[r * N + t];
    __syncthreads();
    for (int off = 1; off < N; off <<= 1) {
        if (t >= off) buf[t] += buf[t - off];  // DEFECT: no barrier between the read of buf[t-off] and the writes
        __syncthreads();
    }
    y[r * N + t] = buf[t];
}
