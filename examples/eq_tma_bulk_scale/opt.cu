// Hopper bulk async copy (sm_90): thread 0 arms an mbarrier with the expected byte count and issues
// cp.async.bulk global -> shared; every thread waits on the mbarrier phase, then scales its element.
#include <cstdint>
#define CHUNK 256   // floats per block (1 KB)

extern "C" __global__ void tma_bulk_copy(const float* __restrict__ in, float* __restrict__ out, float scale)
{
    __shared__ __align__(128) float buf[CHUNK];
    __shared__ __align__(8) uint64_t bar;
    unsigned bar_addr = static_cast<unsigned>(__cvta_generic_to_shared(&bar));
    unsigned buf_addr = static_cast<unsigned>(__cvta_generic_to_shared(buf));
    int tid = threadIdx.x;
    if (tid == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;\n" :: "r"(bar_addr));
        asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
    }
    __syncthreads();
    if (tid == 0) {
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n"
                     :: "r"(bar_addr), "r"(CHUNK * 4) : "memory");
        asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n"
                     :: "r"(buf_addr), "l"(in + blockIdx.x * CHUNK), "r"(CHUNK * 4), "r"(bar_addr) : "memory");
    }
    asm volatile(
        "{\n"
        ".reg .pred done;\n"
        "WAIT_LOOP:\n"
        "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], 0;\n"
        "@!done bra WAIT_LOOP;\n"
        "}\n" :: "r"(bar_addr) : "memory");
    out[blockIdx.x * CHUNK + tid] = buf[tid] * scale;
}
