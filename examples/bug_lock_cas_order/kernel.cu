// DEFECTIVE: thread 0 of each block takes a fenced atomicCAS spin lock (a correct release/acquire pair).
// Inside it, block 0 reads note[0]; block 1 writes note[0] only after releasing the lock. When block 0 wins
// the lock first, block 1's write comes after block 0's release and is ordered; when block 1 wins first, its
// write after the release races with block 0's read. Lane order always lets block 0 win: only another
// schedule of the CAS shows the race.
extern "C" __global__ void lock_cas_order(int* lock, int* count, int* note, int* out)
{
    if (threadIdx.x != 0) return;
    while (atomicCAS(lock, 0, 1) != 0) {
    }
    __threadfence();
    count[0] += 1;
    if (blockIdx.x == 0) out[0] = note[0];
    __threadfence();
    atomicExch(lock, 0);
    if (blockIdx.x == 1) note[0] = 7;   // DEFECT: written outside the lock
}
