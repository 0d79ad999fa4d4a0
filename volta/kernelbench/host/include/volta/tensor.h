// Volta's stand-in for at::Tensor: metadata (sizes, strides, dtype, storage offset) and a fake device address.
//
// No element of a tensor lives in this process. Factories allocate a storage in the recorded trace, view
// methods (view, transpose, narrow, ...) make new metadata over the same storage, and torch ops called from
// host code are recorded with the shape torch would give their result; Volta executes them afterwards on
// the symbolic storages, in order with the kernel launches. Reading an element on the host (`item`, `cpu`)
// is outside the model and stops the call with a message naming it.
#pragma once
#include "core.h"

namespace at {
using c10::ArrayRef;
using c10::BFloat16;
using c10::Half;
using c10::IntArrayRef;
using c10::nullopt;
using c10::optional;
using c10::Scalar;
using c10::ScalarType;

constexpr ScalarType kByte = ScalarType::Byte, kChar = ScalarType::Char, kShort = ScalarType::Short,
                     kInt = ScalarType::Int, kLong = ScalarType::Long, kHalf = ScalarType::Half,
                     kFloat = ScalarType::Float, kDouble = ScalarType::Double, kBool = ScalarType::Bool,
                     kBFloat16 = ScalarType::BFloat16;
constexpr ScalarType kUInt8 = kByte, kInt8 = kChar, kInt16 = kShort, kInt32 = kInt, kInt64 = kLong,
                     kFloat16 = kHalf, kFloat32 = kFloat, kFloat64 = kDouble;

enum class DeviceType : int8_t { CPU = 0, CUDA = 1 };
constexpr DeviceType kCPU = DeviceType::CPU, kCUDA = DeviceType::CUDA;

struct Device {
  Device(DeviceType t = DeviceType::CUDA, int index = 0) : type_(t), index_(static_cast<int8_t>(index)) {}
  Device(const std::string& s) : type_(s.rfind("cpu", 0) == 0 ? DeviceType::CPU : DeviceType::CUDA), index_(0) {}
  Device(const char* s) : Device(std::string(s)) {}
  DeviceType type() const { return type_; }
  int8_t index() const { return index_; }
  bool has_index() const { return true; }
  bool is_cuda() const { return type_ == DeviceType::CUDA; }
  bool is_cpu() const { return type_ == DeviceType::CPU; }
  bool operator==(const Device& o) const { return type_ == o.type_ && index_ == o.index_; }
  bool operator!=(const Device& o) const { return !(*this == o); }
  std::string str() const { return is_cuda() ? "cuda:" + std::to_string(index_) : "cpu"; }

 private:
  DeviceType type_;
  int8_t index_;
};
inline std::ostream& operator<<(std::ostream& os, const Device& d) { return os << d.str(); }

enum class Layout : int8_t { Strided };
constexpr Layout kStrided = Layout::Strided;
enum class MemoryFormat : int8_t { Contiguous, Preserve, ChannelsLast, ChannelsLast3d };

template <typename T> struct ScalarTypeOf;
template <> struct ScalarTypeOf<float> { static constexpr ScalarType value = ScalarType::Float; };
template <> struct ScalarTypeOf<double> { static constexpr ScalarType value = ScalarType::Double; };
template <> struct ScalarTypeOf<Half> { static constexpr ScalarType value = ScalarType::Half; };
template <> struct ScalarTypeOf<BFloat16> { static constexpr ScalarType value = ScalarType::BFloat16; };
template <> struct ScalarTypeOf<int> { static constexpr ScalarType value = ScalarType::Int; };
template <> struct ScalarTypeOf<int64_t> { static constexpr ScalarType value = ScalarType::Long; };
template <> struct ScalarTypeOf<int16_t> { static constexpr ScalarType value = ScalarType::Short; };
template <> struct ScalarTypeOf<int8_t> { static constexpr ScalarType value = ScalarType::Char; };
template <> struct ScalarTypeOf<uint8_t> { static constexpr ScalarType value = ScalarType::Byte; };
template <> struct ScalarTypeOf<bool> { static constexpr ScalarType value = ScalarType::Bool; };

struct TensorOptions {
  TensorOptions() = default;
  TensorOptions(ScalarType t) : dtype_(t) {}
  TensorOptions(Device d) : device_(d) {}
  TensorOptions(DeviceType d) : device_(d) {}
  TensorOptions(Layout) {}
  TensorOptions dtype(ScalarType t) const { TensorOptions o = *this; o.dtype_ = t; return o; }
  TensorOptions dtype(optional<ScalarType> t) const { TensorOptions o = *this; o.dtype_ = t; return o; }
  template <typename T> TensorOptions dtype() const { return dtype(ScalarTypeOf<T>::value); }
  TensorOptions device(Device d) const { TensorOptions o = *this; o.device_ = d; return o; }
  TensorOptions device(DeviceType t, int index = 0) const { return device(Device(t, index)); }
  TensorOptions device_index(int index) const { return device(Device(DeviceType::CUDA, index)); }
  TensorOptions layout(Layout) const { return *this; }
  TensorOptions requires_grad(bool) const { return *this; }
  TensorOptions memory_format(MemoryFormat) const { return *this; }
  TensorOptions pinned_memory(bool) const { return *this; }
  ScalarType dtype() const { return dtype_.value_or(ScalarType::Float); }
  bool has_dtype() const { return dtype_.has_value(); }
  Device device() const { return device_; }
  optional<ScalarType> dtype_opt() const { return dtype_; }

 private:
  optional<ScalarType> dtype_;
  Device device_ = Device(DeviceType::CUDA, 0);
};
inline TensorOptions dtype(ScalarType t) { return TensorOptions().dtype(t); }
template <typename T> inline TensorOptions dtype() { return TensorOptions().dtype(ScalarTypeOf<T>::value); }
inline TensorOptions device(Device d) { return TensorOptions().device(d); }
inline TensorOptions requires_grad(bool = true) { return TensorOptions(); }

// x.type(): the deprecated type object some candidates still dispatch on (AT_DISPATCH_...(x.type(), ...)).
struct DeprecatedTypeProperties {
  ScalarType t;
  ScalarType scalarType() const { return t; }
  bool is_cuda() const { return true; }
  std::string toString() const { return std::string("CUDA") + c10::toString(t) + "Type"; }
  operator ScalarType() const { return t; }
};
}  // namespace at

namespace volta {
struct TensorImpl {
  uint64_t base = 0;          // the storage's fake device address
  int64_t storage_bytes = 0;
  int64_t offset = 0;         // storage offset, in elements
  std::vector<int64_t> sizes, strides;
  c10::ScalarType dtype = c10::ScalarType::Float;
};
}  // namespace volta

namespace at {
class Tensor;
using TensorList = ArrayRef<Tensor>;

class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(std::shared_ptr<volta::TensorImpl> impl) : impl_(std::move(impl)) {}
  Tensor(const Tensor&) = default;
  Tensor(Tensor&&) = default;
  Tensor& operator=(const Tensor&) & = default;
  Tensor& operator=(Tensor&&) & = default;
  // As in libtorch, assigning to a temporary (`out.index({b, c}) = x.mean()`, `out[0] = 1`) writes into its
  // elements; without these the default assignment would rebind the temporary and silently write nothing.
  Tensor& operator=(const Tensor& src) && { return copy_(src); }
  Tensor& operator=(Tensor&& src) && { return copy_(src); }
  Tensor& operator=(const Scalar& v) && { return fill_(v); }
  const volta::TensorImpl& impl() const;

  bool defined() const { return impl_ != nullptr; }
  int64_t dim() const;
  int64_t ndimension() const { return dim(); }
  IntArrayRef sizes() const;
  IntArrayRef strides() const;
  int64_t size(int64_t d) const;
  int64_t stride(int64_t d) const;
  int64_t numel() const;
  int64_t storage_offset() const;
  int64_t element_size() const;
  int64_t itemsize() const { return element_size(); }
  int64_t nbytes() const { return numel() * element_size(); }
  bool is_contiguous(MemoryFormat = MemoryFormat::Contiguous) const;
  bool is_non_overlapping_and_dense() const { return is_contiguous(); }
  ScalarType scalar_type() const;
  ScalarType dtype() const { return scalar_type(); }
  DeprecatedTypeProperties type() const { return {scalar_type()}; }
  Device device() const { return Device(DeviceType::CUDA, 0); }
  int64_t get_device() const { return 0; }
  bool is_cuda() const { return true; }
  bool is_cpu() const { return false; }
  bool requires_grad() const { return false; }
  bool is_floating_point() const;
  TensorOptions options() const { return TensorOptions(scalar_type()).device(device()); }
  Layout layout() const { return Layout::Strided; }
  MemoryFormat suggest_memory_format() const { return MemoryFormat::Contiguous; }

  void* data_ptr() const;
  const void* const_data_ptr() const { return data_ptr(); }
  void* mutable_data_ptr() const { return data_ptr(); }
  template <typename T> T* data_ptr() const;
  template <typename T> const T* const_data_ptr() const { return data_ptr<T>(); }
  template <typename T> T* mutable_data_ptr() const { return data_ptr<T>(); }
  template <typename T> T* data() const { return data_ptr<T>(); }

  // views: new metadata over the same storage
  Tensor view(IntArrayRef sizes) const;
  Tensor view(ScalarType) const;
  Tensor reshape(IntArrayRef sizes) const;
  Tensor transpose(int64_t a, int64_t b) const;
  Tensor permute(IntArrayRef dims) const;
  Tensor t() const;
  Tensor unsqueeze(int64_t d) const;
  Tensor squeeze() const;
  Tensor squeeze(int64_t d) const;
  Tensor flatten(int64_t start = 0, int64_t end = -1) const;
  Tensor select(int64_t d, int64_t i) const;
  Tensor narrow(int64_t d, int64_t start, int64_t length) const;
  Tensor slice(int64_t d = 0, optional<int64_t> start = nullopt, optional<int64_t> end = nullopt,
               int64_t step = 1) const;
  Tensor expand(IntArrayRef sizes, bool implicit = false) const;
  Tensor expand_as(const Tensor& o) const { return expand(o.sizes()); }
  Tensor view_as(const Tensor& o) const { return view(o.sizes()); }
  Tensor reshape_as(const Tensor& o) const { return reshape(o.sizes()); }
  Tensor operator[](int64_t i) const { return select(0, i); }
  Tensor index(std::initializer_list<int64_t> idx) const;

  // data movement and dtype
  Tensor contiguous(MemoryFormat = MemoryFormat::Contiguous) const;
  Tensor clone(optional<MemoryFormat> = nullopt) const;
  Tensor to(ScalarType t, bool non_blocking = false, bool copy = false) const;
  Tensor to(Device d, bool non_blocking = false, bool copy = false) const;
  Tensor to(Device d, ScalarType t, bool non_blocking = false, bool copy = false) const;
  Tensor to(const TensorOptions& o, bool non_blocking = false, bool copy = false) const;
  Tensor to(const Tensor& other, bool non_blocking = false, bool copy = false) const;
  Tensor type_as(const Tensor& o) const { return to(o.scalar_type()); }
  Tensor toType(ScalarType t) const { return to(t); }
  Tensor half() const { return to(kHalf); }
  Tensor bfloat16() const { return to(kBFloat16); }
  Tensor cuda() const { return *this; }
  Tensor cpu() const;
  template <typename T> T item() const;
  Scalar item() const;

  // in place (recorded as the op, then a copy into this tensor's elements)
  Tensor& zero_();
  Tensor& fill_(const Scalar& v);
  Tensor& copy_(const Tensor& src, bool non_blocking = false);
  Tensor& add_(const Tensor& o, const Scalar& alpha = 1);
  Tensor& add_(const Scalar& o, const Scalar& alpha = 1);
  Tensor& sub_(const Tensor& o, const Scalar& alpha = 1);
  Tensor& mul_(const Tensor& o);
  Tensor& mul_(const Scalar& o);
  Tensor& div_(const Tensor& o);
  Tensor& div_(const Scalar& o);
  Tensor& relu_();
  Tensor& clamp_(optional<Scalar> lo, optional<Scalar> hi = nullopt);

  // ops (recorded with their result's shape; Volta executes them with torch's meaning)
  Tensor add(const Tensor& o, const Scalar& alpha = 1) const;
  Tensor add(const Scalar& o, const Scalar& alpha = 1) const;
  Tensor sub(const Tensor& o, const Scalar& alpha = 1) const;
  Tensor sub(const Scalar& o, const Scalar& alpha = 1) const;
  Tensor mul(const Tensor& o) const;
  Tensor mul(const Scalar& o) const;
  Tensor div(const Tensor& o) const;
  Tensor div(const Scalar& o) const;
  Tensor neg() const;
  Tensor relu() const;
  Tensor sigmoid() const;
  Tensor tanh() const;
  Tensor exp() const;
  Tensor log() const;
  Tensor sqrt() const;
  Tensor rsqrt() const;
  Tensor abs() const;
  Tensor square() const;
  Tensor reciprocal() const;
  Tensor pow(const Scalar& e) const;
  Tensor clamp(optional<Scalar> lo, optional<Scalar> hi = nullopt) const;
  Tensor clamp_min(const Scalar& lo) const { return clamp(lo, nullopt); }
  Tensor clamp_max(const Scalar& hi) const { return clamp(nullopt, hi); }
  Tensor sum(optional<ScalarType> dtype = nullopt) const;
  Tensor sum(IntArrayRef dims, bool keepdim = false, optional<ScalarType> dtype = nullopt) const;
  Tensor mean(optional<ScalarType> dtype = nullopt) const;
  Tensor mean(IntArrayRef dims, bool keepdim = false, optional<ScalarType> dtype = nullopt) const;
  Tensor var(bool unbiased = true) const;
  Tensor var(IntArrayRef dims, bool unbiased = true, bool keepdim = false) const;
  Tensor std(bool unbiased = true) const;
  Tensor std(IntArrayRef dims, bool unbiased = true, bool keepdim = false) const;
  Tensor amax(IntArrayRef dims = {}, bool keepdim = false) const;
  Tensor amin(IntArrayRef dims = {}, bool keepdim = false) const;
  Tensor softmax(int64_t dim, optional<ScalarType> dtype = nullopt) const;
  Tensor log_softmax(int64_t dim, optional<ScalarType> dtype = nullopt) const;
  Tensor matmul(const Tensor& o) const;
  Tensor mm(const Tensor& o) const;
  Tensor bmm(const Tensor& o) const;

 private:
  std::shared_ptr<volta::TensorImpl> impl_;
};

Tensor operator+(const Tensor& a, const Tensor& b);
Tensor operator-(const Tensor& a, const Tensor& b);
Tensor operator*(const Tensor& a, const Tensor& b);
Tensor operator/(const Tensor& a, const Tensor& b);
Tensor operator+(const Tensor& a, const Scalar& b);
Tensor operator-(const Tensor& a, const Scalar& b);
Tensor operator*(const Tensor& a, const Scalar& b);
Tensor operator/(const Tensor& a, const Scalar& b);
Tensor operator+(const Scalar& a, const Tensor& b);
Tensor operator-(const Scalar& a, const Tensor& b);
Tensor operator*(const Scalar& a, const Tensor& b);
Tensor operator/(const Scalar& a, const Tensor& b);
Tensor operator-(const Tensor& a);
inline Tensor& operator+=(Tensor& a, const Tensor& b) { return a.add_(b); }
inline Tensor& operator+=(Tensor& a, const Scalar& b) { return a.add_(b); }
inline Tensor& operator-=(Tensor& a, const Tensor& b) { return a.sub_(b); }
inline Tensor& operator*=(Tensor& a, const Tensor& b) { return a.mul_(b); }
inline Tensor& operator*=(Tensor& a, const Scalar& b) { return a.mul_(b); }
inline Tensor& operator/=(Tensor& a, const Tensor& b) { return a.div_(b); }
inline Tensor& operator/=(Tensor& a, const Scalar& b) { return a.div_(b); }
std::ostream& operator<<(std::ostream& os, const Tensor& t);

// ---- data_ptr<T>: only the element types libtorch instantiates (others fail to link, as with torch) ----
namespace detail {
void* checked_data_ptr(const Tensor& t, ScalarType want, const char* name);
}
template <> inline float* Tensor::data_ptr<float>() const {
  return static_cast<float*>(detail::checked_data_ptr(*this, kFloat, "float"));
}
template <> inline double* Tensor::data_ptr<double>() const {
  return static_cast<double*>(detail::checked_data_ptr(*this, kDouble, "double"));
}
template <> inline Half* Tensor::data_ptr<Half>() const {
  return static_cast<Half*>(detail::checked_data_ptr(*this, kHalf, "c10::Half"));
}
template <> inline BFloat16* Tensor::data_ptr<BFloat16>() const {
  return static_cast<BFloat16*>(detail::checked_data_ptr(*this, kBFloat16, "c10::BFloat16"));
}
template <> inline int* Tensor::data_ptr<int>() const {
  return static_cast<int*>(detail::checked_data_ptr(*this, kInt, "int"));
}
template <> inline int64_t* Tensor::data_ptr<int64_t>() const {
  return static_cast<int64_t*>(detail::checked_data_ptr(*this, kLong, "long int"));
}
template <> inline int16_t* Tensor::data_ptr<int16_t>() const {
  return static_cast<int16_t*>(detail::checked_data_ptr(*this, kShort, "short int"));
}
template <> inline int8_t* Tensor::data_ptr<int8_t>() const {
  return static_cast<int8_t*>(detail::checked_data_ptr(*this, kChar, "signed char"));
}
template <> inline uint8_t* Tensor::data_ptr<uint8_t>() const {
  return static_cast<uint8_t*>(detail::checked_data_ptr(*this, kByte, "unsigned char"));
}
template <> inline bool* Tensor::data_ptr<bool>() const {
  return static_cast<bool*>(detail::checked_data_ptr(*this, kBool, "bool"));
}
[[noreturn]] void host_read(const char* what);
template <typename T> T Tensor::item() const { host_read("Tensor::item() (a host read of device data)"); }

// ---- factories and free functions ----
Tensor empty(IntArrayRef sizes, TensorOptions o = {}, optional<MemoryFormat> = nullopt);
Tensor empty_strided(IntArrayRef sizes, IntArrayRef strides, TensorOptions o = {});
Tensor zeros(IntArrayRef sizes, TensorOptions o = {});
Tensor ones(IntArrayRef sizes, TensorOptions o = {});
Tensor full(IntArrayRef sizes, const Scalar& v, TensorOptions o = {});
Tensor empty_like(const Tensor& t, TensorOptions o = {}, optional<MemoryFormat> = nullopt);
Tensor zeros_like(const Tensor& t, TensorOptions o = {}, optional<MemoryFormat> = nullopt);
Tensor ones_like(const Tensor& t, TensorOptions o = {}, optional<MemoryFormat> = nullopt);
Tensor full_like(const Tensor& t, const Scalar& v, TensorOptions o = {});
Tensor from_blob(void* data, IntArrayRef sizes, TensorOptions o = {});
Tensor from_blob(void* data, IntArrayRef sizes, IntArrayRef strides, TensorOptions o = {});
Tensor matmul(const Tensor& a, const Tensor& b);
Tensor mm(const Tensor& a, const Tensor& b);
Tensor bmm(const Tensor& a, const Tensor& b);
Tensor addmm(const Tensor& self, const Tensor& a, const Tensor& b, const Scalar& beta = 1, const Scalar& alpha = 1);
Tensor linear(const Tensor& x, const Tensor& w, const optional<Tensor>& b = nullopt);
inline Tensor add(const Tensor& a, const Tensor& b, const Scalar& alpha = 1) { return a.add(b, alpha); }
inline Tensor sub(const Tensor& a, const Tensor& b, const Scalar& alpha = 1) { return a.sub(b, alpha); }
inline Tensor mul(const Tensor& a, const Tensor& b) { return a.mul(b); }
inline Tensor div(const Tensor& a, const Tensor& b) { return a.div(b); }
inline Tensor relu(const Tensor& a) { return a.relu(); }
inline Tensor sigmoid(const Tensor& a) { return a.sigmoid(); }
inline Tensor tanh(const Tensor& a) { return a.tanh(); }
inline Tensor exp(const Tensor& a) { return a.exp(); }
inline Tensor log(const Tensor& a) { return a.log(); }
inline Tensor sqrt(const Tensor& a) { return a.sqrt(); }
inline Tensor abs(const Tensor& a) { return a.abs(); }
inline Tensor clamp(const Tensor& a, optional<Scalar> lo, optional<Scalar> hi = nullopt) { return a.clamp(lo, hi); }
inline Tensor sum(const Tensor& a, optional<ScalarType> t = nullopt) { return a.sum(t); }
inline Tensor sum(const Tensor& a, IntArrayRef d, bool keep = false) { return a.sum(d, keep); }
inline Tensor mean(const Tensor& a, optional<ScalarType> t = nullopt) { return a.mean(t); }
inline Tensor mean(const Tensor& a, IntArrayRef d, bool keep = false) { return a.mean(d, keep); }
inline Tensor var(const Tensor& a, IntArrayRef d, bool unbiased = true, bool keep = false) { return a.var(d, unbiased, keep); }
inline Tensor std(const Tensor& a, IntArrayRef d, bool unbiased = true, bool keep = false) { return a.std(d, unbiased, keep); }
inline Tensor softmax(const Tensor& a, int64_t d, optional<ScalarType> t = nullopt) { return a.softmax(d, t); }
inline Tensor log_softmax(const Tensor& a, int64_t d, optional<ScalarType> t = nullopt) { return a.log_softmax(d, t); }
inline Tensor transpose(const Tensor& a, int64_t x, int64_t y) { return a.transpose(x, y); }
inline Tensor reshape(const Tensor& a, IntArrayRef s) { return a.reshape(s); }
Tensor gelu(const Tensor& a, const std::string& approximate = "none");
Tensor cat(TensorList ts, int64_t dim = 0);
}  // namespace at

namespace c10 {
using at::Device;
using at::DeviceType;
using at::kCPU;
using at::kCUDA;
using at::Layout;
using at::MemoryFormat;
using at::TensorOptions;
}  // namespace c10
