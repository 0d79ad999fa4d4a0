// Message passing between blocks with st.release.gpu / ld.acquire.gpu on the flag and relaxed payload
// accesses: the release store synchronizes with the acquire load that reads it, at a scope covering both.
__device__ void store_release(int* p, int v) { asm volatile("st.release.gpu.global.s32 [%0], %1;" :: "l"(p), "r"(v) : "memory"); }
__device__ int load_acquire(const int* p) { int v; asm volatile("ld.acquire.gpu.global.s32 %0, [%1];" : "=r"(v) : "l"(p) : "memory"); return v; }
__device__ void store_relaxed(int* p, int v) { asm volatile("st.relaxed.gpu.global.s32 [%0], %1;" :: "l"(p), "r"(v) : "memory"); }
__device__ int load_relaxed(const int* p) { int v; asm volatile("ld.relaxed.gpu.global.s32 %0, [%1];" : "=r"(v) : "l"(p) : "memory"); return v; }

extern "C" __global__ void mp_release_acquire_grid(int* flag, int* data, int* out)
{
    if (threadIdx.x == 0 && blockIdx.x == 0) {
        store_relaxed(data, 42);
        store_release(flag, 1);
    }
    if (threadIdx.x == 0 && blockIdx.x == 1) {
        while (load_acquire(flag) == 0) {
        }
        out[0] = load_relaxed(data);
    }
}
