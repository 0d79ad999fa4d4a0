// One step of a transitive closure over a 0/1 relation `reach` (n x n, thread (i, j) per entry), in one of
// two modes that mode[0] selects: mode 0 seeds row k of `reach` from the edges, mode 1 relaxes through pivot k
// into `next`. The modes touch row k in conflicting ways (mode 0 writes it, mode 1 reads it), but a launch runs
// only one of them: mode[0] is never written, so the accesses under `mode[0] == 0` and `mode[0] != 0` never
// meet, and the kernel has no race.
extern "C" __global__ void closure_modes(const int* mode, const int* edges, int* reach, int* next, int n, int k)
{
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n || j >= n) return;
    if (mode[0] == 0) {
        if (i == k) {
            reach[k * n + j] = edges[k * n + j];          // seed row k
        }
    }
    if (mode[0] != 0) {
        int r = reach[i * n + j], via = reach[i * n + k] * reach[k * n + j];   // 0/1: and
        next[i * n + j] = r + via - r * via;                                  // 0/1: or
    }
}
