// DEFECTIVE: the lock's atomics are relaxed (atomicCAS/atomicExch carry no ordering), and without
// __threadfence() nothing orders one block's counter update before the next block's.
extern "C" __global__ void lock_cas_nofence(int* lock, int* counter)
{
    if (threadIdx.x == 0) {
        while (atomicCAS(lock, 0, 1) != 0) {
        }
        *counter += blockIdx.x + 1;   // DEFECT: no fence after acquiring / before releasing the lock
        atomicExch(lock, 0);
    }
}
