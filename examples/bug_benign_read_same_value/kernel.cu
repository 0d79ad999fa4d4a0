// DEFECTIVE (benign): every block's thread 0 stores 0 to ready[0], which already holds 0, while thread 1 of
// every block reads it, with nothing ordering them: a data race in the PTX memory model, but each write stores
// the value already there, so the read gets 0 in any order (a "benign" read race).
extern "C" __global__ void benign_read_same_value(int* ready, const float* x, float* y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (threadIdx.x == 0) {
        ready[0] = 0;   // DEFECT: benign: the value already there
    }
    if (threadIdx.x == 1) {
        y[blockIdx.x] = ready[0] + x[i];
    }
}
