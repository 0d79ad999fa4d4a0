// ld.param.s8/.s16 into 64-bit registers (struct fields and scalars): sign-extended. nvcc -arch=sm_80 -ptx
struct S { char a; short b; long long c; };
extern "C" __global__ void k(S s, long long* out) { out[threadIdx.x] = s.a + s.b + s.c; }
extern "C" __global__ void k2(short v, long long* out) { out[threadIdx.x] = (long long)v * 3; }
