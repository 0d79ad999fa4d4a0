// Shared state of Volta's host runtime (libvoltahost.so): the trace being recorded, fake device memory,
// registered kernels and symbols, and the calls the worker makes (volta/kernelbench/host/worker.py).
//
// One process runs one candidate's host code; everything here is process-global as the CUDA runtime's
// own state is. The trace is JSON lines, one event each, taken by the worker after every call.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "volta/all.h"

namespace volta {

// Fake device addresses are non-canonical on x86-64 (above 2^63 - 2^47), so the host dereferencing one
// faults instead of reading host memory, and none can equal a host pointer. Each storage has its own
// 4 GiB slot: parent storages from PARENT_BASE, allocations made here from RUNTIME_BASE.
constexpr uint64_t PARENT_BASE = 0x1000000000000000ull;
constexpr uint64_t RUNTIME_BASE = 0x2000000000000000ull;
constexpr int SLOT_SHIFT = 32;

// an exception that stops the call: outside what Volta models (a host read of device data, ...)
struct Unmodelled : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Allocation {
  uint64_t base;
  int64_t bytes;
};

std::string json_escape(const std::string& s);
std::string hex(const void* data, size_t n);
const char* dtype_name(c10::ScalarType t);

void emit(const std::string& event_json);           // append one event to the trace
uint64_t allocate(int64_t bytes);                    // a fresh slot of fake device memory
void remember(uint64_t base, int64_t bytes);         // a storage the parent passed in
const Allocation* find_allocation(uint64_t address); // the storage holding `address`, or null
bool is_device_address(const void* p);
int64_t stream_id(cudaStream_t s);
std::string module_loading();                        // the extension being loaded (registrations belong to it)
[[noreturn]] void unmodelled(const std::string& what);

}  // namespace volta
