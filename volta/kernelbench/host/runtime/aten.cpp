// at::Tensor over fake device memory: metadata, views, factories, and torch ops recorded with their shapes.
//
// Shapes, strides and dtypes follow torch's rules (broadcasting, matmul's batch dimensions, reductions with
// keepdim, view's stride computation, empty_like preserving a dense layout) because host code branches on
// them; the values are Volta's to compute later (volta/kernelbench/host/ops.py executes each recorded op).
#include "runtime.h"

namespace volta {
namespace {

std::vector<int64_t> contiguous_strides(const std::vector<int64_t>& sizes) {
  std::vector<int64_t> st(sizes.size());
  int64_t s = 1;
  for (size_t i = sizes.size(); i-- > 0;) { st[i] = s; s *= std::max<int64_t>(sizes[i], 1); }
  return st;
}

int64_t product(const std::vector<int64_t>& v) {
  int64_t n = 1;
  for (auto x : v) n *= x;
  return n;
}

int64_t wrap(int64_t d, int64_t ndim) {
  int64_t lo = ndim ? -ndim : -1, hi = ndim ? ndim - 1 : 0;
  if (d < lo || d > hi)
    throw c10::IndexError(c10::detail::str("Dimension out of range (expected to be in range of [", lo, ", ", hi,
                                           "], but got ", d, ")"));
  return d < 0 ? d + std::max<int64_t>(ndim, 1) : d;
}

std::shared_ptr<TensorImpl> fresh(const std::vector<int64_t>& sizes, c10::ScalarType t) {
  for (auto s : sizes)
    TORCH_CHECK(s >= 0, "Trying to create tensor with negative dimension ", s);
  auto impl = std::make_shared<TensorImpl>();
  impl->sizes = sizes;
  impl->strides = contiguous_strides(sizes);
  impl->dtype = t;
  impl->storage_bytes = product(sizes) * int64_t(c10::elementSize(t));
  impl->base = allocate(impl->storage_bytes);
  return impl;
}

std::shared_ptr<TensorImpl> view_of(const at::Tensor& t, std::vector<int64_t> sizes, std::vector<int64_t> strides,
                                    int64_t offset) {
  auto impl = std::make_shared<TensorImpl>(t.impl());
  impl->sizes = std::move(sizes);
  impl->strides = std::move(strides);
  impl->offset = offset;
  return impl;
}

std::string ints_json(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s + "]";
}

std::string doubles_json(const std::vector<double>& v) {
  std::ostringstream os;
  os.precision(17);
  os << "[";
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) os << ",";
    if (std::isnan(v[i])) os << "\"nan\"";
    else if (std::isinf(v[i])) os << (v[i] > 0 ? "\"inf\"" : "\"-inf\"");
    else os << v[i];
  }
  os << "]";
  return os.str();
}

at::Tensor alloc(const std::vector<int64_t>& sizes, c10::ScalarType t, const char* init, double value = 0) {
  at::Tensor out(fresh(sizes, t));
  emit(std::string("{\"e\":\"alloc\",\"t\":") + tensor_json(out) + ",\"init\":\"" + init + "\",\"v\":" +
       doubles_json({value}) + "}");
  return out;
}

// record `op` over `in` (with scalar and integer attributes) whose result has `sizes` and dtype `t`
at::Tensor record(const char* op, const std::vector<at::Tensor>& in, const std::vector<double>& s,
                  const std::vector<int64_t>& i, const std::vector<int64_t>& sizes, c10::ScalarType t) {
  at::Tensor out(fresh(sizes, t));
  std::string ins = "[";
  for (size_t k = 0; k < in.size(); ++k) ins += (k ? "," : "") + tensor_json(in[k]);
  emit(std::string("{\"e\":\"op\",\"op\":\"") + op + "\",\"in\":" + ins + "],\"s\":" + doubles_json(s) +
       ",\"i\":" + ints_json(i) + ",\"out\":" + tensor_json(out) + "}");
  return out;
}

bool is_float(c10::ScalarType t) {
  return t == c10::ScalarType::Float || t == c10::ScalarType::Double || t == c10::ScalarType::Half ||
         t == c10::ScalarType::BFloat16;
}

// torch's type promotion for two tensors (0-dimensional ones do not promote a dimensioned tensor's category)
c10::ScalarType promote(const at::Tensor& a, const at::Tensor& b) {
  c10::ScalarType x = a.scalar_type(), y = b.scalar_type();
  if (x == y) return x;
  if (a.dim() == 0 && b.dim() > 0 && is_float(x) == is_float(y)) return y;
  if (b.dim() == 0 && a.dim() > 0 && is_float(x) == is_float(y)) return x;
  if (is_float(x) != is_float(y)) return is_float(x) ? x : y;
  auto rank = [](c10::ScalarType t) {
    switch (t) {
      case c10::ScalarType::Bool: return 0;
      case c10::ScalarType::Byte: return 1;
      case c10::ScalarType::Char: return 1;
      case c10::ScalarType::Short: return 2;
      case c10::ScalarType::Int: return 3;
      case c10::ScalarType::Long: return 4;
      case c10::ScalarType::Half: return 5;
      case c10::ScalarType::BFloat16: return 5;
      case c10::ScalarType::Float: return 6;
      default: return 7;
    }
  };
  if (rank(x) == 5 && rank(y) == 5) return c10::ScalarType::Float;   // Half with BFloat16
  return rank(x) >= rank(y) ? x : y;
}

c10::ScalarType with_scalar(const at::Tensor& a, const c10::Scalar& s) {
  return !is_float(a.scalar_type()) && s.isFloatingPoint() ? c10::ScalarType::Float : a.scalar_type();
}

std::vector<int64_t> broadcast(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  size_t n = std::max(a.size(), b.size());
  std::vector<int64_t> out(n);
  for (size_t i = 0; i < n; ++i) {
    int64_t x = i < n - a.size() ? 1 : a[i - (n - a.size())];
    int64_t y = i < n - b.size() ? 1 : b[i - (n - b.size())];
    if (x != y && x != 1 && y != 1)
      throw c10::Error(c10::detail::str("The size of tensor a (", x, ") must match the size of tensor b (", y,
                                        ") at non-singleton dimension ", i));
    out[i] = x == 1 ? y : x;
  }
  return out;
}

std::vector<int64_t> reduced(const at::Tensor& t, c10::IntArrayRef dims, bool keep, std::vector<int64_t>* which) {
  int64_t n = t.dim();
  std::vector<bool> drop(size_t(std::max<int64_t>(n, 0)), dims.empty());
  for (auto d : dims) drop[size_t(wrap(d, n))] = true;
  std::vector<int64_t> out;
  for (int64_t i = 0; i < n; ++i) {
    if (drop[size_t(i)]) {
      which->push_back(i);
      if (keep) out.push_back(1);
    } else {
      out.push_back(t.size(i));
    }
  }
  return out;
}

// torch's computeStride: strides for viewing (sizes, strides) as `shape` without a copy, or none
std::optional<std::vector<int64_t>> view_strides(const std::vector<int64_t>& old_sizes,
                                                 const std::vector<int64_t>& old_strides,
                                                 const std::vector<int64_t>& shape) {
  if (old_sizes.empty()) return std::vector<int64_t>(shape.size(), 1);
  if (product(old_sizes) == 0) return contiguous_strides(shape);
  std::vector<int64_t> out(shape.size());
  int64_t view_d = int64_t(shape.size()) - 1;
  int64_t chunk_base = old_strides.back();
  int64_t tensor_numel = 1, view_numel = 1;
  for (int64_t d = int64_t(old_sizes.size()) - 1; d >= 0; --d) {
    tensor_numel *= old_sizes[size_t(d)];
    if (d == 0 || (old_sizes[size_t(d - 1)] != 1 &&
                   old_strides[size_t(d - 1)] != tensor_numel * chunk_base)) {
      while (view_d >= 0 && (view_numel < tensor_numel || shape[size_t(view_d)] == 1)) {
        out[size_t(view_d)] = view_numel * chunk_base;
        view_numel *= shape[size_t(view_d)];
        --view_d;
      }
      if (view_numel != tensor_numel) return std::nullopt;
      if (d > 0) {
        chunk_base = old_strides[size_t(d - 1)];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  if (view_d != -1) return std::nullopt;
  return out;
}

std::vector<int64_t> infer_shape(c10::IntArrayRef shape, int64_t numel) {
  std::vector<int64_t> out = shape.vec();
  int64_t known = 1, infer = -1;
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i] == -1) {
      TORCH_CHECK(infer < 0, "only one dimension can be inferred");
      infer = int64_t(i);
    } else {
      known *= out[i];
    }
  }
  if (infer >= 0) {
    TORCH_CHECK(known != 0 && numel % known == 0, "shape '", shape, "' is invalid for input of size ", numel);
    out[size_t(infer)] = numel / known;
  }
  TORCH_CHECK(product(out) == numel, "shape '", shape, "' is invalid for input of size ", numel);
  return out;
}

std::vector<int64_t> matmul_shape(const at::Tensor& a, const at::Tensor& b) {
  auto as = a.sizes().vec(), bs = b.sizes().vec();
  TORCH_CHECK(!as.empty() && !bs.empty(), "both arguments to matmul need to be at least 1D, but they are ",
              as.size(), "D and ", bs.size(), "D");
  int64_t k1 = as.back(), k2 = bs.size() == 1 ? bs[0] : bs[bs.size() - 2];
  if (k1 != k2) {
    int64_t r1 = as.size() == 1 ? 1 : product(as) / k1, r2 = bs.size() == 1 ? 1 : bs.back();
    throw c10::Error(c10::detail::str("mat1 and mat2 shapes cannot be multiplied (", r1, "x", k1, " and ", k2, "x",
                                      r2, ")"));
  }
  std::vector<int64_t> ab(as.begin(), as.end() - std::min<size_t>(2, as.size()));
  std::vector<int64_t> bb(bs.begin(), bs.end() - std::min<size_t>(2, bs.size()));
  std::vector<int64_t> out = broadcast(ab, bb);
  if (as.size() >= 2) out.push_back(as[as.size() - 2]);
  if (bs.size() >= 2) out.push_back(bs.back());
  return out;
}
}  // namespace

std::string tensor_json(const at::Tensor& t) {
  const TensorImpl& i = t.impl();
  return "{\"t\":\"tensor\",\"base\":" + std::to_string(i.base) + ",\"bytes\":" + std::to_string(i.storage_bytes) +
         ",\"offset\":" + std::to_string(i.offset) + ",\"sizes\":" + ints_json(i.sizes) + ",\"strides\":" +
         ints_json(i.strides) + ",\"dtype\":\"" + dtype_name(i.dtype) + "\"}";
}

at::Tensor tensor_from_arg(const VoltaArg& a) {
  auto impl = std::make_shared<TensorImpl>();
  impl->base = a.base;
  impl->storage_bytes = a.storage_bytes;
  impl->offset = a.offset;
  impl->sizes.assign(a.sizes, a.sizes + a.ndim);
  impl->strides.assign(a.strides, a.strides + a.ndim);
  impl->dtype = static_cast<c10::ScalarType>(a.dtype);
  remember(a.base, a.storage_bytes);
  return at::Tensor(impl);
}

}  // namespace volta

namespace at {
using volta::record;

const volta::TensorImpl& Tensor::impl() const {
  if (!impl_) throw c10::Error("the tensor is undefined (a default-constructed torch::Tensor)");
  return *impl_;
}
int64_t Tensor::dim() const { return int64_t(impl().sizes.size()); }
IntArrayRef Tensor::sizes() const { return IntArrayRef(impl().sizes); }
IntArrayRef Tensor::strides() const { return IntArrayRef(impl().strides); }
int64_t Tensor::size(int64_t d) const { return impl().sizes[size_t(volta::wrap(d, dim()))]; }
int64_t Tensor::stride(int64_t d) const { return impl().strides[size_t(volta::wrap(d, dim()))]; }
int64_t Tensor::numel() const { return volta::product(impl().sizes); }
int64_t Tensor::storage_offset() const { return impl().offset; }
int64_t Tensor::element_size() const { return int64_t(c10::elementSize(impl().dtype)); }
ScalarType Tensor::scalar_type() const { return impl().dtype; }
bool Tensor::is_floating_point() const { return volta::is_float(scalar_type()); }
bool Tensor::is_contiguous(MemoryFormat) const {
  const auto& i = impl();
  int64_t expected = 1;
  for (size_t d = i.sizes.size(); d-- > 0;) {
    if (i.sizes[d] == 1) continue;
    if (i.strides[d] != expected) return false;
    expected *= i.sizes[d];
  }
  return true;
}
void* Tensor::data_ptr() const {
  const auto& i = impl();
  return reinterpret_cast<void*>(i.base + uint64_t(i.offset) * c10::elementSize(i.dtype));
}
void* detail::checked_data_ptr(const Tensor& t, ScalarType want, const char* name) {
  (void)name;
  if (t.scalar_type() != want)
    throw c10::Error(c10::detail::str("expected scalar type ", want, " but found ", t.scalar_type()));
  return t.data_ptr();
}
void host_read(const char* what) { volta::unmodelled(what); }
Scalar Tensor::item() const { host_read("Tensor::item() (a host read of device data)"); }
Tensor Tensor::cpu() const { host_read("Tensor::cpu() (a copy of device data to the host)"); }

// ---- views ----
Tensor Tensor::view(IntArrayRef shape) const {
  auto sizes = volta::infer_shape(shape, numel());
  auto st = volta::view_strides(impl().sizes, impl().strides, sizes);
  TORCH_CHECK(st.has_value(), "view size is not compatible with input tensor's size and stride (at least one "
              "dimension spans across two contiguous subspaces). Use .reshape(...) instead.");
  return Tensor(volta::view_of(*this, sizes, *st, storage_offset()));
}
Tensor Tensor::view(ScalarType t) const {
  TORCH_CHECK(c10::elementSize(t) == size_t(element_size()), "view(dtype) between sizes is not modelled");
  auto impl = volta::view_of(*this, sizes().vec(), strides().vec(), storage_offset());
  impl->dtype = t;
  return Tensor(impl);
}
Tensor Tensor::reshape(IntArrayRef shape) const {
  auto sizes = volta::infer_shape(shape, numel());
  auto st = volta::view_strides(impl().sizes, impl().strides, sizes);
  if (st) return Tensor(volta::view_of(*this, sizes, *st, storage_offset()));
  return contiguous().view(IntArrayRef(sizes));
}
Tensor Tensor::transpose(int64_t a, int64_t b) const {
  a = volta::wrap(a, dim());
  b = volta::wrap(b, dim());
  auto s = sizes().vec(), st = strides().vec();
  if (dim() > 0) {
    std::swap(s[size_t(a)], s[size_t(b)]);
    std::swap(st[size_t(a)], st[size_t(b)]);
  }
  return Tensor(volta::view_of(*this, s, st, storage_offset()));
}
Tensor Tensor::permute(IntArrayRef dims) const {
  TORCH_CHECK(int64_t(dims.size()) == dim(), "permute(sparse_coo): number of dimensions in the tensor input does "
              "not match the length of the desired ordering of dimensions i.e. input.dim() = ", dim(),
              " is not equal to len(dims) = ", dims.size());
  std::vector<int64_t> s, st;
  std::vector<bool> seen(size_t(dim()), false);
  for (auto d : dims) {
    int64_t w = volta::wrap(d, dim());
    TORCH_CHECK(!seen[size_t(w)], "permute(): duplicate dims are not allowed.");
    seen[size_t(w)] = true;
    s.push_back(size(w));
    st.push_back(stride(w));
  }
  return Tensor(volta::view_of(*this, s, st, storage_offset()));
}
Tensor Tensor::t() const {
  TORCH_CHECK(dim() <= 2, "t() expects a tensor with <= 2 dimensions, but self is ", dim(), "D");
  return dim() < 2 ? *this : transpose(0, 1);
}
Tensor Tensor::unsqueeze(int64_t d) const {
  d = volta::wrap(d, dim() + 1);
  auto s = sizes().vec(), st = strides().vec();
  int64_t stride_here = size_t(d) < s.size() ? s[size_t(d)] * st[size_t(d)] : 1;
  s.insert(s.begin() + d, 1);
  st.insert(st.begin() + d, stride_here);
  return Tensor(volta::view_of(*this, s, st, storage_offset()));
}
Tensor Tensor::squeeze() const {
  std::vector<int64_t> s, st;
  for (int64_t i = 0; i < dim(); ++i)
    if (size(i) != 1) { s.push_back(size(i)); st.push_back(stride(i)); }
  return Tensor(volta::view_of(*this, s, st, storage_offset()));
}
Tensor Tensor::squeeze(int64_t d) const {
  if (dim() == 0) return *this;
  d = volta::wrap(d, dim());
  if (size(d) != 1) return *this;
  auto s = sizes().vec(), st = strides().vec();
  s.erase(s.begin() + d);
  st.erase(st.begin() + d);
  return Tensor(volta::view_of(*this, s, st, storage_offset()));
}
Tensor Tensor::flatten(int64_t start, int64_t end) const {
  if (dim() == 0) return reshape({1});
  start = volta::wrap(start, dim());
  end = volta::wrap(end, dim());
  std::vector<int64_t> s;
  for (int64_t i = 0; i < start; ++i) s.push_back(size(i));
  int64_t n = 1;
  for (int64_t i = start; i <= end; ++i) n *= size(i);
  s.push_back(n);
  for (int64_t i = end + 1; i < dim(); ++i) s.push_back(size(i));
  return reshape(IntArrayRef(s));
}
Tensor Tensor::select(int64_t d, int64_t i) const {
  d = volta::wrap(d, dim());
  int64_t n = size(d);
  if (i < -n || i >= n)
    throw c10::IndexError(c10::detail::str("index ", i, " is out of bounds for dimension ", d, " with size ", n));
  if (i < 0) i += n;
  auto s = sizes().vec(), st = strides().vec();
  int64_t off = storage_offset() + i * st[size_t(d)];
  s.erase(s.begin() + d);
  st.erase(st.begin() + d);
  return Tensor(volta::view_of(*this, s, st, off));
}
Tensor Tensor::narrow(int64_t d, int64_t start, int64_t length) const {
  d = volta::wrap(d, dim());
  if (start < 0) start += size(d);
  TORCH_CHECK(start >= 0 && length >= 0 && start + length <= size(d), "start (", start, ") + length (", length,
              ") exceeds dimension size (", size(d), ").");
  return slice(d, start, start + length, 1);
}
Tensor Tensor::slice(int64_t d, optional<int64_t> start, optional<int64_t> end, int64_t step) const {
  d = volta::wrap(d, dim());
  TORCH_CHECK(step > 0, "slice step must be positive");
  int64_t n = size(d), a = start.value_or(0), b = end.value_or(n);
  if (a < 0) a += n;
  if (b < 0) b += n;
  a = std::min(std::max<int64_t>(a, 0), n);
  b = std::min(std::max<int64_t>(b, a), n);
  auto s = sizes().vec(), st = strides().vec();
  int64_t off = storage_offset() + a * st[size_t(d)];
  s[size_t(d)] = (b - a + step - 1) / step;
  st[size_t(d)] *= step;
  return Tensor(volta::view_of(*this, s, st, off));
}
Tensor Tensor::expand(IntArrayRef shape, bool) const {
  TORCH_CHECK(int64_t(shape.size()) >= dim(), "expand: the number of sizes provided (", shape.size(),
              ") must be greater or equal to the number of dimensions in the tensor (", dim(), ")");
  size_t lead = shape.size() - size_t(dim());
  std::vector<int64_t> s(shape.size()), st(shape.size());
  for (size_t i = 0; i < shape.size(); ++i) {
    int64_t want = shape[i];
    if (i < lead) {
      s[i] = want;
      st[i] = 0;
      continue;
    }
    int64_t have = size(int64_t(i - lead));
    if (want == -1) want = have;
    TORCH_CHECK(have == want || have == 1, "The expanded size of the tensor (", want,
                ") must match the existing size (", have, ") at non-singleton dimension ", i);
    s[i] = want;
    st[i] = have == want ? stride(int64_t(i - lead)) : 0;
  }
  return Tensor(volta::view_of(*this, s, st, storage_offset()));
}
Tensor Tensor::index(std::initializer_list<int64_t> idx) const {
  Tensor t = *this;
  for (auto i : idx) t = t.select(0, i);
  return t;
}

// ---- data movement ----
Tensor Tensor::contiguous(MemoryFormat) const { return is_contiguous() ? *this : clone(); }
Tensor Tensor::clone(optional<MemoryFormat>) const {
  return record("clone", {*this}, {}, {}, sizes().vec(), scalar_type());
}
Tensor Tensor::to(ScalarType t, bool, bool copy) const {
  if (t == scalar_type() && !copy) return *this;
  return record("to", {*this}, {}, {}, sizes().vec(), t);
}
Tensor Tensor::to(Device d, bool, bool copy) const {
  if (d.is_cpu()) host_read("Tensor::to(cpu) (a copy of device data to the host)");
  return copy ? clone() : *this;
}
Tensor Tensor::to(Device d, ScalarType t, bool nb, bool copy) const { return to(d, nb, false).to(t, nb, copy); }
Tensor Tensor::to(const TensorOptions& o, bool nb, bool copy) const {
  return to(o.device(), o.has_dtype() ? o.dtype() : scalar_type(), nb, copy);
}
Tensor Tensor::to(const Tensor& other, bool nb, bool copy) const { return to(other.scalar_type(), nb, copy); }

// ---- in place: the op, then a copy into this tensor ----
Tensor& Tensor::copy_(const Tensor& src, bool) {
  volta::broadcast(sizes().vec(), src.sizes().vec());
  volta::emit("{\"e\":\"op\",\"op\":\"copy_\",\"in\":[" + volta::tensor_json(*this) + "," + volta::tensor_json(src) +
       "],\"s\":[],\"i\":[]}");
  return *this;
}
Tensor& Tensor::fill_(const Scalar& v) { return copy_(full({}, v, options())); }
Tensor& Tensor::zero_() { return fill_(0); }
Tensor& Tensor::add_(const Tensor& o, const Scalar& a) { return copy_(add(o, a)); }
Tensor& Tensor::add_(const Scalar& o, const Scalar& a) { return copy_(add(o, a)); }
Tensor& Tensor::sub_(const Tensor& o, const Scalar& a) { return copy_(sub(o, a)); }
Tensor& Tensor::mul_(const Tensor& o) { return copy_(mul(o)); }
Tensor& Tensor::mul_(const Scalar& o) { return copy_(mul(o)); }
Tensor& Tensor::div_(const Tensor& o) { return copy_(div(o)); }
Tensor& Tensor::div_(const Scalar& o) { return copy_(div(o)); }
Tensor& Tensor::relu_() { return copy_(relu()); }
Tensor& Tensor::clamp_(optional<Scalar> lo, optional<Scalar> hi) { return copy_(clamp(lo, hi)); }

// ---- ops ----
#define VOLTA_BINARY(NAME)                                                                                    \
  Tensor Tensor::NAME(const Tensor& o) const {                                                                 \
    return record(#NAME, {*this, o}, {}, {}, volta::broadcast(sizes().vec(), o.sizes().vec()),                 \
                  volta::promote(*this, o));                                                                   \
  }                                                                                                             \
  Tensor Tensor::NAME(const Scalar& o) const {                                                                 \
    return record(#NAME "_scalar", {*this}, {o.toDouble()}, {}, sizes().vec(), volta::with_scalar(*this, o));  \
  }
VOLTA_BINARY(mul)
VOLTA_BINARY(div)
#undef VOLTA_BINARY
Tensor Tensor::add(const Tensor& o, const Scalar& a) const {
  return record("add", {*this, o}, {a.toDouble()}, {}, volta::broadcast(sizes().vec(), o.sizes().vec()),
                volta::promote(*this, o));
}
Tensor Tensor::add(const Scalar& o, const Scalar& a) const {
  return record("add_scalar", {*this}, {o.toDouble() * a.toDouble()}, {}, sizes().vec(), volta::with_scalar(*this, o));
}
Tensor Tensor::sub(const Tensor& o, const Scalar& a) const {
  return record("add", {*this, o}, {-a.toDouble()}, {}, volta::broadcast(sizes().vec(), o.sizes().vec()),
                volta::promote(*this, o));
}
Tensor Tensor::sub(const Scalar& o, const Scalar& a) const { return add(Scalar(-o.toDouble()), a); }
#define VOLTA_UNARY(NAME)                                                                                     \
  Tensor Tensor::NAME() const { return record(#NAME, {*this}, {}, {}, sizes().vec(), scalar_type()); }
VOLTA_UNARY(neg)
VOLTA_UNARY(relu)
VOLTA_UNARY(sigmoid)
VOLTA_UNARY(tanh)
VOLTA_UNARY(exp)
VOLTA_UNARY(log)
VOLTA_UNARY(sqrt)
VOLTA_UNARY(rsqrt)
VOLTA_UNARY(abs)
VOLTA_UNARY(square)
VOLTA_UNARY(reciprocal)
#undef VOLTA_UNARY
Tensor Tensor::pow(const Scalar& e) const {
  return record("pow_scalar", {*this}, {e.toDouble()}, {}, sizes().vec(), scalar_type());
}
Tensor Tensor::clamp(optional<Scalar> lo, optional<Scalar> hi) const {
  return record("clamp", {*this}, {lo ? lo->toDouble() : 0, hi ? hi->toDouble() : 0},
                {lo.has_value(), hi.has_value()}, sizes().vec(), scalar_type());
}
#define VOLTA_REDUCE(NAME, OP)                                                                                \
  Tensor Tensor::NAME(IntArrayRef dims, bool keep, optional<ScalarType> t) const {                            \
    std::vector<int64_t> which;                                                                                \
    auto out = volta::reduced(*this, dims, keep, &which);                                                      \
    which.push_back(keep);                                                                                     \
    return record(OP, {*this}, {}, which, out, t.value_or(scalar_type()));                                    \
  }                                                                                                             \
  Tensor Tensor::NAME(optional<ScalarType> t) const { return NAME(IntArrayRef(), false, t); }
VOLTA_REDUCE(sum, "sum")
VOLTA_REDUCE(mean, "mean")
#undef VOLTA_REDUCE
// var/std: the reduced dims, then the correction (1 unbiased, 0 not), then keepdim, as "sum" records them
#define VOLTA_SPREAD(NAME)                                                                                    \
  Tensor Tensor::NAME(IntArrayRef dims, bool unbiased, bool keep) const {                                     \
    std::vector<int64_t> which;                                                                                \
    auto out = volta::reduced(*this, dims, keep, &which);                                                      \
    which.push_back(unbiased);                                                                                 \
    which.push_back(keep);                                                                                     \
    return record(#NAME, {*this}, {}, which, out, scalar_type());                                              \
  }                                                                                                             \
  Tensor Tensor::NAME(bool unbiased) const { return NAME(IntArrayRef(), unbiased, false); }
VOLTA_SPREAD(var)
VOLTA_SPREAD(std)
#undef VOLTA_SPREAD
Tensor Tensor::amax(IntArrayRef dims, bool keep) const {
  std::vector<int64_t> which;
  auto out = volta::reduced(*this, dims, keep, &which);
  which.push_back(keep);
  return record("amax", {*this}, {}, which, out, scalar_type());
}
Tensor Tensor::amin(IntArrayRef dims, bool keep) const {
  std::vector<int64_t> which;
  auto out = volta::reduced(*this, dims, keep, &which);
  which.push_back(keep);
  return record("amin", {*this}, {}, which, out, scalar_type());
}
Tensor Tensor::softmax(int64_t d, optional<ScalarType> t) const {
  return record("softmax", {*this}, {}, {volta::wrap(d, dim())}, sizes().vec(), t.value_or(scalar_type()));
}
Tensor Tensor::log_softmax(int64_t d, optional<ScalarType> t) const {
  return record("log_softmax", {*this}, {}, {volta::wrap(d, dim())}, sizes().vec(), t.value_or(scalar_type()));
}
Tensor Tensor::matmul(const Tensor& o) const {
  return record("matmul", {*this, o}, {}, {}, volta::matmul_shape(*this, o), volta::promote(*this, o));
}
Tensor Tensor::mm(const Tensor& o) const {
  TORCH_CHECK(dim() == 2, "self must be a matrix");
  TORCH_CHECK(o.dim() == 2, "mat2 must be a matrix");
  return matmul(o);
}
Tensor Tensor::bmm(const Tensor& o) const {
  TORCH_CHECK(dim() == 3, "batch1 must be a 3D tensor");
  TORCH_CHECK(o.dim() == 3, "batch2 must be a 3D tensor");
  TORCH_CHECK(size(0) == o.size(0), "batch1 and batch2 must have same number of batches");
  return matmul(o);
}

Tensor operator+(const Tensor& a, const Tensor& b) { return a.add(b); }
Tensor operator-(const Tensor& a, const Tensor& b) { return a.sub(b); }
Tensor operator*(const Tensor& a, const Tensor& b) { return a.mul(b); }
Tensor operator/(const Tensor& a, const Tensor& b) { return a.div(b); }
Tensor operator+(const Tensor& a, const Scalar& b) { return a.add(b); }
Tensor operator-(const Tensor& a, const Scalar& b) { return a.sub(b); }
Tensor operator*(const Tensor& a, const Scalar& b) { return a.mul(b); }
Tensor operator/(const Tensor& a, const Scalar& b) { return a.div(b); }
Tensor operator+(const Scalar& a, const Tensor& b) { return b.add(a); }
Tensor operator-(const Scalar& a, const Tensor& b) { return b.neg().add(a); }
Tensor operator*(const Scalar& a, const Tensor& b) { return b.mul(a); }
Tensor operator/(const Scalar& a, const Tensor& b) { return b.reciprocal().mul(a); }
Tensor operator-(const Tensor& a) { return a.neg(); }
std::ostream& operator<<(std::ostream& os, const Tensor& t) {
  return os << "Tensor(sizes=" << t.sizes() << ", dtype=" << t.scalar_type() << ")";
}

// ---- factories ----
Tensor empty(IntArrayRef s, TensorOptions o, optional<MemoryFormat>) { return volta::alloc(s.vec(), o.dtype(), "empty"); }
Tensor zeros(IntArrayRef s, TensorOptions o) { return volta::alloc(s.vec(), o.dtype(), "full", 0); }
Tensor ones(IntArrayRef s, TensorOptions o) { return volta::alloc(s.vec(), o.dtype(), "full", 1); }
Tensor full(IntArrayRef s, const Scalar& v, TensorOptions o) {
  return volta::alloc(s.vec(), o.has_dtype() ? o.dtype() : (v.isFloatingPoint() ? kFloat : kLong), "full",
                      v.toDouble());
}
Tensor empty_strided(IntArrayRef s, IntArrayRef st, TensorOptions o) {
  int64_t span = 1;
  for (size_t i = 0; i < s.size(); ++i) span += (s[i] - 1) * st[i];
  Tensor flat = volta::alloc({s.size() && volta::product(s.vec()) ? span : 0}, o.dtype(), "empty");
  return Tensor(volta::view_of(flat, s.vec(), st.vec(), 0));
}
// like-factories keep a dense non-contiguous layout (torch's MemoryFormat::Preserve)
static Tensor like(const Tensor& t, TensorOptions o, const char* init, double v) {
  ScalarType dt = o.has_dtype() ? o.dtype() : t.scalar_type();
  std::vector<std::pair<int64_t, int64_t>> order;
  for (int64_t i = 0; i < t.dim(); ++i) order.push_back({t.stride(i), -i});
  std::sort(order.rbegin(), order.rend());
  std::vector<int64_t> st(size_t(t.dim()));
  int64_t expected = 1;
  bool dense = true;
  for (size_t k = order.size(); k-- > 0;) {
    int64_t d = -order[k].second;
    if (t.stride(d) != expected && t.size(d) != 1) dense = false;
    st[size_t(d)] = expected;
    expected *= std::max<int64_t>(t.size(d), 1);
  }
  Tensor flat = volta::alloc({t.numel()}, dt, init, v);
  if (t.is_contiguous() || !dense) return flat.view(t.sizes());
  return Tensor(volta::view_of(flat, t.sizes().vec(), st, 0));
}
Tensor empty_like(const Tensor& t, TensorOptions o, optional<MemoryFormat>) { return like(t, o, "empty", 0); }
Tensor zeros_like(const Tensor& t, TensorOptions o, optional<MemoryFormat>) { return like(t, o, "full", 0); }
Tensor ones_like(const Tensor& t, TensorOptions o, optional<MemoryFormat>) { return like(t, o, "full", 1); }
Tensor full_like(const Tensor& t, const Scalar& v, TensorOptions o) { return like(t, o, "full", v.toDouble()); }
Tensor from_blob(void* data, IntArrayRef s, IntArrayRef st, TensorOptions o) {
  const volta::Allocation* a = volta::find_allocation(reinterpret_cast<uint64_t>(data));
  if (!a) volta::unmodelled("torch::from_blob over memory that is not a device allocation");
  auto impl = std::make_shared<volta::TensorImpl>();
  impl->base = a->base;
  impl->storage_bytes = a->bytes;
  impl->dtype = o.dtype();
  uint64_t delta = reinterpret_cast<uint64_t>(data) - a->base;
  TORCH_CHECK(delta % c10::elementSize(impl->dtype) == 0, "from_blob: the pointer is not aligned to its dtype");
  impl->offset = int64_t(delta / c10::elementSize(impl->dtype));
  impl->sizes = s.vec();
  impl->strides = st.vec();
  return Tensor(impl);
}
Tensor from_blob(void* data, IntArrayRef s, TensorOptions o) {
  return from_blob(data, s, IntArrayRef(volta::contiguous_strides(s.vec())), o);
}
Tensor matmul(const Tensor& a, const Tensor& b) { return a.matmul(b); }
Tensor mm(const Tensor& a, const Tensor& b) { return a.mm(b); }
Tensor bmm(const Tensor& a, const Tensor& b) { return a.bmm(b); }
Tensor addmm(const Tensor& self, const Tensor& a, const Tensor& b, const Scalar& beta, const Scalar& alpha) {
  auto shape = volta::matmul_shape(a, b);
  volta::broadcast(shape, self.sizes().vec());
  return record("addmm", {self, a, b}, {beta.toDouble(), alpha.toDouble()}, {}, shape, volta::promote(a, b));
}
Tensor linear(const Tensor& x, const Tensor& w, const optional<Tensor>& b) {
  auto shape = volta::matmul_shape(x, w.t());
  if (b && b->defined()) return record("linear", {x, w, *b}, {}, {}, shape, volta::promote(x, w));
  return record("linear", {x, w}, {}, {}, shape, volta::promote(x, w));
}
Tensor gelu(const Tensor& a, const std::string& approximate) {
  TORCH_CHECK(approximate == "none" || approximate == "tanh", "approximate argument must be either none or tanh.");
  return record(approximate == "tanh" ? "gelu_tanh" : "gelu", {a}, {}, {}, a.sizes().vec(), a.scalar_type());
}
Tensor cat(TensorList ts, int64_t d) {
  TORCH_CHECK(!ts.empty(), "torch.cat(): expected a non-empty list of Tensors");
  std::vector<int64_t> shape = ts[0].sizes().vec();
  d = volta::wrap(d, int64_t(shape.size()));
  shape[size_t(d)] = 0;
  std::vector<Tensor> in;
  for (const auto& t : ts) {
    TORCH_CHECK(t.dim() == int64_t(shape.size()), "Tensors must have same number of dimensions");
    shape[size_t(d)] += t.size(d);
    in.push_back(t);
  }
  return record("cat", in, {}, {d}, shape, ts[0].scalar_type());
}
}  // namespace at
