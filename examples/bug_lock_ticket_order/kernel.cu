// DEFECTIVE: a ticket lock (atomicAdd draws a ticket, a volatile `serving` counter admits it, fences make the
// hand-over a release/acquire pair). The holder of ticket 0 reads note[0]; block 1 writes note[0] after it
// hands the lock on. If block 1 draws ticket 0, that write races with the next holder's read (block 0 reads
// note[0] whatever its ticket). Lane order gives block 0 ticket 0: only another order of the tickets shows it.
extern "C" __global__ void lock_ticket_order(unsigned* next, volatile unsigned* serving, int* note, int* out)
{
    if (threadIdx.x != 0) return;
    unsigned ticket = atomicAdd(next, 1u);
    while (*serving != ticket) {
    }
    __threadfence();
    if (blockIdx.x == 0) out[0] = note[0];
    __threadfence();
    *serving = ticket + 1;
    if (blockIdx.x == 1) note[0] = 7;   // DEFECT: written after handing the lock on
}
