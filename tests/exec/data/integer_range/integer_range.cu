// nvcc -ptx -lineinfo -arch=sm_80 integer_range.cu -o integer_range.sm80.ptx   (nvcc 13)
// Integer data over the reals (volta/exec/handlers/integer_real.py): instructions that read an integer's number
// (comparisons, min/max, extension, saturation) versus the residue modulo 2^w the polynomial stands for.
__device__ __forceinline__ int mul_lo(int x, int y) { int r; asm("mul.lo.s32 %0, %1, %2;" : "=r"(r) : "r"(x), "r"(y)); return r; }
__device__ __forceinline__ int add_sat(int x, int y) { int r; asm("add.sat.s32 %0, %1, %2;" : "=r"(r) : "r"(x), "r"(y)); return r; }
#define I (blockIdx.x * blockDim.x + threadIdx.x)

// max(a + 1, b + 1) wraps at INT_MAX; max(a, b) + 1 does not
extern "C" __global__ void max_plus_one(const int* a, const int* b, int* out, int n) { int i = I; if (i < n) out[i] = max(a[i] + 1, b[i] + 1); }
extern "C" __global__ void max_then_plus(const int* a, const int* b, int* out, int n) { int i = I; if (i < n) out[i] = max(a[i], b[i]) + 1; }
// the same on bytes: the sums fit, so they are equal
extern "C" __global__ void max_plus_one_u8(const unsigned char* a, const unsigned char* b, int* out, int n) { int i = I; if (i < n) out[i] = max(a[i] + 1, b[i] + 1); }
extern "C" __global__ void max_then_plus_u8(const unsigned char* a, const unsigned char* b, int* out, int n) { int i = I; if (i < n) out[i] = max(a[i], b[i]) + 1; }
// an unsigned comparison of signed data (negative a: 0 and a)
extern "C" __global__ void below_ten_unsigned(const int* a, int* out, int n) { int i = I; if (i < n) out[i] = ((unsigned)a[i] < 10u) ? a[i] : 0; }
extern "C" __global__ void below_ten(const int* a, int* out, int n) { int i = I; if (i < n) out[i] = (a[i] < 10) ? a[i] : 0; }
// a byte sign-extended (ld.global.s8) or zero-extended (ld.global.u8)
extern "C" __global__ void sext_u8(const unsigned char* a, int* out, int n) { int i = I; if (i < n) out[i] = (int)(signed char)a[i]; }
extern "C" __global__ void zext_u8(const unsigned char* a, int* out, int n) { int i = I; if (i < n) out[i] = (int)a[i]; }
// widening a wrapped s32 sum versus summing in 64 bits
extern "C" __global__ void widen_sum(const int* a, const int* b, long long* out, int n) { int i = I; if (i < n) out[i] = (long long)(a[i] + b[i]); }
extern "C" __global__ void widen_each(const int* a, const int* b, long long* out, int n) { int i = I; if (i < n) out[i] = (long long)a[i] + (long long)b[i]; }
// float to int saturates (cvt.rzi.s32.f32); through s64 it wraps (x = 3e9)
extern "C" __global__ void f2i_rz(const float* x, int* out, int n) { int i = I; if (i < n) out[i] = __float2int_rz(x[i]); }
extern "C" __global__ void f2i_via_s64(const float* x, int* out, int n) { int i = I; if (i < n) out[i] = (int)(long long)x[i]; }
// add.sat.s32 clamps to the s32 range, not to [0, 1]
extern "C" __global__ void sum_sat(const int* a, const int* b, int* out, int n) { int i = I; if (i < n) out[i] = add_sat(a[i], b[i]); }
extern "C" __global__ void sum_plain(const int* a, const int* b, int* out, int n) { int i = I; if (i < n) out[i] = a[i] + b[i]; }
extern "C" __global__ void sum_sat_s16(const short* a, const short* b, int* out, int n) { int i = I; if (i < n) out[i] = add_sat(a[i], b[i]); }
extern "C" __global__ void sum_plain_s16(const short* a, const short* b, int* out, int n) { int i = I; if (i < n) out[i] = a[i] + b[i]; }
// a·k·k + a with k = 65536 is a modulo 2^32
extern "C" __global__ void times_k_squared_plus(const int* a, int* out, int n, int k) { int i = I; if (i < n) out[i] = mul_lo(mul_lo(a[i], k), k) + a[i]; }
extern "C" __global__ void same(const int* a, int* out, int n, int k) { int i = I; if (i < n) out[i] = a[i]; }
// atomicMax compares as s32 or as u32: negative data orders differently
extern "C" __global__ void atomic_max(const int* a, int* out, int n) { int i = I; if (i < n) atomicMax(out, a[i]); }
extern "C" __global__ void atomic_max_unsigned(const int* a, int* out, int n) { int i = I; if (i < n) atomicMax((unsigned*)out, (unsigned)a[i]); }
// cvt.s8.s32 into a 32-bit register: the upper bits extend the byte, they are not a's
extern "C" __global__ void cvt_s8_wide(const int* a, int* out, int n) { int i = I; int r; if (i < n) { asm("cvt.s8.s32 %0, %1;" : "=r"(r) : "r"(a[i])); out[i] = r; } }
extern "C" __global__ void keep(const int* a, int* out, int n) { int i = I; if (i < n) out[i] = a[i]; }
// cvt.rzi.s8.f32 into a 32-bit register: how -1 extends there is the register's business, not the reals'
extern "C" __global__ void f2s8_wide(const float* x, int* out, int n) { int i = I; int r; if (i < n) { asm("cvt.rzi.s8.f32 %0, %1;" : "=r"(r) : "f"(x[i])); out[i] = r; } }
extern "C" __global__ void f2s8_clamped(const float* x, int* out, int n) { int i = I; if (i < n) out[i] = max(-128, min(127, __float2int_rz(x[i]))); }
// nvcc writes a * 4 as shl.b32 a, 2: times 2^2 modulo 2^32
extern "C" __global__ void times_four(const int* a, int* out, int n) { int i = I; if (i < n) out[i] = a[i] * 4; }
extern "C" __global__ void four_sums(const int* a, int* out, int n) { int i = I; if (i < n) out[i] = a[i] + a[i] + a[i] + a[i]; }
extern "C" __global__ void three_sums(const int* a, int* out, int n) { int i = I; if (i < n) out[i] = a[i] + a[i] + a[i]; }
// a float rounded to an int is an s32 too: __float2int_rz(x) + 1 wraps at x >= 2^31
extern "C" __global__ void f2i_plus_one_max(const float* x, int* out, int n) { int i = I; if (i < n) out[i] = max(__float2int_rz(x[i]) + 1, 0); }
extern "C" __global__ void f2i_max_plus_one(const float* x, int* out, int n) { int i = I; if (i < n) out[i] = max(__float2int_rz(x[i]), -1) + 1; }
// max(a, 0) of a byte is the byte: no witness may give a u8 element -1
extern "C" __global__ void u8_plain(const unsigned char* a, int* out, int n) { int i = I; if (i < n) out[i] = a[i]; }
extern "C" __global__ void u8_max_zero(const unsigned char* a, int* out, int n) { int i = I; int r; if (i < n) { asm("max.s32 %0, %1, 0;" : "=r"(r) : "r"((int)a[i])); out[i] = r; } }
// a running max seeded with INT_MIN or with the first element: equal on every s32 input (the witness
// a = -2^31 - 1 was no s32)
extern "C" __global__ void max_from_int_min(const int* a, int* out, int n) { int m = -2147483647 - 1; for (int k = 0; k < n; ++k) m = max(m, a[threadIdx.x * n + k]); out[threadIdx.x] = m; }
extern "C" __global__ void max_from_first(const int* a, int* out, int n) { int m = a[threadIdx.x * n]; for (int k = 1; k < n; ++k) m = max(m, a[threadIdx.x * n + k]); out[threadIdx.x] = m; }
