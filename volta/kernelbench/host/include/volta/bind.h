// The bindings: pybind11's `m.def` and torch's generated module, as calls the Volta worker can make.
//
// Each bound function gets a caller generated from its own C++ signature (a variadic template, never a
// parse of the source): the worker passes an array of tagged `VoltaArg`s (tensor metadata, int, float, bool,
// lists, strings, None) which are converted to the parameter types as pybind11 would convert Python values,
// and the result (a tensor, a tuple or list of tensors, a number, None) comes back as JSON.
#pragma once
#include "tensor.h"

extern "C" {
// mirrored by the ctypes structure in volta/kernelbench/host/worker.py: change both together
enum VoltaArgTag { VOLTA_NONE = 0, VOLTA_TENSOR = 1, VOLTA_INT = 2, VOLTA_FLOAT = 3, VOLTA_BOOL = 4,
                   VOLTA_INTS = 5, VOLTA_FLOATS = 6, VOLTA_STR = 7, VOLTA_TENSORS = 8 };
struct VoltaArg {
  int32_t tag;
  int32_t dtype;            // c10::ScalarType of a tensor
  int64_t i;                // int, bool
  double d;                 // float
  uint64_t base;            // tensor: its storage's fake device address
  int64_t storage_bytes;
  int64_t offset;           // tensor: storage offset in elements
  int32_t ndim;
  int32_t n;                // list length
  int64_t sizes[16];
  int64_t strides[16];
  int64_t ints[16];
  double floats[16];
  const char* str;
  const struct VoltaArg* items;  // a list of tensors: n of them
};
}

namespace volta {
using Caller = std::function<std::string(const VoltaArg*, int)>;
int register_module(const char* name, void (*init)(void* module));
void register_function(const std::string& module, const std::string& name, Caller call);
at::Tensor tensor_from_arg(const VoltaArg& a);
std::string tensor_json(const at::Tensor& t);
[[noreturn]] void bad_argument(size_t index, const char* expected, const VoltaArg& got);

template <typename T> struct is_optional : std::false_type {};
template <typename T> struct is_optional<std::optional<T>> : std::true_type {};
template <typename T> struct is_vector : std::false_type {};
template <typename T> struct is_vector<std::vector<T>> : std::true_type {};
template <typename T> struct is_tuple : std::false_type {};
template <typename... E> struct is_tuple<std::tuple<E...>> : std::true_type {};

// a std::tuple of numbers from a Python tuple or list (pybind11 casts `stride=(1, 1)` to std::tuple<int, int>)
template <typename T, size_t... I>
T tuple_from_arg(const VoltaArg& a, std::index_sequence<I...>) {
  return T(static_cast<std::tuple_element_t<I, T>>(a.tag == VOLTA_FLOATS ? a.floats[I] : a.ints[I])...);
}

template <typename T>
T from_arg(const VoltaArg& a, size_t k) {
  if constexpr (std::is_same_v<T, at::Tensor>) {
    if (a.tag != VOLTA_TENSOR) bad_argument(k, "torch.Tensor", a);
    return tensor_from_arg(a);
  } else if constexpr (is_optional<T>::value) {
    if (a.tag == VOLTA_NONE) return std::nullopt;
    return from_arg<typename T::value_type>(a, k);
  } else if constexpr (std::is_same_v<T, bool>) {
    if (a.tag != VOLTA_BOOL) bad_argument(k, "bool", a);
    return a.i != 0;
  } else if constexpr (std::is_integral_v<T>) {
    if (a.tag != VOLTA_INT && a.tag != VOLTA_BOOL) bad_argument(k, "int", a);
    return static_cast<T>(a.i);
  } else if constexpr (std::is_floating_point_v<T>) {
    if (a.tag == VOLTA_INT || a.tag == VOLTA_BOOL) return static_cast<T>(a.i);
    if (a.tag != VOLTA_FLOAT) bad_argument(k, "float", a);
    return static_cast<T>(a.d);
  } else if constexpr (std::is_same_v<T, c10::Scalar>) {
    if (a.tag == VOLTA_FLOAT) return c10::Scalar(a.d);
    if (a.tag == VOLTA_INT || a.tag == VOLTA_BOOL) return c10::Scalar(a.i);
    bad_argument(k, "number", a);
  } else if constexpr (std::is_same_v<T, std::string>) {
    if (a.tag != VOLTA_STR) bad_argument(k, "str", a);
    return std::string(a.str);
  } else if constexpr (std::is_same_v<T, c10::IntArrayRef>) {
    if (a.tag != VOLTA_INTS) bad_argument(k, "List[int]", a);
    return c10::IntArrayRef(a.ints, a.n);
  } else if constexpr (is_tuple<T>::value) {
    if ((a.tag != VOLTA_INTS && a.tag != VOLTA_FLOATS) || a.n != static_cast<int>(std::tuple_size_v<T>))
      bad_argument(k, "Tuple[number, ...] of the parameter's length", a);
    return tuple_from_arg<T>(a, std::make_index_sequence<std::tuple_size_v<T>>{});
  } else if constexpr (is_vector<T>::value) {
    using E = typename T::value_type;
    if constexpr (std::is_same_v<E, at::Tensor>) {
      if (a.tag != VOLTA_TENSORS) bad_argument(k, "List[torch.Tensor]", a);
      T out;
      for (int j = 0; j < a.n; ++j) out.push_back(tensor_from_arg(a.items[j]));
      return out;
    } else if constexpr (std::is_integral_v<E>) {
      if (a.tag != VOLTA_INTS) bad_argument(k, "List[int]", a);
      return T(a.ints, a.ints + a.n);
    } else {
      if (a.tag != VOLTA_FLOATS && a.tag != VOLTA_INTS) bad_argument(k, "List[float]", a);
      T out;
      for (int j = 0; j < a.n; ++j) out.push_back(a.tag == VOLTA_FLOATS ? a.floats[j] : a.ints[j]);
      return out;
    }
  } else {
    static_assert(sizeof(T) == 0, "Volta's stand-in bindings cannot pass this parameter type");
  }
}

inline std::string to_json(const at::Tensor& t) { return t.defined() ? tensor_json(t) : "{\"t\":\"none\"}"; }
inline std::string to_json(bool v) { return std::string("{\"t\":\"bool\",\"v\":") + (v ? "true" : "false") + "}"; }
template <typename T, typename = std::enable_if_t<std::is_arithmetic_v<T>>>
std::string to_json(T v) {
  std::ostringstream os;
  os.precision(17);
  os << "{\"t\":\"" << (std::is_integral_v<T> ? "int" : "float") << "\",\"v\":" << v << "}";
  return os.str();
}
template <typename T> std::string to_json(const std::optional<T>& v) { return v ? to_json(*v) : "{\"t\":\"none\"}"; }
template <typename T>
std::string to_json(const std::vector<T>& v) {
  std::string s = "{\"t\":\"list\",\"items\":[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + to_json(v[i]);
  return s + "]}";
}
template <typename... T>
std::string to_json(const std::tuple<T...>& v) {
  std::string s = "{\"t\":\"tuple\",\"items\":[";
  bool first = true;
  std::apply([&](const auto&... x) { ((s += (first ? "" : ","), s += to_json(x), first = false), ...); }, v);
  return s + "]}";
}
template <typename A, typename B>
std::string to_json(const std::pair<A, B>& v) { return to_json(std::make_tuple(v.first, v.second)); }

template <typename T> struct fn_traits : fn_traits<decltype(&T::operator())> {};
template <typename R, typename... A> struct fn_traits<R (*)(A...)> {
  using ret = R;
  using args = std::tuple<std::decay_t<A>...>;
};
template <typename R, typename... A> struct fn_traits<R(A...)> : fn_traits<R (*)(A...)> {};
template <typename C, typename R, typename... A> struct fn_traits<R (C::*)(A...) const> : fn_traits<R (*)(A...)> {};
template <typename C, typename R, typename... A> struct fn_traits<R (C::*)(A...)> : fn_traits<R (*)(A...)> {};

template <typename Args, size_t... I>
Args convert_args(const VoltaArg* a, std::index_sequence<I...>) {
  return Args{from_arg<std::tuple_element_t<I, Args>>(a[I], I)...};
}

template <typename F>
Caller make_caller(F f) {
  using T = fn_traits<std::decay_t<F>>;
  using Args = typename T::args;
  return [f](const VoltaArg* a, int n) mutable -> std::string {
    constexpr size_t N = std::tuple_size_v<Args>;
    if (static_cast<size_t>(n) != N)
      throw c10::TypeError(c10::detail::str("incompatible function arguments: the function takes ", N,
                                            " arguments, and ", n, " were given"));
    Args vals = convert_args<Args>(a, std::make_index_sequence<N>{});
    if constexpr (std::is_void_v<typename T::ret>) {
      std::apply(f, vals);
      return "{\"t\":\"none\"}";
    } else {
      return to_json(std::apply(f, vals));
    }
  };
}
}  // namespace volta

namespace pybind11 {
enum class return_value_policy { automatic, automatic_reference, take_ownership, copy, move, reference,
                                 reference_internal };
struct arg {
  explicit arg(const char* n) : name(n) {}
  template <typename T> arg& operator=(const T&) { return *this; }
  arg& noconvert(bool = true) { return *this; }
  arg& none(bool = true) { return *this; }
  const char* name;
};
struct gil_scoped_release {};
struct gil_scoped_acquire {};
template <typename... T> struct call_guard {};
class module_ {
 public:
  explicit module_(const char* name) : name_(name) {}
  template <typename F, typename... Extra>
  module_& def(const char* name, F&& f, const Extra&...) {
    volta::register_function(name_, name, volta::make_caller(std::forward<F>(f)));
    return *this;
  }
  std::string& doc() { return doc_; }
  module_ def_submodule(const char* name, const char* = "") { return module_((name_ + "." + name).c_str()); }

 private:
  std::string name_, doc_;
};
using module = module_;
}  // namespace pybind11
namespace py = pybind11;

namespace torch {
template <typename F> F wrap_pybind_function(F f) { return f; }
}

#define VOLTA_PYBIND11_MODULE_(name, variable)                                                                 \
  static void volta_pybind_init_##name(::pybind11::module_&);                                                   \
  /* a second module of the same name fails to link, as it does with torch's PyInit_ symbol */                 \
  extern "C" __attribute__((visibility("default"))) void* PyInit_##name() { return nullptr; }                 \
  static void volta_pybind_entry_##name(void* m) {                                                              \
    volta_pybind_init_##name(*static_cast<::pybind11::module_*>(m));                                            \
  }                                                                                                             \
  static int volta_pybind_registered_##name = ::volta::register_module(#name, &volta_pybind_entry_##name);      \
  void volta_pybind_init_##name(::pybind11::module_& variable)
#define PYBIND11_MODULE(name, variable) VOLTA_PYBIND11_MODULE_(name, variable)
