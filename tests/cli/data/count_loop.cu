// nvcc -ptx -arch=sm_80 count_loop.cu -o count_loop.ptx
// One thread, a long loop on integers only: millions of steps with no tensor data (no step cap by default).
extern "C" __global__ void count_loop(unsigned *out, unsigned n) {
    unsigned acc = 0;
    for (unsigned i = 0; i < n; ++i) acc = acc * 3u + i;
    out[0] = acc;
}
