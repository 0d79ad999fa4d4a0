// Volta's stand-in for the core of c10: scalar types, Half/BFloat16, Scalar, errors and checks.
//
// Candidate extensions are compiled against these headers instead of libtorch's, so their host code runs
// on a machine with no GPU and no torch: tensors carry metadata and a fake device address, and every
// allocation, launch and torch op is recorded in a trace that Volta executes symbolically
// (volta/kernelbench/host/README.md says what is modelled). Device code sees only Half/BFloat16.
#pragma once
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>

#include <math.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

// erf, tanh, the logarithms, expm1 and pow in device code: volta/realfns.h (included last by all.h)

namespace c10 {

enum class ScalarType : int8_t {
  Byte = 0, Char = 1, Short = 2, Int = 3, Long = 4, Half = 5, Float = 6, Double = 7, Bool = 11, BFloat16 = 15,
  Undefined = 127
};

inline const char* toString(ScalarType t) {
  switch (t) {
    case ScalarType::Byte: return "Byte";
    case ScalarType::Char: return "Char";
    case ScalarType::Short: return "Short";
    case ScalarType::Int: return "Int";
    case ScalarType::Long: return "Long";
    case ScalarType::Half: return "Half";
    case ScalarType::Float: return "Float";
    case ScalarType::Double: return "Double";
    case ScalarType::Bool: return "Bool";
    case ScalarType::BFloat16: return "BFloat16";
    default: return "Undefined";
  }
}

inline size_t elementSize(ScalarType t) {
  switch (t) {
    case ScalarType::Byte: case ScalarType::Char: case ScalarType::Bool: return 1;
    case ScalarType::Short: case ScalarType::Half: case ScalarType::BFloat16: return 2;
    case ScalarType::Int: case ScalarType::Float: return 4;
    default: return 8;
  }
}

inline std::ostream& operator<<(std::ostream& os, ScalarType t) { return os << toString(t); }

// ---- 16-bit floats: storage types with float arithmetic, host and device (as c10 defines them) ----
struct alignas(2) Half {
  unsigned short x;
  Half() = default;
  __host__ __device__ Half(float f) { __half_raw r = __half(__float2half(f)); x = r.x; }
  __host__ __device__ Half(const __half& h) { __half_raw r = h; x = r.x; }
  __host__ __device__ operator float() const { __half_raw r; r.x = x; return __half2float(__half(r)); }
  __host__ __device__ operator __half() const { __half_raw r; r.x = x; return __half(r); }
};

struct alignas(2) BFloat16 {
  unsigned short x;
  BFloat16() = default;
  __host__ __device__ BFloat16(float f) { __nv_bfloat16_raw r = __nv_bfloat16(__float2bfloat16(f)); x = r.x; }
  __host__ __device__ BFloat16(const __nv_bfloat16& h) { __nv_bfloat16_raw r = h; x = r.x; }
  __host__ __device__ operator float() const {
    __nv_bfloat16_raw r; r.x = x; return __bfloat162float(__nv_bfloat16(r));
  }
  __host__ __device__ operator __nv_bfloat16() const { __nv_bfloat16_raw r; r.x = x; return __nv_bfloat16(r); }
};

#define VOLTA_HALF_OPS(T) \
  inline __host__ __device__ T operator+(const T& a, const T& b) { return float(a) + float(b); } \
  inline __host__ __device__ T& operator+=(T& a, const T& b) { a = a + b; return a; } \
  inline __host__ __device__ float operator+(T a, float b) { return static_cast<float>(float(a)) + b; } \
  inline __host__ __device__ float operator+(float a, T b) { return a + static_cast<float>(float(b)); } \
  inline __host__ __device__ float& operator+=(float& a, const T& b) { return a += static_cast<float>(float(b)); } \
  inline __host__ __device__ double operator+(T a, double b) { return static_cast<double>(float(a)) + b; } \
  inline __host__ __device__ double operator+(double a, T b) { return a + static_cast<double>(float(b)); } \
  inline __host__ __device__ double& operator+=(double& a, const T& b) { return a += static_cast<double>(float(b)); } \
  inline __host__ __device__ T operator+(T a, int b) { return float(a) + static_cast<float>(b); } \
  inline __host__ __device__ T operator+(int a, T b) { return static_cast<float>(a) + float(b); } \
  inline __host__ __device__ T operator+(T a, int64_t b) { return float(a) + static_cast<float>(b); } \
  inline __host__ __device__ T operator+(int64_t a, T b) { return static_cast<float>(a) + float(b); } \
  inline __host__ __device__ T operator-(const T& a, const T& b) { return float(a) - float(b); } \
  inline __host__ __device__ T& operator-=(T& a, const T& b) { a = a - b; return a; } \
  inline __host__ __device__ float operator-(T a, float b) { return static_cast<float>(float(a)) - b; } \
  inline __host__ __device__ float operator-(float a, T b) { return a - static_cast<float>(float(b)); } \
  inline __host__ __device__ float& operator-=(float& a, const T& b) { return a -= static_cast<float>(float(b)); } \
  inline __host__ __device__ double operator-(T a, double b) { return static_cast<double>(float(a)) - b; } \
  inline __host__ __device__ double operator-(double a, T b) { return a - static_cast<double>(float(b)); } \
  inline __host__ __device__ double& operator-=(double& a, const T& b) { return a -= static_cast<double>(float(b)); } \
  inline __host__ __device__ T operator-(T a, int b) { return float(a) - static_cast<float>(b); } \
  inline __host__ __device__ T operator-(int a, T b) { return static_cast<float>(a) - float(b); } \
  inline __host__ __device__ T operator-(T a, int64_t b) { return float(a) - static_cast<float>(b); } \
  inline __host__ __device__ T operator-(int64_t a, T b) { return static_cast<float>(a) - float(b); } \
  inline __host__ __device__ T operator*(const T& a, const T& b) { return float(a) * float(b); } \
  inline __host__ __device__ T& operator*=(T& a, const T& b) { a = a * b; return a; } \
  inline __host__ __device__ float operator*(T a, float b) { return static_cast<float>(float(a)) * b; } \
  inline __host__ __device__ float operator*(float a, T b) { return a * static_cast<float>(float(b)); } \
  inline __host__ __device__ float& operator*=(float& a, const T& b) { return a *= static_cast<float>(float(b)); } \
  inline __host__ __device__ double operator*(T a, double b) { return static_cast<double>(float(a)) * b; } \
  inline __host__ __device__ double operator*(double a, T b) { return a * static_cast<double>(float(b)); } \
  inline __host__ __device__ double& operator*=(double& a, const T& b) { return a *= static_cast<double>(float(b)); } \
  inline __host__ __device__ T operator*(T a, int b) { return float(a) * static_cast<float>(b); } \
  inline __host__ __device__ T operator*(int a, T b) { return static_cast<float>(a) * float(b); } \
  inline __host__ __device__ T operator*(T a, int64_t b) { return float(a) * static_cast<float>(b); } \
  inline __host__ __device__ T operator*(int64_t a, T b) { return static_cast<float>(a) * float(b); } \
  inline __host__ __device__ T operator/(const T& a, const T& b) { return float(a) / float(b); } \
  inline __host__ __device__ T& operator/=(T& a, const T& b) { a = a / b; return a; } \
  inline __host__ __device__ float operator/(T a, float b) { return static_cast<float>(float(a)) / b; } \
  inline __host__ __device__ float operator/(float a, T b) { return a / static_cast<float>(float(b)); } \
  inline __host__ __device__ float& operator/=(float& a, const T& b) { return a /= static_cast<float>(float(b)); } \
  inline __host__ __device__ double operator/(T a, double b) { return static_cast<double>(float(a)) / b; } \
  inline __host__ __device__ double operator/(double a, T b) { return a / static_cast<double>(float(b)); } \
  inline __host__ __device__ double& operator/=(double& a, const T& b) { return a /= static_cast<double>(float(b)); } \
  inline __host__ __device__ T operator/(T a, int b) { return float(a) / static_cast<float>(b); } \
  inline __host__ __device__ T operator/(int a, T b) { return static_cast<float>(a) / float(b); } \
  inline __host__ __device__ T operator/(T a, int64_t b) { return float(a) / static_cast<float>(b); } \
  inline __host__ __device__ T operator/(int64_t a, T b) { return static_cast<float>(a) / float(b); } \
  inline __host__ __device__ T operator-(const T& a) { return -float(a); }
VOLTA_HALF_OPS(Half)
VOLTA_HALF_OPS(BFloat16)
#undef VOLTA_HALF_OPS

// ---- Scalar: a number given to a torch op ----
class Scalar {
 public:
  Scalar() : v_(0), integral_(true) {}
  template <typename T, typename = std::enable_if_t<std::is_arithmetic<T>::value>>
  Scalar(T v) : v_(static_cast<double>(v)), integral_(std::is_integral<T>::value) {}
  Scalar(Half v) : v_(float(v)), integral_(false) {}
  Scalar(BFloat16 v) : v_(float(v)), integral_(false) {}
  double toDouble() const { return v_; }
  float toFloat() const { return static_cast<float>(v_); }
  int64_t toLong() const { return static_cast<int64_t>(v_); }
  int toInt() const { return static_cast<int>(v_); }
  bool isIntegral(bool = false) const { return integral_; }
  bool isFloatingPoint() const { return !integral_; }
  template <typename T> T to() const { return static_cast<T>(v_); }

 private:
  double v_;
  bool integral_;
};

// ---- errors: TORCH_CHECK throws c10::Error; the bridge turns it into the RuntimeError torch would raise ----
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& what) : std::runtime_error(what) {}
  const char* what_without_backtrace() const noexcept { return what(); }
};
class IndexError : public Error { using Error::Error; };
class ValueError : public Error { using Error::Error; };
class TypeError : public Error { using Error::Error; };
class NotImplementedError : public Error { using Error::Error; };

namespace detail {
inline void cat_into(std::ostringstream&) {}
template <typename T, typename... R>
void cat_into(std::ostringstream& os, const T& x, const R&... rest) { os << x; cat_into(os, rest...); }
template <typename... A>
std::string str(const A&... args) { std::ostringstream os; cat_into(os, args...); return os.str(); }
[[noreturn]] void torch_check_fail(const char* file, int line, const std::string& msg);
}  // namespace detail

template <typename T> using optional = std::optional<T>;
using std::nullopt;
// ArrayRef owns a copy here (torch's is a view); what host code does with one is the same.
template <typename T>
class ArrayRef {
 public:
  ArrayRef() = default;
  ArrayRef(std::initializer_list<T> v) : v_(v) {}
  ArrayRef(const std::vector<T>& v) : v_(v) {}
  ArrayRef(const T& one) : v_{one} {}
  ArrayRef(const T* data, size_t n) : v_(data, data + n) {}
  template <size_t N> ArrayRef(const T (&a)[N]) : v_(a, a + N) {}
  size_t size() const { return v_.size(); }
  bool empty() const { return v_.empty(); }
  const T& operator[](size_t i) const { return v_[i]; }
  const T& at(size_t i) const { return v_.at(i); }
  const T& front() const { return v_.front(); }
  const T& back() const { return v_.back(); }
  const T* data() const { return v_.data(); }
  typename std::vector<T>::const_iterator begin() const { return v_.begin(); }
  typename std::vector<T>::const_iterator end() const { return v_.end(); }
  std::vector<T> vec() const { return v_; }
  operator std::vector<T>() const { return v_; }
  bool equals(const ArrayRef& o) const { return v_ == o.v_; }
  bool operator==(const ArrayRef& o) const { return v_ == o.v_; }
  bool operator!=(const ArrayRef& o) const { return v_ != o.v_; }
  ArrayRef slice(size_t start) const { return ArrayRef(std::vector<T>(v_.begin() + start, v_.end())); }
  ArrayRef slice(size_t start, size_t n) const {
    return ArrayRef(std::vector<T>(v_.begin() + start, v_.begin() + start + n));
  }

 private:
  std::vector<T> v_;
};
using IntArrayRef = ArrayRef<int64_t>;
template <typename T>
std::ostream& operator<<(std::ostream& os, const ArrayRef<T>& a) {
  os << "[";
  for (size_t i = 0; i < a.size(); ++i) os << (i ? ", " : "") << a[i];
  return os << "]";
}
}  // namespace c10

namespace caffe2 { using TypeMeta = c10::ScalarType; }

#define TORCH_CHECK(cond, ...)                                                                                 \
  do {                                                                                                          \
    if (!(cond)) {                                                                                              \
      ::c10::detail::torch_check_fail(__FILE__, __LINE__,                                                       \
                                      ::c10::detail::str("Expected " #cond " to be true, but got false.  ",    \
                                                         ##__VA_ARGS__));                                       \
    }                                                                                                           \
  } while (0)
#define TORCH_CHECK_VALUE(cond, ...) TORCH_CHECK(cond, ##__VA_ARGS__)
#define TORCH_CHECK_INDEX(cond, ...) TORCH_CHECK(cond, ##__VA_ARGS__)
#define TORCH_CHECK_TYPE(cond, ...) TORCH_CHECK(cond, ##__VA_ARGS__)
#define TORCH_CHECK_NOT_IMPLEMENTED(cond, ...) TORCH_CHECK(cond, ##__VA_ARGS__)
#define TORCH_INTERNAL_ASSERT(cond, ...) TORCH_CHECK(cond, ##__VA_ARGS__)
#define TORCH_INTERNAL_ASSERT_DEBUG_ONLY(cond, ...) TORCH_CHECK(cond, ##__VA_ARGS__)
#define AT_ASSERT(cond, ...) TORCH_CHECK(cond, ##__VA_ARGS__)
#define AT_ASSERTM(cond, ...) TORCH_CHECK(cond, ##__VA_ARGS__)
#define TORCH_CHECK_EQ(a, b) TORCH_CHECK((a) == (b))
#define TORCH_CHECK_NE(a, b) TORCH_CHECK((a) != (b))
#define TORCH_CHECK_LE(a, b) TORCH_CHECK((a) <= (b))
#define TORCH_CHECK_LT(a, b) TORCH_CHECK((a) < (b))
#define TORCH_CHECK_GE(a, b) TORCH_CHECK((a) >= (b))
#define TORCH_CHECK_GT(a, b) TORCH_CHECK((a) > (b))
#define AT_ERROR(...) ::c10::detail::torch_check_fail(__FILE__, __LINE__, ::c10::detail::str(__VA_ARGS__))
#define TORCH_WARN(...) ((void)0)
#define TORCH_WARN_ONCE(...) ((void)0)
#define C10_UNUSED __attribute__((__unused__))
#define C10_HOST_DEVICE __host__ __device__
#define C10_DEVICE __device__
#define C10_HOST __host__
#define C10_LIKELY(x) (x)
#define C10_UNLIKELY(x) (x)
