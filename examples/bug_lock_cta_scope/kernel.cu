// DEFECTIVE: atomicCAS_block / atomicExch_block are .cta-scoped atomics; two blocks using them on one word
// are not atomic with respect to each other (PTX memory model: their scopes do not include each other).
extern "C" __global__ void lock_cta_scope(int* lock, int* counter)
{
    if (threadIdx.x == 0) {
        while (atomicCAS_block(lock, 0, 1) != 0) {   // DEFECT: block scope, but every block takes this lock
        }
        __threadfence();
        *counter += 1;
        __threadfence();
        atomicExch_block(lock, 0);
    }
}
