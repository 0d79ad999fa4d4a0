// nvcc -ptx -lineinfo -arch=sm_90 packed_int.cu -o packed_int.sm90.ptx   (nvcc 13; .s16x2/.u16x2 need sm_90)
// Two 16-bit integers packed in one register are not one number (machine._real_compute refuses them on data).
#define I (blockIdx.x * blockDim.x + threadIdx.x)
extern "C" __global__ void max_packed(const int* a, const int* b, int* out, int n) { int i = I; int r; asm("max.s16x2 %0, %1, %2;" : "=r"(r) : "r"(a[i]), "r"(b[i])); if (i < n) out[i] = r; }
extern "C" __global__ void add_packed(const int* a, const int* b, int* out, int n) { int i = I; int r; asm("add.u16x2 %0, %1, %2;" : "=r"(r) : "r"(a[i]), "r"(b[i])); if (i < n) out[i] = r; }
extern "C" __global__ void max_whole(const int* a, const int* b, int* out, int n) { int i = I; if (i < n) out[i] = max(a[i], b[i]); }
extern "C" __global__ void add_whole(const int* a, const int* b, int* out, int n) { int i = I; if (i < n) out[i] = a[i] + b[i]; }
