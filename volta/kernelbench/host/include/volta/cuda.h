// at::cuda / c10::cuda: the current stream, stream pools and guards, device properties, launch checks.
// Streams are the stand-in CUDA runtime's (volta/kernelbench/host/runtime/cudart.cpp): the current stream is
// the default stream unless a guard sets another, as in torch.
#pragma once
#include "tensor.h"

namespace volta {
cudaStream_t current_stream();
void set_current_stream(cudaStream_t s);
cudaStream_t pool_stream();
const cudaDeviceProp* device_properties();
[[noreturn]] void cuda_failure(cudaError_t err, const char* expr, const char* file, int line);
}  // namespace volta

namespace c10 {
namespace cuda {
class CUDAStream {
 public:
  explicit CUDAStream(cudaStream_t s = nullptr) : s_(s) {}
  cudaStream_t stream() const { return s_; }
  operator cudaStream_t() const { return s_; }
  int64_t id() const { return reinterpret_cast<int64_t>(s_); }
  at::Device device() const { return at::Device(at::kCUDA, 0); }
  int device_index() const { return 0; }
  void synchronize() const { cudaStreamSynchronize(s_); }
  bool operator==(const CUDAStream& o) const { return s_ == o.s_; }
  bool operator!=(const CUDAStream& o) const { return s_ != o.s_; }

 private:
  cudaStream_t s_;
};
inline CUDAStream getCurrentCUDAStream(int = -1) { return CUDAStream(volta::current_stream()); }
inline CUDAStream getDefaultCUDAStream(int = -1) { return CUDAStream(nullptr); }
inline CUDAStream getStreamFromPool(bool = false, int = -1) { return CUDAStream(volta::pool_stream()); }
inline void setCurrentCUDAStream(CUDAStream s) { volta::set_current_stream(s.stream()); }
inline int current_device() { return 0; }
inline void device_synchronize() { cudaDeviceSynchronize(); }

class CUDAStreamGuard {
 public:
  explicit CUDAStreamGuard(CUDAStream s) : prev_(volta::current_stream()) { volta::set_current_stream(s.stream()); }
  ~CUDAStreamGuard() { volta::set_current_stream(prev_); }
  CUDAStreamGuard(const CUDAStreamGuard&) = delete;

 private:
  cudaStream_t prev_;
};
class OptionalCUDAStreamGuard {
 public:
  OptionalCUDAStreamGuard() = default;
  explicit OptionalCUDAStreamGuard(optional<CUDAStream> s) : prev_(volta::current_stream()) {
    if (s) volta::set_current_stream(s->stream());
  }
  ~OptionalCUDAStreamGuard() { volta::set_current_stream(prev_); }

 private:
  cudaStream_t prev_ = volta::current_stream();
};
// one device: guards only check that the device is the GPU
struct CUDAGuard {
  explicit CUDAGuard(at::Device) {}
  explicit CUDAGuard(int) {}
  void set_device(at::Device) {}
  void set_index(int) {}
};
struct OptionalCUDAGuard {
  OptionalCUDAGuard() = default;
  explicit OptionalCUDAGuard(optional<at::Device>) {}
  explicit OptionalCUDAGuard(at::Device) {}
  void set_device(at::Device) {}
  void set_index(int) {}
  void reset() {}
};
}  // namespace cuda
inline optional<at::Device> device_of(const at::Tensor&) { return at::Device(at::kCUDA, 0); }
}  // namespace c10

namespace at {
using c10::device_of;
namespace cuda {
using c10::cuda::CUDAGuard;
using c10::cuda::CUDAStream;
using c10::cuda::CUDAStreamGuard;
using c10::cuda::getCurrentCUDAStream;
using c10::cuda::getDefaultCUDAStream;
using c10::cuda::getStreamFromPool;
using c10::cuda::OptionalCUDAGuard;
using c10::cuda::OptionalCUDAStreamGuard;
using c10::cuda::setCurrentCUDAStream;
inline const cudaDeviceProp* getCurrentDeviceProperties() { return volta::device_properties(); }
inline const cudaDeviceProp* getDeviceProperties(int) { return volta::device_properties(); }
inline int getNumGPUs() { return 1; }
inline bool is_available() { return true; }
inline int current_device() { return 0; }
}  // namespace cuda
}  // namespace at

#define C10_CUDA_CHECK(EXPR)                                                                                   \
  do {                                                                                                          \
    const cudaError_t _volta_err = (EXPR);                                                                      \
    if (_volta_err != cudaSuccess) ::volta::cuda_failure(_volta_err, #EXPR, __FILE__, __LINE__);                \
  } while (0)
#define AT_CUDA_CHECK(EXPR) C10_CUDA_CHECK(EXPR)
#define C10_CUDA_KERNEL_LAUNCH_CHECK() C10_CUDA_CHECK(cudaGetLastError())
#define C10_CUDA_CHECK_WARN(EXPR) ((void)(EXPR))
#define C10_CUDA_IGNORE_ERROR(EXPR) ((void)(EXPR))
