// A CUDA runtime with no GPU: launches, copies, memsets, allocations, streams and events are recorded in the
// trace (runtime.h) for Volta to execute; nothing runs here. The launch stub nvcc generates for `k<<<g, b>>>`
// calls __cudaPushCallConfiguration / __cudaPopCallConfiguration / __cudaGetKernel / __cudaLaunchKernel,
// and the module constructor registers each kernel's host stub with its mangled name (__cudaRegisterFunction).
// A launch CUDA would refuse (no blocks, too many threads, too much shared memory) records why instead
// and sets the error cudaGetLastError returns, as the real runtime does.
#include "runtime.h"

namespace volta {
namespace {
struct Kernel {
  std::string module, name;
  std::vector<int64_t> param_sizes;
  bool sized = false;
  int max_dynamic_shared = 48 * 1024;
};
struct Symbol {
  std::string module, name;
  size_t size;
  bool constant;
};
struct Config {
  dim3 grid, block;
  size_t shared;
  cudaStream_t stream;
};
std::map<const void*, Kernel> g_kernels;   // by host stub
std::map<const void*, Symbol> g_symbols;   // by host shadow variable
std::vector<Config> g_configs;
cudaError_t g_last_error = cudaSuccess;
cudaStream_t g_current = nullptr;
int64_t g_next_stream = 16, g_next_event = 1;
std::map<cudaStream_t, int64_t> g_streams;
std::map<cudaEvent_t, int64_t> g_events;
int g_fatbin_dummy;

cudaError_t fail(cudaError_t e) { g_last_error = e; return e; }

std::string dims(dim3 d) {
  return "[" + std::to_string(d.x) + "," + std::to_string(d.y) + "," + std::to_string(d.z) + "]";
}

std::string addr(const void* p) { return std::to_string(reinterpret_cast<uint64_t>(p)); }

const char* refusal(const dim3& g, const dim3& b, size_t shared, const Kernel& k) {
  if (g.x == 0 || g.y == 0 || g.z == 0 || b.x == 0 || b.y == 0 || b.z == 0)
    return "a grid or block dimension is 0 (cudaErrorInvalidConfiguration)";
  if (uint64_t(b.x) * b.y * b.z > 1024) return "the block has more than 1024 threads (cudaErrorInvalidConfiguration)";
  if (b.x > 1024 || b.y > 1024 || b.z > 64) return "a block dimension exceeds 1024 x 1024 x 64 (cudaErrorInvalidConfiguration)";
  if (g.y > 65535 || g.z > 65535) return "grid y or z exceeds 65535 (cudaErrorInvalidConfiguration)";
  if (shared > size_t(k.max_dynamic_shared))
    return "the dynamic shared memory exceeds the kernel's limit (48 KiB unless cudaFuncSetAttribute raised it)"
           " (cudaErrorInvalidValue)";
  return nullptr;
}

cudaError_t launch(const void* fun, dim3 g, dim3 b, void** args, size_t shared, cudaStream_t s, bool cooperative) {
  auto it = g_kernels.find(fun);
  if (it == g_kernels.end()) return fail(cudaErrorInvalidDeviceFunction);
  Kernel& k = it->second;
  if (!k.sized) unmodelled("a launch of `" + k.name + "`, whose parameters the worker was not told");
  std::string head = "{\"e\":\"launch\",\"module\":\"" + json_escape(k.module) + "\",\"kernel\":\"" +
                     json_escape(k.name) + "\",\"grid\":" + dims(g) + ",\"block\":" + dims(b) +
                     ",\"shared\":" + std::to_string(shared) + ",\"stream\":" + std::to_string(stream_id(s)) +
                     (cooperative ? ",\"cooperative\":true" : "");
  if (const char* why = refusal(g, b, shared, k)) {
    emit(head + ",\"refused\":\"" + json_escape(why) + "\"}");
    return fail(shared > size_t(k.max_dynamic_shared) ? cudaErrorInvalidValue : cudaErrorInvalidConfiguration);
  }
  std::string a = ",\"args\":[";
  for (size_t i = 0; i < k.param_sizes.size(); ++i)
    a += (i ? ",\"" : "\"") + hex(args[i], size_t(k.param_sizes[i])) + "\"";
  emit(head + a + "]}");
  return cudaSuccess;
}

const char* memcpy_kind(const void* dst, const void* src) {
  bool d = is_device_address(dst), h = is_device_address(src);
  return d && h ? "d2d" : d ? "h2d" : h ? "d2h" : "h2h";
}

cudaError_t copy(void* dst, const void* src, size_t n, cudaStream_t s) {
  std::string kind = memcpy_kind(dst, src);
  if (kind == "d2h") unmodelled("a copy of device memory to the host (cudaMemcpy device to host: a host read of "
                                "device data)");
  if (kind == "h2h") { std::memcpy(dst, src, n); return cudaSuccess; }
  if (kind == "h2d")
    emit("{\"e\":\"upload\",\"dst\":" + addr(dst) + ",\"bytes\":" + std::to_string(n) + ",\"hex\":\"" + hex(src, n) +
         "\",\"stream\":" + std::to_string(stream_id(s)) + "}");
  else
    emit("{\"e\":\"copy\",\"dst\":" + addr(dst) + ",\"src\":" + addr(src) + ",\"bytes\":" + std::to_string(n) +
         ",\"stream\":" + std::to_string(stream_id(s)) + "}");
  return cudaSuccess;
}

cudaError_t set(void* dst, int value, size_t n, cudaStream_t s) {
  if (!is_device_address(dst)) { std::memset(dst, value, n); return cudaSuccess; }
  emit("{\"e\":\"memset\",\"dst\":" + addr(dst) + ",\"value\":" + std::to_string(value & 0xff) + ",\"bytes\":" +
       std::to_string(n) + ",\"stream\":" + std::to_string(stream_id(s)) + "}");
  return cudaSuccess;
}

cudaError_t to_symbol(const void* symbol, const void* src, size_t n, size_t offset, cudaMemcpyKind kind,
                      cudaStream_t s) {
  auto it = g_symbols.find(symbol);
  if (it == g_symbols.end()) return fail(cudaErrorInvalidSymbol);
  if (offset + n > it->second.size) return fail(cudaErrorInvalidValue);
  std::string head = "{\"e\":\"symbol\",\"module\":\"" + json_escape(it->second.module) + "\",\"symbol\":\"" +
                     json_escape(it->second.name) + "\",\"offset\":" + std::to_string(offset) + ",\"bytes\":" +
                     std::to_string(n) + ",\"stream\":" + std::to_string(stream_id(s));
  if (is_device_address(src) || kind == cudaMemcpyDeviceToDevice)
    emit(head + ",\"src\":" + addr(src) + "}");
  else
    emit(head + ",\"hex\":\"" + hex(src, n) + "\"}");
  return cudaSuccess;
}

cudaDeviceProp make_properties() {
  cudaDeviceProp p;
  std::memset(&p, 0, sizeof p);
  std::strcpy(p.name, "Volta symbolic device (sm_80 limits)");
  p.totalGlobalMem = size_t(80) << 30;
  p.sharedMemPerBlock = 48 * 1024;
  p.sharedMemPerBlockOptin = 166912;
  p.sharedMemPerMultiprocessor = 167936;
  p.regsPerBlock = 65536;
  p.regsPerMultiprocessor = 65536;
  p.warpSize = 32;
  p.maxThreadsPerBlock = 1024;
  p.maxThreadsDim[0] = 1024; p.maxThreadsDim[1] = 1024; p.maxThreadsDim[2] = 64;
  p.maxGridSize[0] = 2147483647; p.maxGridSize[1] = 65535; p.maxGridSize[2] = 65535;
  p.totalConstMem = 65536;
  p.major = 8;
  p.minor = 0;
  p.multiProcessorCount = 108;
  p.maxThreadsPerMultiProcessor = 2048;
  p.maxBlocksPerMultiProcessor = 32;
  p.l2CacheSize = 40 * 1024 * 1024;
  p.memoryBusWidth = 5120;
  return p;
}
}  // namespace

int64_t stream_id(cudaStream_t s) {
  if (s == nullptr || s == cudaStreamLegacy || s == cudaStreamPerThread) return 0;
  auto it = g_streams.find(s);
  return it == g_streams.end() ? -1 : it->second;
}

cudaStream_t current_stream() { return g_current; }
void set_current_stream(cudaStream_t s) { g_current = s; }
cudaStream_t pool_stream() {
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  return s;
}

const cudaDeviceProp* device_properties() {
  static cudaDeviceProp p = make_properties();
  emit("{\"e\":\"device_query\",\"what\":\"device properties\"}");
  return &p;
}

void cuda_failure(cudaError_t err, const char* expr, const char* file, int line) {
  (void)file;
  (void)line;
  throw c10::Error(std::string("CUDA error: ") + cudaGetErrorString(err) + " (" + expr + ")");
}

}  // namespace volta

using namespace volta;

extern "C" {

// ---- registration (the module constructors nvcc generates) ----
void** __cudaRegisterFatBinary(void*) { return reinterpret_cast<void**>(&g_fatbin_dummy); }
void __cudaRegisterFatBinaryEnd(void**) {}
void __cudaUnregisterFatBinary(void**) {}
char __cudaInitModule(void**) { return 0; }
void __cudaRegisterFunction(void**, const char* hostFun, char*, const char* deviceName, int, uint3*, uint3*, dim3*,
                            dim3*, int*) {
  Kernel k;
  k.module = module_loading();
  k.name = deviceName;
  g_kernels[hostFun] = k;
}
void __cudaRegisterVar(void**, char* hostVar, char*, const char* deviceName, int, size_t size, int constant, int) {
  g_symbols[hostVar] = {module_loading(), deviceName, size, constant != 0};
}
void __cudaRegisterManagedVar(void**, void** hostVarPtrAddress, char*, const char* deviceName, int, size_t size,
                              int constant, int) {
  g_symbols[hostVarPtrAddress] = {module_loading(), deviceName, size, constant != 0};
}

// The worker says how many bytes each parameter of a kernel takes (from the PTX), once per kernel.
void volta_set_params(const char* module, const char* kernel, int n, const int64_t* sizes) {
  for (auto& [fun, k] : g_kernels)
    if (k.module == module && k.name == kernel) {
      k.param_sizes.assign(sizes, sizes + n);
      k.sized = true;
    }
}

// JSON list of [module, kernel] pairs registered so far
const char* volta_kernels() {
  static std::string out;
  out = "[";
  bool first = true;
  for (auto& [fun, k] : g_kernels) {
    out += (first ? "" : ",") + std::string("[\"") + json_escape(k.module) + "\",\"" + json_escape(k.name) + "\"]";
    first = false;
  }
  return (out += "]").c_str();
}

// ---- launches ----
unsigned __cudaPushCallConfiguration(dim3 grid, dim3 block, size_t shared, struct CUstream_st* stream) {
  g_configs.push_back({grid, block, shared, stream});
  return 0;
}
cudaError_t __cudaPopCallConfiguration(dim3* grid, dim3* block, size_t* shared, void* stream) {
  if (g_configs.empty()) return cudaErrorMissingConfiguration;
  Config c = g_configs.back();
  g_configs.pop_back();
  *grid = c.grid;
  *block = c.block;
  *shared = c.shared;
  *static_cast<cudaStream_t*>(stream) = c.stream;
  return cudaSuccess;
}
cudaError_t __cudaGetKernel(cudaKernel_t* kernel, const void* fun) {
  *kernel = reinterpret_cast<cudaKernel_t>(const_cast<void*>(fun));
  return cudaSuccess;
}
cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 g, dim3 b, void** args, size_t shared, cudaStream_t s) {
  return launch(reinterpret_cast<const void*>(kernel), g, b, args, shared, s, false);
}
cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 g, dim3 b, void** args, size_t shared,
                                    cudaStream_t s) {
  return launch(reinterpret_cast<const void*>(kernel), g, b, args, shared, s, false);
}
cudaError_t cudaLaunchKernel(const void* fun, dim3 g, dim3 b, void** args, size_t shared, cudaStream_t s) {
  return launch(fun, g, b, args, shared, s, false);
}
cudaError_t cudaLaunchCooperativeKernel(const void* fun, dim3 g, dim3 b, void** args, size_t shared,
                                        cudaStream_t s) {
  return launch(fun, g, b, args, shared, s, true);
}
cudaError_t cudaFuncSetAttribute(const void* fun, cudaFuncAttribute attr, int value) {
  auto it = g_kernels.find(fun);
  if (it == g_kernels.end()) return fail(cudaErrorInvalidDeviceFunction);
  if (attr == cudaFuncAttributeMaxDynamicSharedMemorySize) {
    if (value > 166912) return fail(cudaErrorInvalidValue);
    it->second.max_dynamic_shared = value;
  }
  return cudaSuccess;
}
cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* attr, const void* fun) {
  if (!g_kernels.count(fun)) return fail(cudaErrorInvalidDeviceFunction);
  std::memset(attr, 0, sizeof *attr);
  attr->maxThreadsPerBlock = 1024;
  attr->numRegs = 32;
  attr->maxDynamicSharedSizeBytes = g_kernels[fun].max_dynamic_shared;
  attr->ptxVersion = 80;
  attr->binaryVersion = 80;
  emit("{\"e\":\"device_query\",\"what\":\"cudaFuncGetAttributes\"}");
  return cudaSuccess;
}
cudaError_t cudaFuncSetCacheConfig(const void*, cudaFuncCache) { return cudaSuccess; }
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* n, const void*, int block, size_t) {
  *n = block > 0 ? std::max(1, std::min(32, 2048 / block)) : 0;
  emit("{\"e\":\"device_query\",\"what\":\"cudaOccupancyMaxActiveBlocksPerMultiprocessor\"}");
  return cudaSuccess;
}
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int* n, const void* f, int block, size_t s,
                                                                   unsigned) {
  return cudaOccupancyMaxActiveBlocksPerMultiprocessor(n, f, block, s);
}

// ---- errors and the device ----
cudaError_t cudaGetLastError() { cudaError_t e = g_last_error; g_last_error = cudaSuccess; return e; }
cudaError_t cudaPeekAtLastError() { return g_last_error; }
const char* cudaGetErrorString(cudaError_t e) {
  switch (e) {
    case cudaSuccess: return "no error";
    case cudaErrorInvalidValue: return "invalid argument";
    case cudaErrorInvalidConfiguration: return "invalid configuration argument";
    case cudaErrorInvalidDeviceFunction: return "invalid device function";
    case cudaErrorInvalidSymbol: return "invalid device symbol";
    case cudaErrorMissingConfiguration: return "__global__ function call is not configured";
    default: return "unknown error";
  }
}
const char* cudaGetErrorName(cudaError_t e) { return e == cudaSuccess ? "cudaSuccess" : "cudaError"; }
cudaError_t cudaGetDevice(int* d) { *d = 0; return cudaSuccess; }
cudaError_t cudaSetDevice(int) { return cudaSuccess; }
cudaError_t cudaGetDeviceCount(int* n) { *n = 1; return cudaSuccess; }
cudaError_t cudaDeviceSynchronize() { emit("{\"e\":\"device_sync\"}"); return cudaSuccess; }
cudaError_t cudaGetDeviceProperties(cudaDeviceProp* p, int) { *p = *device_properties(); return cudaSuccess; }
cudaError_t cudaDeviceGetAttribute(int* v, cudaDeviceAttr attr, int) {
  const cudaDeviceProp& p = *device_properties();
  switch (attr) {
    case cudaDevAttrMultiProcessorCount: *v = p.multiProcessorCount; break;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin: *v = int(p.sharedMemPerBlockOptin); break;
    case cudaDevAttrMaxSharedMemoryPerBlock: *v = int(p.sharedMemPerBlock); break;
    case cudaDevAttrMaxSharedMemoryPerMultiprocessor: *v = int(p.sharedMemPerMultiprocessor); break;
    case cudaDevAttrMaxThreadsPerBlock: *v = p.maxThreadsPerBlock; break;
    case cudaDevAttrMaxThreadsPerMultiProcessor: *v = p.maxThreadsPerMultiProcessor; break;
    case cudaDevAttrWarpSize: *v = p.warpSize; break;
    case cudaDevAttrComputeCapabilityMajor: *v = p.major; break;
    case cudaDevAttrComputeCapabilityMinor: *v = p.minor; break;
    case cudaDevAttrMaxGridDimX: *v = p.maxGridSize[0]; break;
    case cudaDevAttrMaxGridDimY: *v = p.maxGridSize[1]; break;
    case cudaDevAttrMaxGridDimZ: *v = p.maxGridSize[2]; break;
    case cudaDevAttrMaxBlockDimX: *v = p.maxThreadsDim[0]; break;
    case cudaDevAttrMaxBlockDimY: *v = p.maxThreadsDim[1]; break;
    case cudaDevAttrMaxBlockDimZ: *v = p.maxThreadsDim[2]; break;
    case cudaDevAttrL2CacheSize: *v = p.l2CacheSize; break;
    case cudaDevAttrMaxRegistersPerBlock: *v = p.regsPerBlock; break;
    default: unmodelled("cudaDeviceGetAttribute for attribute " + std::to_string(int(attr)));
  }
  return cudaSuccess;
}
cudaError_t cudaDeviceGetStreamPriorityRange(int* least, int* greatest) {
  *least = 0;
  *greatest = -5;
  return cudaSuccess;
}
cudaError_t cudaDeviceSetCacheConfig(cudaFuncCache) { return cudaSuccess; }
cudaError_t cudaMemGetInfo(size_t* free_bytes, size_t* total) {
  *free_bytes = size_t(70) << 30;
  *total = size_t(80) << 30;
  return cudaSuccess;
}

// ---- memory ----
cudaError_t cudaMalloc(void** p, size_t n) {
  uint64_t base = allocate(int64_t(n));
  emit("{\"e\":\"malloc\",\"base\":" + std::to_string(base) + ",\"bytes\":" + std::to_string(n) + "}");
  *p = reinterpret_cast<void*>(base);
  return cudaSuccess;
}
cudaError_t cudaMallocAsync(void** p, size_t n, cudaStream_t) { return cudaMalloc(p, n); }
cudaError_t cudaFree(void* p) {
  if (p) emit("{\"e\":\"free\",\"base\":" + addr(p) + "}");
  return cudaSuccess;
}
cudaError_t cudaFreeAsync(void* p, cudaStream_t) { return cudaFree(p); }
cudaError_t cudaMallocHost(void** p, size_t n) { *p = std::malloc(n ? n : 1); return cudaSuccess; }
cudaError_t cudaHostAlloc(void** p, size_t n, unsigned) { return cudaMallocHost(p, n); }
cudaError_t cudaFreeHost(void* p) { std::free(p); return cudaSuccess; }
cudaError_t cudaMallocManaged(void**, size_t, unsigned) {
  unmodelled("cudaMallocManaged (managed memory is readable on the host)");
}
cudaError_t cudaMemset(void* p, int v, size_t n) { return set(p, v, n, nullptr); }
cudaError_t cudaMemsetAsync(void* p, int v, size_t n, cudaStream_t s) { return set(p, v, n, s); }
cudaError_t cudaMemcpy(void* d, const void* s, size_t n, cudaMemcpyKind) { return copy(d, s, n, nullptr); }
cudaError_t cudaMemcpyAsync(void* d, const void* s, size_t n, cudaMemcpyKind, cudaStream_t st) {
  return copy(d, s, n, st);
}
cudaError_t cudaMemcpyToSymbol(const void* sym, const void* src, size_t n, size_t off, cudaMemcpyKind k) {
  return to_symbol(sym, src, n, off, k, nullptr);
}
cudaError_t cudaMemcpyToSymbolAsync(const void* sym, const void* src, size_t n, size_t off, cudaMemcpyKind k,
                                    cudaStream_t s) {
  return to_symbol(sym, src, n, off, k, s);
}
cudaError_t cudaMemcpyFromSymbol(void*, const void*, size_t, size_t, cudaMemcpyKind) {
  unmodelled("cudaMemcpyFromSymbol (a host read of device data)");
}

// ---- streams and events ----
cudaError_t cudaStreamCreateWithPriority(cudaStream_t* s, unsigned flags, int priority) {
  int64_t id = g_next_stream++;
  *s = reinterpret_cast<cudaStream_t>(0x5000 + id);
  g_streams[*s] = id;
  emit("{\"e\":\"stream_create\",\"stream\":" + std::to_string(id) + ",\"flags\":" + std::to_string(flags) +
       ",\"priority\":" + std::to_string(priority) + "}");
  return cudaSuccess;
}
cudaError_t cudaStreamCreateWithFlags(cudaStream_t* s, unsigned flags) {
  return cudaStreamCreateWithPriority(s, flags, 0);
}
cudaError_t cudaStreamCreate(cudaStream_t* s) { return cudaStreamCreateWithPriority(s, 0, 0); }
cudaError_t cudaStreamDestroy(cudaStream_t s) {
  emit("{\"e\":\"stream_destroy\",\"stream\":" + std::to_string(stream_id(s)) + "}");
  return cudaSuccess;
}
cudaError_t cudaStreamSynchronize(cudaStream_t s) {
  emit("{\"e\":\"stream_sync\",\"stream\":" + std::to_string(stream_id(s)) + "}");
  return cudaSuccess;
}
cudaError_t cudaStreamQuery(cudaStream_t) { return cudaSuccess; }
cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t e, unsigned) {
  emit("{\"e\":\"stream_wait\",\"stream\":" + std::to_string(stream_id(s)) + ",\"event\":" +
       std::to_string(g_events[e]) + "}");
  return cudaSuccess;
}
cudaError_t cudaEventCreateWithFlags(cudaEvent_t* e, unsigned) {
  int64_t id = g_next_event++;
  *e = reinterpret_cast<cudaEvent_t>(0x6000 + id);
  g_events[*e] = id;
  return cudaSuccess;
}
cudaError_t cudaEventCreate(cudaEvent_t* e) { return cudaEventCreateWithFlags(e, 0); }
cudaError_t cudaEventDestroy(cudaEvent_t) { return cudaSuccess; }
cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s) {
  emit("{\"e\":\"event_record\",\"event\":" + std::to_string(g_events[e]) + ",\"stream\":" +
       std::to_string(stream_id(s)) + "}");
  return cudaSuccess;
}
cudaError_t cudaEventSynchronize(cudaEvent_t e) {
  emit("{\"e\":\"event_sync\",\"event\":" + std::to_string(g_events[e]) + "}");
  return cudaSuccess;
}
cudaError_t cudaEventQuery(cudaEvent_t) { return cudaSuccess; }
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t, cudaEvent_t) {
  emit("{\"e\":\"device_query\",\"what\":\"cudaEventElapsedTime (a timing)\"}");
  *ms = 1.0f;
  return cudaSuccess;
}

}  // extern "C"
