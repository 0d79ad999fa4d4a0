// erf, tanh, the logarithms, expm1 and pow in device code, read as the real functions.
//
// libdevice computes them as piecewise approximations (a polynomial here, an exponent split there), which are
// not the real functions: over the reals a correct `logf(x)` kernel would differ from the reference's
// torch.log by the polynomial's error. In device code they become calls of functions with no body, which
// Volta reads as the real functions the reference's torch ops build (volta/kernelbench/libm.py). Host code
// keeps libm's. A build for a concrete, bit-exact replay defines VOLTA_LIBDEVICE (host/build.py:
// build(libdevice=True)) and gets libdevice's code, what the GPU runs.
//
// Included last by all.h, so the stand-in's own declarations (Tensor::log, Tensor::pow) are not renamed;
// the names are chosen so that none contains another (the reading matches them inside mangled names).
#pragma once
#if defined(__CUDA_ARCH__) && !defined(VOLTA_LIBDEVICE)
#define VOLTA_REAL_FUNCTION(name) __device__ float name(float); __device__ double name(double);
VOLTA_REAL_FUNCTION(__volta_erf)
VOLTA_REAL_FUNCTION(__volta_tanh)
VOLTA_REAL_FUNCTION(__volta_log_e)
VOLTA_REAL_FUNCTION(__volta_log_1p)
VOLTA_REAL_FUNCTION(__volta_log_2)
VOLTA_REAL_FUNCTION(__volta_log_10)
VOLTA_REAL_FUNCTION(__volta_expm1)
#undef VOLTA_REAL_FUNCTION
__device__ float __volta_pow(float, float);
__device__ double __volta_pow(double, double);
namespace std {
using ::__volta_erf;
using ::__volta_tanh;
using ::__volta_log_e;
using ::__volta_log_1p;
using ::__volta_log_2;
using ::__volta_log_10;
using ::__volta_expm1;
using ::__volta_pow;
}  // namespace std
#define erff(x) __volta_erf(x)
#define erf(x) __volta_erf(x)
#define tanhf(x) __volta_tanh(x)
#define tanh(x) __volta_tanh(x)
#define logf(x) __volta_log_e(x)
#define log(x) __volta_log_e(x)
#define log1pf(x) __volta_log_1p(x)
#define log1p(x) __volta_log_1p(x)
#define log2f(x) __volta_log_2(x)
#define log2(x) __volta_log_2(x)
#define log10f(x) __volta_log_10(x)
#define log10(x) __volta_log_10(x)
#define expm1f(x) __volta_expm1(x)
#define expm1(x) __volta_expm1(x)
#define powf(x, y) __volta_pow(x, y)
#define pow(x, y) __volta_pow(x, y)
#endif
