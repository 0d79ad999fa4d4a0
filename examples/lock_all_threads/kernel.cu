// Every thread of every block takes one global spin lock (lanes of one warp contend too: safe under
// independent thread scheduling, sm_70+, when the critical section sits inside the loop). The winner's
// critical section runs while the others retry; fences make the lock a release/acquire pair.
extern "C" __global__ void lock_all_threads(int* lock, int* counter)
{
    bool done = false;
    while (!done) {
        if (atomicCAS(lock, 0, 1) == 0) {
            __threadfence();
            *counter += 1;
            __threadfence();
            atomicExch(lock, 0);
            done = true;
        }
    }
}
