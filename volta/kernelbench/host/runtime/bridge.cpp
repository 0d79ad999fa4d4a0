// The worker's entry points (extern "C", called through ctypes) and the trace, allocator and registries.
#include <cstdio>

#include "runtime.h"

namespace volta {
namespace {
std::string g_trace;
std::string g_result;
std::string g_loading;
uint64_t g_next_slot = 0;
std::map<uint64_t, Allocation> g_allocations;  // by base
std::map<std::string, void (*)(void*)> g_pending_modules;
std::map<std::string, Caller> g_functions;     // "module\nname"
std::vector<std::pair<std::string, std::string>> g_function_order;
}  // namespace

std::string json_escape(const std::string& s) {
  std::string out;
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') { out += '\\'; out += static_cast<char>(c); }
    else if (c < 0x20) { char buf[8]; std::snprintf(buf, sizeof buf, "\\u%04x", c); out += buf; }
    else out += static_cast<char>(c);
  }
  return out;
}

std::string hex(const void* data, size_t n) {
  static const char* digits = "0123456789abcdef";
  std::string out(2 * n, '0');
  const unsigned char* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < n; ++i) { out[2 * i] = digits[p[i] >> 4]; out[2 * i + 1] = digits[p[i] & 15]; }
  return out;
}

const char* dtype_name(c10::ScalarType t) {
  switch (t) {
    case c10::ScalarType::Byte: return "uint8";
    case c10::ScalarType::Char: return "int8";
    case c10::ScalarType::Short: return "int16";
    case c10::ScalarType::Int: return "int32";
    case c10::ScalarType::Long: return "int64";
    case c10::ScalarType::Half: return "float16";
    case c10::ScalarType::Float: return "float32";
    case c10::ScalarType::Double: return "float64";
    case c10::ScalarType::Bool: return "bool";
    case c10::ScalarType::BFloat16: return "bfloat16";
    default: return "undefined";
  }
}

void emit(const std::string& event_json) { g_trace += event_json; g_trace += '\n'; }

uint64_t allocate(int64_t bytes) {
  if (bytes < 0 || bytes >= (int64_t(1) << SLOT_SHIFT))
    unmodelled("an allocation of " + std::to_string(bytes) + " bytes (Volta models up to 4 GiB per storage)");
  uint64_t base = RUNTIME_BASE + (g_next_slot++ << SLOT_SHIFT);
  g_allocations[base] = {base, bytes};
  return base;
}

void remember(uint64_t base, int64_t bytes) { g_allocations[base] = {base, bytes}; }

const Allocation* find_allocation(uint64_t address) {
  auto it = g_allocations.upper_bound(address);
  if (it == g_allocations.begin()) return nullptr;
  --it;
  return address - it->first < (uint64_t(1) << SLOT_SHIFT) ? &it->second : nullptr;
}

bool is_device_address(const void* p) {
  uint64_t a = reinterpret_cast<uint64_t>(p);
  return a >= PARENT_BASE && a < RUNTIME_BASE + (uint64_t(1) << 60);
}

std::string module_loading() { return g_loading; }

void unmodelled(const std::string& what) { throw Unmodelled(what); }

void bad_argument(size_t index, const char* expected, const VoltaArg& got) {
  static const char* names[] = {"None", "Tensor", "int", "float", "bool", "List[int]", "List[float]", "str",
                                "List[Tensor]"};
  const char* given = got.tag >= 0 && got.tag <= 8 ? names[got.tag] : "?";
  throw c10::TypeError(c10::detail::str("incompatible function arguments: argument ", index, " must be ",
                                        expected, ", not ", given));
}

int register_module(const char* name, void (*init)(void*)) {
  g_pending_modules[name] = init;
  return 0;
}

void register_function(const std::string& module, const std::string& name, Caller call) {
  std::string key = module + "\n" + name;
  if (!g_functions.count(key)) g_function_order.emplace_back(module, name);
  g_functions[key] = std::move(call);
}

}  // namespace volta

namespace c10 {
namespace detail {
void torch_check_fail(const char* file, int line, const std::string& msg) {
  (void)file;
  (void)line;
  throw c10::Error(msg);
}
}  // namespace detail
}  // namespace c10

extern "C" {

void volta_begin_load(const char* module) { volta::g_loading = module; }

// Run the PYBIND11_MODULE bodies of the libraries loaded so far; the JSON list of bound functions.
const char* volta_init_modules() {
  auto pending = volta::g_pending_modules;
  volta::g_pending_modules.clear();
  for (auto& [name, init] : pending) {
    pybind11::module_ m(name.c_str());
    init(&m);
  }
  volta::g_result = "[";
  bool first = true;
  for (auto& [module, name] : volta::g_function_order) {
    volta::g_result += (first ? "" : ",") + std::string("[\"") + volta::json_escape(module) + "\",\"" +
                       volta::json_escape(name) + "\"]";
    first = false;
  }
  volta::g_result += "]";
  return volta::g_result.c_str();
}

// 0: returned (volta_result: the value); 1: raised (volta_result: {"type", "message"}); 2: outside the model
int volta_call(const char* module, const char* fn, const VoltaArg* args, int n) {
  auto it = volta::g_functions.find(std::string(module) + "\n" + fn);
  if (it == volta::g_functions.end()) {
    volta::g_result = std::string("{\"type\":\"AttributeError\",\"message\":\"module '") +
                      volta::json_escape(module) + "' has no attribute '" + volta::json_escape(fn) + "'\"}";
    return 1;
  }
  auto raised = [](const char* type, const std::string& msg) {
    volta::g_result = std::string("{\"type\":\"") + type + "\",\"message\":\"" + volta::json_escape(msg) + "\"}";
  };
  try {
    volta::g_result = it->second(args, n);
    return 0;
  } catch (const volta::Unmodelled& e) {
    raised("Unmodelled", e.what());
    return 2;
  } catch (const c10::TypeError& e) {
    raised("TypeError", e.what());
  } catch (const c10::IndexError& e) {
    raised("IndexError", e.what());
  } catch (const c10::ValueError& e) {
    raised("ValueError", e.what());
  } catch (const std::exception& e) {
    raised("RuntimeError", e.what());
  } catch (...) {
    raised("RuntimeError", "an exception of a type not derived from std::exception");
  }
  return 1;
}

const char* volta_result() { return volta::g_result.c_str(); }

const char* volta_take_trace() {
  static std::string taken;
  taken.swap(volta::g_trace);
  volta::g_trace.clear();
  return taken.c_str();
}

}  // extern "C"
