// mma_probe: single dot products through real tensor-core mma.sync, one result word per line.
//
//   nvcc -O2 -arch=sm_80 -o mma_probe mma_probe.cu      (sm_80, sm_86, sm_89, sm_90 ...)
//   ./mma_probe --in bf16|f16|tf32|e4m3|e5m2 [--acc f32|f16] BATCH      (e4m3/e5m2: sm_89 or newer)
//
// BATCH has the format of `volta mma --batch`: one `a-words ; b-words ; c-word` per line (hex words of the
// input format; tf32 words are f32 bit patterns; c in hex of the accumulator format; blank and # lines skipped).
// Each line is one dot product d = c + sum a[k]*b[k]: the vector goes into row 0 of A and column 0 of B (the
// rest of A, B and C is zero), zero-padded to whole instructions, and run through
//   mma.sync.aligned.m16n8k16.row.col.f32.{bf16,f16}.{bf16,f16}.f32   (K = 16 per instruction)
//   mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16                 (--in f16 --acc f16)
//   mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32                (K = 8 per instruction)
//   mma.sync.aligned.m16n8k32.row.col.{f32,f16}.{e4m3,e5m2}.{e4m3,e5m2}.{f32,f16}   (K = 32 per instruction)
// Longer lines (K = 32 group-boundary cases, up to KMAX) chain instructions through the accumulator, as a
// kernel looping over K does. Output: D[0][0] per line, %08x (f32) or %04x (f16), so that
//   diff <(./mma_probe --in bf16 b.txt) <(volta mma --arch ampere --in bf16 --acc f32 --batch b.txt)
// compares the hardware with the model. One warp per line; all 32 lanes take part in every mma.
//
// Fragment layouts (PTX ISA, "Matrix fragments for mma.m16n8k16 / m16n8k8"), g = lane>>2, t = lane&3:
//   k16 A: a0 = A[g][2t,2t+1], a1 = A[g+8][2t,2t+1], a2 = A[g][2t+8,2t+9], a3 = A[g+8][2t+8,2t+9]
//   k16 B: b0 = B[2t,2t+1][g], b1 = B[2t+8,2t+9][g]          (lower k in the low half of each .b32)
//   k8 tf32 A: a0 = A[g][t], a1 = A[g+8][t], a2 = A[g][t+4], a3 = A[g+8][t+4]; B: b0 = B[t][g], b1 = B[t+4][g]
//   k32 fp8 A: a0 = A[g][4t..4t+3], a1 = A[g+8][4t..], a2 = A[g][4t+16..4t+19], a3 = A[g+8][4t+16..]
//   k32 fp8 B: b0 = B[4t..4t+3][g], b1 = B[4t+16..4t+19][g]   (lowest k in the lowest byte of each .b32)
//   C/D f32: c0,c1 = C[g][2t,2t+1], c2,c3 = C[g+8][2t,2t+1];  f16: c0 = C[g][2t,2t+1], c1 = C[g+8][2t,2t+1]
// Only lanes with g == 0 (lanes 0..3) hold row 0 of A / column 0 of B; D[0][0] is lane 0's d0.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#define KMAX 64

enum Mode { BF16_F32 = 0, F16_F32 = 1, F16_F16 = 2, TF32_F32 = 3, E4M3_F32 = 4, E5M2_F32 = 5, E4M3_F16 = 6,
            E5M2_F16 = 7 };

__device__ __forceinline__ uint32_t pack2(const uint32_t* v, int k) { return (v[k] & 0xffffu) | (v[k + 1] << 16); }
__device__ __forceinline__ uint32_t pack4(const uint32_t* v, int k)
{
    return (v[k] & 0xffu) | ((v[k + 1] & 0xffu) << 8) | ((v[k + 2] & 0xffu) << 16) | (v[k + 3] << 24);
}

#define MMA_FP8_F32(T)                                                                                   \
    asm volatile("mma.sync.aligned.m16n8k32.row.col.f32." T "." T ".f32 "                                \
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"                     \
                 : "+f"(f0), "+f"(f1), "+f"(f2), "+f"(f3)                                                \
                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1))
#define MMA_FP8_F16(T)                                                                                   \
    asm volatile("mma.sync.aligned.m16n8k32.row.col.f16." T "." T ".f16 "                                \
                 "{%0, %1}, {%2, %3, %4, %5}, {%6, %7}, {%0, %1};\n"                                     \
                 : "+r"(d0), "+r"(d1)                                                                    \
                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1))

// a, b: n lines of KMAX words each (zero-padded); c: n accumulator words; d: n result words.
extern "C" __global__ void mma_probe(const uint32_t* __restrict__ a, const uint32_t* __restrict__ b,
                                     const uint32_t* __restrict__ c, uint32_t* __restrict__ d, int n, int steps,
                                     int mode)
{
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    int lane = threadIdx.x & 31;
    if (warp >= n) return;  // whole warps leave together: mma.sync needs all 32 lanes
    const uint32_t* av = a + (size_t)warp * KMAX;
    const uint32_t* bv = b + (size_t)warp * KMAX;
    int g = lane >> 2, t = lane & 3;
    bool row0 = g == 0;
    uint32_t d0 = lane == 0 ? c[warp] : 0u, d1 = 0u, d2 = 0u, d3 = 0u;
    for (int s = 0; s < steps; ++s) {
        if (mode >= E4M3_F32) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
            const uint32_t* ak = av + 32 * s;
            const uint32_t* bk = bv + 32 * s;
            uint32_t a0 = row0 ? pack4(ak, 4 * t) : 0u, a2 = row0 ? pack4(ak, 4 * t + 16) : 0u, a1 = 0u, a3 = 0u;
            uint32_t b0 = row0 ? pack4(bk, 4 * t) : 0u, b1 = row0 ? pack4(bk, 4 * t + 16) : 0u;
            if (mode == E4M3_F16) { MMA_FP8_F16("e4m3"); continue; }
            if (mode == E5M2_F16) { MMA_FP8_F16("e5m2"); continue; }
            float f0 = __uint_as_float(d0), f1 = __uint_as_float(d1), f2 = __uint_as_float(d2), f3 = __uint_as_float(d3);
            if (mode == E4M3_F32) MMA_FP8_F32("e4m3"); else MMA_FP8_F32("e5m2");
            d0 = __float_as_uint(f0); d1 = __float_as_uint(f1); d2 = __float_as_uint(f2); d3 = __float_as_uint(f3);
#endif
            continue;
        }
        if (mode == TF32_F32) {
            const uint32_t* ak = av + 8 * s;
            const uint32_t* bk = bv + 8 * s;
            uint32_t a0 = row0 ? ak[t] : 0u, a2 = row0 ? ak[t + 4] : 0u, a1 = 0u, a3 = 0u;
            uint32_t b0 = row0 ? bk[t] : 0u, b1 = row0 ? bk[t + 4] : 0u;
            float f0 = __uint_as_float(d0), f1 = __uint_as_float(d1), f2 = __uint_as_float(d2), f3 = __uint_as_float(d3);
            asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 "
                         "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                         : "+f"(f0), "+f"(f1), "+f"(f2), "+f"(f3)
                         : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
            d0 = __float_as_uint(f0); d1 = __float_as_uint(f1); d2 = __float_as_uint(f2); d3 = __float_as_uint(f3);
            continue;
        }
        const uint32_t* ak = av + 16 * s;
        const uint32_t* bk = bv + 16 * s;
        uint32_t a0 = row0 ? pack2(ak, 2 * t) : 0u, a2 = row0 ? pack2(ak, 2 * t + 8) : 0u, a1 = 0u, a3 = 0u;
        uint32_t b0 = row0 ? pack2(bk, 2 * t) : 0u, b1 = row0 ? pack2(bk, 2 * t + 8) : 0u;
        if (mode == F16_F16) {
            // f16 accumulator: d0 = {C[g][2t] (low), C[g][2t+1] (high)}, d1 = row g+8
            asm volatile("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 "
                         "{%0, %1}, {%2, %3, %4, %5}, {%6, %7}, {%0, %1};\n"
                         : "+r"(d0), "+r"(d1)
                         : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
            continue;
        }
        float f0 = __uint_as_float(d0), f1 = __uint_as_float(d1), f2 = __uint_as_float(d2), f3 = __uint_as_float(d3);
        if (mode == BF16_F32) {
            asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
                         "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                         : "+f"(f0), "+f"(f1), "+f"(f2), "+f"(f3)
                         : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
        } else {
            asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
                         "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                         : "+f"(f0), "+f"(f1), "+f"(f2), "+f"(f3)
                         : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
        }
        d0 = __float_as_uint(f0); d1 = __float_as_uint(f1); d2 = __float_as_uint(f2); d3 = __float_as_uint(f3);
    }
    bool f16acc = mode == F16_F16 || mode == E4M3_F16 || mode == E5M2_F16;
    if (lane == 0) d[warp] = f16acc ? (d0 & 0xffffu) : d0;
}

#ifndef MMA_PROBE_NO_MAIN
#define CHECK(x)                                                                                   \
    do {                                                                                           \
        cudaError_t e_ = (x);                                                                      \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "mma_probe: %s: %s\n", #x, cudaGetErrorString(e_));                    \
            return 3;                                                                              \
        }                                                                                          \
    } while (0)

static int parse_words(const std::string& field, std::vector<uint32_t>& out, unsigned long limit,
                       const char* path, int lineno)
{
    size_t pos = 0;
    while (pos <= field.size()) {
        size_t comma = field.find(',', pos);
        std::string tok = field.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
        char* end = nullptr;
        const char* s = tok.c_str();
        while (*s == ' ' || *s == '\t') ++s;
        unsigned long w = strtoul(s, &end, 16);
        while (end && (*end == ' ' || *end == '\t' || *end == '\r')) ++end;
        if (end == s || (end && *end) || w > limit) {
            fprintf(stderr, "%s:%d: bad hex word '%s'\n", path, lineno, tok.c_str());
            return -1;
        }
        out.push_back((uint32_t)w);
        if (comma == std::string::npos) break;
        pos = comma + 1;
    }
    return 0;
}

int main(int argc, char** argv)
{
    const char* in = nullptr;
    const char* acc = "f32";
    const char* path = nullptr;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--in") && i + 1 < argc) in = argv[++i];
        else if (!strcmp(argv[i], "--acc") && i + 1 < argc) acc = argv[++i];
        else if (argv[i][0] != '-' && !path) path = argv[i];
        else { path = nullptr; in = nullptr; break; }
    }
    int mode = -1;
    if (in && !strcmp(acc, "f32")) mode = !strcmp(in, "bf16") ? BF16_F32 : !strcmp(in, "f16") ? F16_F32
                                          : !strcmp(in, "tf32") ? TF32_F32 : -1;
    if (in && !strcmp(acc, "f16") && !strcmp(in, "f16")) mode = F16_F16;
    if (in && !strcmp(in, "e4m3")) mode = !strcmp(acc, "f32") ? E4M3_F32 : !strcmp(acc, "f16") ? E4M3_F16 : -1;
    if (in && !strcmp(in, "e5m2")) mode = !strcmp(acc, "f32") ? E5M2_F32 : !strcmp(acc, "f16") ? E5M2_F16 : -1;
    if (!path || mode < 0) {
        fprintf(stderr, "usage: mma_probe --in bf16|f16|tf32|e4m3|e5m2 [--acc f32|f16 (f16 only with --in f16, "
                        "e4m3, e5m2)] BATCH\n");
        return 2;
    }
    if (mode >= E4M3_F32) {
        cudaDeviceProp prop;
        CHECK(cudaGetDeviceProperties(&prop, 0));
        if (prop.major * 10 + prop.minor < 89) {
            fprintf(stderr, "mma_probe: fp8 mma.sync needs sm_89 or newer (this GPU is sm_%d%d)\n", prop.major,
                    prop.minor);
            return 2;
        }
    }
    FILE* fh = fopen(path, "r");
    if (!fh) { fprintf(stderr, "mma_probe: cannot read %s\n", path); return 2; }
    bool fp8 = mode >= E4M3_F32, f16acc = mode == F16_F16 || mode == E4M3_F16 || mode == E5M2_F16;
    int instk = mode == TF32_F32 ? 8 : fp8 ? 32 : 16;
    unsigned long in_limit = mode == TF32_F32 ? 0xffffffffUL : fp8 ? 0xffUL : 0xffffUL;
    unsigned long acc_limit = f16acc ? 0xffffUL : 0xffffffffUL;
    std::vector<uint32_t> A, B, C;
    int maxk = 1, lineno = 0;
    char buf[1 << 16];
    while (fgets(buf, sizeof buf, fh)) {
        ++lineno;
        std::string line(buf);
        while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
        size_t first = line.find_first_not_of(" \t");
        if (first == std::string::npos || line[first] == '#') continue;
        size_t s1 = line.find(';'), s2 = s1 == std::string::npos ? s1 : line.find(';', s1 + 1);
        if (s2 == std::string::npos || line.find(';', s2 + 1) != std::string::npos) {
            fprintf(stderr, "%s:%d: expected 'a-words ; b-words ; c-word'\n", path, lineno);
            return 2;
        }
        std::vector<uint32_t> a, b, c;
        if (parse_words(line.substr(0, s1), a, in_limit, path, lineno) ||
            parse_words(line.substr(s1 + 1, s2 - s1 - 1), b, in_limit, path, lineno) ||
            parse_words(line.substr(s2 + 1), c, acc_limit, path, lineno))
            return 2;
        if (a.size() != b.size() || c.size() != 1 || a.size() > KMAX) {
            fprintf(stderr, "%s:%d: need equal a and b (at most %d words) and one c word\n", path, lineno, KMAX);
            return 2;
        }
        if ((int)a.size() > maxk) maxk = (int)a.size();
        a.resize(KMAX, 0u);
        b.resize(KMAX, 0u);
        A.insert(A.end(), a.begin(), a.end());
        B.insert(B.end(), b.begin(), b.end());
        C.push_back(c[0]);
    }
    fclose(fh);
    int n = (int)C.size();
    if (n == 0) return 0;
    int steps = (maxk + instk - 1) / instk;  // zero words past a line's K add nothing
    uint32_t *dA, *dB, *dC, *dD;
    CHECK(cudaMalloc(&dA, A.size() * 4));
    CHECK(cudaMalloc(&dB, B.size() * 4));
    CHECK(cudaMalloc(&dC, C.size() * 4));
    CHECK(cudaMalloc(&dD, C.size() * 4));
    CHECK(cudaMemcpy(dA, A.data(), A.size() * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dB, B.data(), B.size() * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dC, C.data(), C.size() * 4, cudaMemcpyHostToDevice));
    int threads = 128, blocks = (n * 32 + threads - 1) / threads;
    mma_probe<<<blocks, threads>>>(dA, dB, dC, dD, n, steps, mode);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    std::vector<uint32_t> D(n);
    CHECK(cudaMemcpy(D.data(), dD, n * 4, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) printf(f16acc ? "%04x\n" : "%08x\n", D[i]);
    return 0;
}
#endif
