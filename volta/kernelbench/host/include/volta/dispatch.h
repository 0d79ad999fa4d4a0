// AT_DISPATCH_*: run a lambda with `scalar_t` bound to the tensor's element type, as ATen/Dispatch.h does.
// A type outside the macro's list raises what torch raises ("... not implemented for 'Half'").
#pragma once
#include "tensor.h"

namespace volta {
inline c10::ScalarType dispatch_type(c10::ScalarType t) { return t; }
inline c10::ScalarType dispatch_type(const at::DeprecatedTypeProperties& t) { return t.scalarType(); }
}  // namespace volta

#define VOLTA_CASE(enum_type, type, ...)                                                                       \
  case enum_type: {                                                                                             \
    using scalar_t = type;                                                                                      \
    return __VA_ARGS__();                                                                                       \
  }
#define VOLTA_DISPATCH(TYPE, NAME, ...)                                                                        \
  [&] {                                                                                                         \
    const auto _st = ::volta::dispatch_type(TYPE);                                                              \
    switch (_st) {                                                                                              \
      __VA_ARGS__                                                                                               \
      default:                                                                                                  \
        AT_ERROR('"', NAME, "\" not implemented for '", ::c10::toString(_st), "'");                             \
    }                                                                                                           \
  }()

#define VOLTA_F(...) VOLTA_CASE(::c10::ScalarType::Double, double, __VA_ARGS__) \
                     VOLTA_CASE(::c10::ScalarType::Float, float, __VA_ARGS__)
#define VOLTA_H(...) VOLTA_CASE(::c10::ScalarType::Half, ::c10::Half, __VA_ARGS__)
#define VOLTA_B(...) VOLTA_CASE(::c10::ScalarType::BFloat16, ::c10::BFloat16, __VA_ARGS__)
#define VOLTA_I(...) VOLTA_CASE(::c10::ScalarType::Byte, uint8_t, __VA_ARGS__) \
                     VOLTA_CASE(::c10::ScalarType::Char, int8_t, __VA_ARGS__) \
                     VOLTA_CASE(::c10::ScalarType::Int, int32_t, __VA_ARGS__) \
                     VOLTA_CASE(::c10::ScalarType::Long, int64_t, __VA_ARGS__) \
                     VOLTA_CASE(::c10::ScalarType::Short, int16_t, __VA_ARGS__)
#define VOLTA_EXTRA(T, ...) VOLTA_CASE(T, decltype(::volta::cpp_type<T>()), __VA_ARGS__)

namespace volta {
template <c10::ScalarType T> auto cpp_type() {
  if constexpr (T == c10::ScalarType::Half) return c10::Half();
  else if constexpr (T == c10::ScalarType::BFloat16) return c10::BFloat16();
  else if constexpr (T == c10::ScalarType::Bool) return bool();
  else if constexpr (T == c10::ScalarType::Float) return float();
  else if constexpr (T == c10::ScalarType::Double) return double();
  else if constexpr (T == c10::ScalarType::Int) return int32_t();
  else if constexpr (T == c10::ScalarType::Long) return int64_t();
  else if constexpr (T == c10::ScalarType::Short) return int16_t();
  else if constexpr (T == c10::ScalarType::Char) return int8_t();
  else return uint8_t();
}
}  // namespace volta

#define AT_DISPATCH_FLOATING_TYPES(TYPE, NAME, ...) VOLTA_DISPATCH(TYPE, NAME, VOLTA_F(__VA_ARGS__))
#define AT_DISPATCH_FLOATING_TYPES_AND_HALF(TYPE, NAME, ...) \
  VOLTA_DISPATCH(TYPE, NAME, VOLTA_F(__VA_ARGS__) VOLTA_H(__VA_ARGS__))
#define AT_DISPATCH_REDUCED_FLOATING_TYPES(TYPE, NAME, ...) \
  VOLTA_DISPATCH(TYPE, NAME, VOLTA_H(__VA_ARGS__) VOLTA_B(__VA_ARGS__))
#define AT_DISPATCH_FLOATING_TYPES_AND(T1, TYPE, NAME, ...) \
  VOLTA_DISPATCH(TYPE, NAME, VOLTA_F(__VA_ARGS__) VOLTA_EXTRA(T1, __VA_ARGS__))
#define AT_DISPATCH_FLOATING_TYPES_AND2(T1, T2, TYPE, NAME, ...) \
  VOLTA_DISPATCH(TYPE, NAME, VOLTA_F(__VA_ARGS__) VOLTA_EXTRA(T1, __VA_ARGS__) VOLTA_EXTRA(T2, __VA_ARGS__))
#define AT_DISPATCH_FLOATING_TYPES_AND3(T1, T2, T3, TYPE, NAME, ...)                                          \
  VOLTA_DISPATCH(TYPE, NAME, VOLTA_F(__VA_ARGS__) VOLTA_EXTRA(T1, __VA_ARGS__) VOLTA_EXTRA(T2, __VA_ARGS__)    \
                 VOLTA_EXTRA(T3, __VA_ARGS__))
#define AT_DISPATCH_FLOATING_TYPES_AND_HALF_AND_BFLOAT16(TYPE, NAME, ...) \
  VOLTA_DISPATCH(TYPE, NAME, VOLTA_F(__VA_ARGS__) VOLTA_H(__VA_ARGS__) VOLTA_B(__VA_ARGS__))
#define AT_DISPATCH_INTEGRAL_TYPES(TYPE, NAME, ...) VOLTA_DISPATCH(TYPE, NAME, VOLTA_I(__VA_ARGS__))
#define AT_DISPATCH_ALL_TYPES(TYPE, NAME, ...) VOLTA_DISPATCH(TYPE, NAME, VOLTA_F(__VA_ARGS__) VOLTA_I(__VA_ARGS__))
#define AT_DISPATCH_ALL_TYPES_AND(T1, TYPE, NAME, ...) \
  VOLTA_DISPATCH(TYPE, NAME, VOLTA_F(__VA_ARGS__) VOLTA_I(__VA_ARGS__) VOLTA_EXTRA(T1, __VA_ARGS__))
#define AT_DISPATCH_ALL_TYPES_AND2(T1, T2, TYPE, NAME, ...)                                                   \
  VOLTA_DISPATCH(TYPE, NAME, VOLTA_F(__VA_ARGS__) VOLTA_I(__VA_ARGS__) VOLTA_EXTRA(T1, __VA_ARGS__)           \
                 VOLTA_EXTRA(T2, __VA_ARGS__))
#define AT_DISPATCH_ALL_TYPES_AND_HALF(TYPE, NAME, ...) \
  VOLTA_DISPATCH(TYPE, NAME, VOLTA_F(__VA_ARGS__) VOLTA_I(__VA_ARGS__) VOLTA_H(__VA_ARGS__))
#define AT_DISPATCH_INTEGRAL_TYPES_AND(T1, TYPE, NAME, ...) \
  VOLTA_DISPATCH(TYPE, NAME, VOLTA_I(__VA_ARGS__) VOLTA_EXTRA(T1, __VA_ARGS__))
#define AT_DISPATCH_ALL_TYPES_AND3(T1, T2, T3, TYPE, NAME, ...)                                               \
  VOLTA_DISPATCH(TYPE, NAME, VOLTA_F(__VA_ARGS__) VOLTA_I(__VA_ARGS__) VOLTA_EXTRA(T1, __VA_ARGS__)           \
                 VOLTA_EXTRA(T2, __VA_ARGS__) VOLTA_EXTRA(T3, __VA_ARGS__))

// the composable form: AT_DISPATCH_SWITCH(x.scalar_type(), "f", AT_DISPATCH_CASE(at::kFloat, [&] { ... }) ...)
#define AT_DISPATCH_SWITCH(TYPE, NAME, ...) VOLTA_DISPATCH(TYPE, NAME, __VA_ARGS__)
#define AT_DISPATCH_CASE(enum_type, ...) VOLTA_EXTRA(enum_type, __VA_ARGS__)
#define AT_DISPATCH_CASE_FLOATING_TYPES(...) \
  AT_DISPATCH_CASE(::c10::ScalarType::Double, __VA_ARGS__) AT_DISPATCH_CASE(::c10::ScalarType::Float, __VA_ARGS__)
#define AT_DISPATCH_CASE_FLOATING_TYPES_AND_HALF(...) \
  AT_DISPATCH_CASE_FLOATING_TYPES(__VA_ARGS__) AT_DISPATCH_CASE(::c10::ScalarType::Half, __VA_ARGS__)
#define AT_DISPATCH_CASE_FLOATING_TYPES_AND(T1, ...) \
  AT_DISPATCH_CASE_FLOATING_TYPES(__VA_ARGS__) AT_DISPATCH_CASE(T1, __VA_ARGS__)
#define AT_DISPATCH_CASE_FLOATING_TYPES_AND2(T1, T2, ...) \
  AT_DISPATCH_CASE_FLOATING_TYPES(__VA_ARGS__) AT_DISPATCH_CASE(T1, __VA_ARGS__) AT_DISPATCH_CASE(T2, __VA_ARGS__)
#define AT_DISPATCH_CASE_INTEGRAL_TYPES(...)                                                                  \
  AT_DISPATCH_CASE(::c10::ScalarType::Byte, __VA_ARGS__) AT_DISPATCH_CASE(::c10::ScalarType::Char, __VA_ARGS__) \
  AT_DISPATCH_CASE(::c10::ScalarType::Int, __VA_ARGS__) AT_DISPATCH_CASE(::c10::ScalarType::Long, __VA_ARGS__)  \
  AT_DISPATCH_CASE(::c10::ScalarType::Short, __VA_ARGS__)
