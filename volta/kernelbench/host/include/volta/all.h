// Everything the stand-in torch headers declare; each torch/ATen/c10/pybind11 header name includes this.
#pragma once
#include "core.h"
#include "tensor.h"
#include "dispatch.h"
#include "cuda.h"
#include "bind.h"

namespace at {
template <typename T> struct OpMathType { using type = T; };
template <> struct OpMathType<c10::Half> { using type = float; };
template <> struct OpMathType<c10::BFloat16> { using type = float; };
template <typename T> using opmath_type = typename OpMathType<T>::type;
template <typename T, bool is_cuda = true> struct AccumulateType { using type = T; };
template <bool C> struct AccumulateType<c10::Half, C> { using type = float; };
template <bool C> struct AccumulateType<c10::BFloat16, C> { using type = float; };
template <bool C> struct AccumulateType<float, C> { using type = float; };
template <typename T, bool is_cuda = true> using acc_type = typename AccumulateType<T, is_cuda>::type;
inline int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }
}  // namespace at

namespace torch {
using namespace at;
namespace cuda {
inline bool is_available() { return true; }
inline int device_count() { return 1; }
inline void synchronize(int = -1) { cudaDeviceSynchronize(); }
}  // namespace cuda
}  // namespace torch

#include "realfns.h"   // last: device code's erf/tanh/log/pow become the real functions
