// Host driver for examples/gemm_mma_sync/kernel.cu: runs the real kernel on the GPU on raw f16 tiles.
//   nvcc -O2 -arch=sm_90 -o gemm_probe gemm_host.cu        (compare_gemm.py builds it)
//   ./gemm_probe A.bin B.bin C.bin M N K                   A: M*K f16 words, B: K*N f16 words, C: M*N f32 out
// Launch as in examples/gemm_mma_sync/manifest.toml: grid (N/16) x (M/16), block 64.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include "../gemm_mma_sync/kernel.cu"

static bool read_all(const char* path, void* dst, size_t bytes)
{
    FILE* f = fopen(path, "rb");
    if (!f) return false;
    size_t got = fread(dst, 1, bytes, f);
    fclose(f);
    return got == bytes;
}

int main(int argc, char** argv)
{
    if (argc != 7) { fprintf(stderr, "usage: gemm_probe A.bin B.bin C.bin M N K\n"); return 2; }
    int M = atoi(argv[4]), N = atoi(argv[5]), K = atoi(argv[6]);
    if (M % 16 || N % 16 || K % 16 || M <= 0 || N <= 0 || K <= 0) { fprintf(stderr, "M, N, K: multiples of 16\n"); return 2; }
    std::vector<unsigned short> A((size_t)M * K), B((size_t)K * N);
    std::vector<float> C((size_t)M * N);
    if (!read_all(argv[1], A.data(), A.size() * 2) || !read_all(argv[2], B.data(), B.size() * 2)) {
        fprintf(stderr, "gemm_probe: cannot read %s / %s\n", argv[1], argv[2]);
        return 2;
    }
    __half *dA, *dB; float* dC;
    cudaMalloc(&dA, A.size() * 2); cudaMalloc(&dB, B.size() * 2); cudaMalloc(&dC, C.size() * 4);
    cudaMemcpy(dA, A.data(), A.size() * 2, cudaMemcpyHostToDevice);
    cudaMemcpy(dB, B.data(), B.size() * 2, cudaMemcpyHostToDevice);
    gemm_mma_sync<<<dim3(N / 16, M / 16), 64>>>(dA, dB, dC, M, N, K);
    cudaError_t err = cudaDeviceSynchronize();
    if (err == cudaSuccess) err = cudaMemcpy(C.data(), dC, C.size() * 4, cudaMemcpyDeviceToHost);
    if (err != cudaSuccess) { fprintf(stderr, "gemm_probe: %s\n", cudaGetErrorString(err)); return 3; }
    FILE* f = fopen(argv[3], "wb");
    if (!f || fwrite(C.data(), 4, C.size(), f) != C.size()) { fprintf(stderr, "gemm_probe: cannot write %s\n", argv[3]); return 2; }
    fclose(f);
    return 0;
}
