// Every thread of every block writes 1 to done[0], unordered: a data race, but every write stores the
// same value, so the result cannot depend on the order (a "benign race").
extern "C" __global__ void benign_same_value(const float* x, float* y, int* done, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = 2.0f * x[i];
    }
    done[0] = 1;   // DEFECT: benign race (same value from every thread)
}
