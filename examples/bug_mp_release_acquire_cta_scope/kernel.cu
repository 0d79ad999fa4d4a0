// DEFECTIVE: st.release.cta / ld.acquire.cta on the flag between blocks: a release/acquire pair of block
// scope does not synchronize threads of different blocks, so the relaxed payload read can be stale.
__device__ void store_release_cta(int* p, int v) { asm volatile("st.release.cta.global.s32 [%0], %1;" :: "l"(p), "r"(v) : "memory"); }
__device__ int load_acquire_cta(const int* p) { int v; asm volatile("ld.acquire.cta.global.s32 %0, [%1];" : "=r"(v) : "l"(p) : "memory"); return v; }
__device__ void store_relaxed(int* p, int v) { asm volatile("st.relaxed.gpu.global.s32 [%0], %1;" :: "l"(p), "r"(v) : "memory"); }
__device__ int load_relaxed(const int* p) { int v; asm volatile("ld.relaxed.gpu.global.s32 %0, [%1];" : "=r"(v) : "l"(p) : "memory"); return v; }

extern "C" __global__ void mp_release_acquire_cta_scope(int* flag, int* data, int* out)
{
    if (threadIdx.x == 0 && blockIdx.x == 0) {
        store_relaxed(data, 42);
        store_release_cta(flag, 1);   // DEFECT: .cta scope; the consumer is in another block
    }
    if (threadIdx.x == 0 && blockIdx.x == 1) {
        while (load_acquire_cta(flag) == 0) {
        }
        out[0] = load_relaxed(data);
    }
}
