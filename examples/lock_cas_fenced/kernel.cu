// A global spin lock: atomicCAS acquires, atomicExch releases, __threadfence() on both sides of the
// critical section makes the lock a release/acquire pair at gpu scope (PTX memory model), so the plain
// counter update is ordered between blocks. The lock spins: other blocks must run while one waits.
extern "C" __global__ void lock_cas_fenced(int* lock, int* counter)
{
    if (threadIdx.x == 0) {
        while (atomicCAS(lock, 0, 1) != 0) {
        }
        __threadfence();
        *counter += blockIdx.x + 1;
        __threadfence();
        atomicExch(lock, 0);
    }
}
