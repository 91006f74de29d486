// libFuzzer harness for the trace decorator's line formatter
// (hsakmt/hsakmt_trace.h): arbitrary requests, argument bytes, paths and
// results must always give exactly one line per call that fits in
// HKE_TRACE_LINE_MAX, ends in its only '\n', is NUL-terminated and starts
// with the expected sequence number.
//
// Input: [op selector][result selector][request, 4 bytes LE][payload...]
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "hsakmt/hsakmt_trace.h"

namespace {

struct Input {
  int result;
  const unsigned char* payload;
  size_t payload_size;
};

Input* In(void* self) { return static_cast<Input*>(self); }

int Open(void* self, const char*, uint32_t, int* out) {
  if (In(self)->result == 0) *out = 3;
  return In(self)->result;
}
int Close(void* self, int) { return In(self)->result; }
int Ioctl(void* self, int, uint32_t, void*) { return In(self)->result; }
int Mmap(void* self, void*, size_t, uint32_t, uint32_t, int, uint64_t, void** out) {
  if (In(self)->result == 0) *out = reinterpret_cast<void*>(0x1000);
  return In(self)->result;
}
int Munmap(void* self, void*, size_t) { return In(self)->result; }
int Madvise(void* self, void*, size_t, uint32_t) { return In(self)->result; }
int ReadFile(void* self, const char*, char*, size_t, size_t* out) {
  if (In(self)->result == 0) *out = 0;
  return In(self)->result;
}
int ListDir(void* self, const char*, hke_dirent_fn fn, void* user) {
  const Input* in = In(self);
  for (size_t i = 0; i < in->payload_size && i < 64; ++i) {
    if (fn(user, "entry", HKE_DIRENT_FILE) != 0) break;
  }
  return in->result;
}
int ClockNs(void* self, uint32_t, uint64_t* out) {
  if (In(self)->result == 0) *out = UINT64_MAX;
  return In(self)->result;
}
int CpuCount(void* self, uint32_t* out) {
  if (In(self)->result == 0) *out = UINT32_MAX;
  return In(self)->result;
}
int ProcessId(void* self, int32_t* out) {
  if (In(self)->result == 0) *out = INT32_MIN;
  return In(self)->result;
}
int ReadFd(void* self, int, void* buf, size_t cap, size_t* out) {
  const Input* in = In(self);
  if (in->result != 0) return in->result;
  const size_t n = in->payload_size < cap ? in->payload_size : cap;
  if (n != 0) std::memcpy(buf, in->payload, n);
  *out = n;
  return 0;
}
int PageSize(void* self, size_t* out) {
  if (In(self)->result == 0) *out = SIZE_MAX;
  return In(self)->result;
}

int MemPolicy(void* self, void*, size_t, uint32_t, uint32_t) { return In(self)->result; }

const hke_platform_ops kOps = {sizeof(hke_platform_ops), HKE_PLATFORM_ABI_VERSION,
                               Open, Close, Ioctl, Mmap, Munmap, Madvise, ReadFile, ListDir,
                               ClockNs, CpuCount, ProcessId, ReadFd, PageSize, nullptr,
                               nullptr, nullptr, nullptr, nullptr, nullptr, MemPolicy};

struct SinkState {
  uint64_t expected_seq;
  int lines;
};

int CountEntry(void*, const char*, uint32_t) { return 0; }

void CheckLine(void* user, const char* line, size_t length) {
  auto* s = static_cast<SinkState*>(user);
  ++s->lines;
  if (length == 0 || length > HKE_TRACE_LINE_MAX) abort();
  if (line[length - 1] != '\n' || line[length] != '\0') abort();
  if (std::memchr(line, '\n', length - 1) != nullptr) abort();
  uint64_t seq = 0;
  size_t i = 0;
  while (i < length && line[i] >= '0' && line[i] <= '9') seq = seq * 10 + static_cast<uint64_t>(line[i++] - '0');
  if (i == 0 || line[i] != ' ' || seq != s->expected_seq) abort();
  if (std::strstr(line, " -> ") == nullptr) abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  constexpr size_t kMaxInput = 64 * 1024;
  if (size < 6) return 0;
  if (size > kMaxInput) size = kMaxInput;
  Input in;
  const uint8_t selector = data[0];
  // Mostly success, otherwise an errno with or without a name (1..255).
  in.result = data[1] < 128 ? 0 : data[1] - 127;
  uint32_t request = 0;
  std::memcpy(&request, data + 2, 4);
  in.payload = data + 6;
  in.payload_size = size - 6;

  SinkState sink{1, 0};
  hke_trace trace;
  if (hke_trace_init(&trace, hke_platform{&kOps, &in}, CheckLine, &sink) != 0) abort();
  const hke_platform p = hke_trace_platform(&trace);

  // Argument buffer of exactly _IOC_SIZE bytes (bits 16-29), from the payload.
  const size_t arg_size = (request >> 16) & 0x3fffu;
  std::vector<unsigned char> arg(arg_size == 0 ? 1 : arg_size, 0);
  std::memcpy(arg.data(), in.payload, in.payload_size < arg_size ? in.payload_size : arg_size);
  // The payload as a NUL-terminated path.
  std::vector<char> path(in.payload, in.payload + in.payload_size);
  path.push_back('\0');

  int fd = 0;
  void* addr = nullptr;
  size_t len = 0;
  uint64_t ns = 0;
  uint32_t u32 = 0;
  int32_t pid = 0;
  char small[16];
  std::vector<unsigned char> big(in.payload_size + 1);
  switch (selector % 14) {
    case 0: (void)p.ops->open(p.self, path.data(), request, &fd); break;
    case 1: (void)p.ops->close(p.self, static_cast<int>(request)); break;
    case 2: (void)p.ops->ioctl(p.self, 3, request, arg.data()); break;
    case 3: (void)p.ops->mmap(p.self, reinterpret_cast<void*>(uintptr_t{request}), request,
                              request, request >> 8, -1, uint64_t{request} << 32, &addr);
            break;
    case 4: (void)p.ops->munmap(p.self, nullptr, request); break;
    case 5: (void)p.ops->madvise(p.self, nullptr, 0, request); break;
    case 6: (void)p.ops->read_file(p.self, path.data(), small, sizeof(small), &len); break;
    case 7: (void)p.ops->list_dir(p.self, path.data(), CountEntry, nullptr); break;
    case 8: (void)p.ops->clock_ns(p.self, request, &ns); break;
    case 9: (void)p.ops->cpu_count(p.self, &u32); break;
    case 10: (void)p.ops->process_id(p.self, &pid); break;
    case 11: (void)p.ops->read_fd(p.self, 3, big.data(), big.size(), &len); break;
    case 12: (void)p.ops->page_size(p.self, &len); break;
    default:
      (void)p.ops->mem_policy(p.self, reinterpret_cast<void*>(uintptr_t{request}), request,
                              request >> 16, request);
      break;
  }
  if (sink.lines != 1) abort();
  return 0;
}
