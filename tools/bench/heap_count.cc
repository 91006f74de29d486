// Allocator hooks and allocation attribution (see heap_count.h).
//
// The hooks must stay in the executable (not a shared library) so that they
// come first in the global symbol scope; glibc exports __libc_malloc and
// friends for exactly this kind of forwarding.
#include "tools/bench/heap_count.h"

#include <execinfo.h>
#include <link.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>

extern "C" {
void* __libc_malloc(size_t size);
void* __libc_calloc(size_t count, size_t size);
void* __libc_realloc(void* ptr, size_t size);
void __libc_free(void* ptr);
void* __libc_memalign(size_t alignment, size_t size);
void* __libc_valloc(size_t size);
void* __libc_pvalloc(size_t size);
}

namespace hkebench {
namespace {

struct Range {
  uintptr_t begin;
  uintptr_t end;
};

// Executable segments of glibc and of the simulator's preload library.
// Written once by HeapCountSetup before any scope exists; read-only after.
constexpr int kMaxRanges = 8;
Range g_libc[kMaxRanges];
int g_libc_count = 0;
Range g_sim[kMaxRanges];
int g_sim_count = 0;

// Where attributed allocations' stacks are written (-1: nowhere). Set once
// by HeapCountSetStackFd before any scope.
int g_stack_fd = -1;

struct ThreadState {
  HeapCounts counts;
  bool active = false;
  bool attributed = false;
  bool in_hook = false;  // the unwinder may allocate; those calls are not counted
};
thread_local ThreadState t_state;

bool In(const Range* ranges, int count, uintptr_t pc) {
  for (int i = 0; i < count; ++i) {
    if (pc >= ranges[i].begin && pc < ranges[i].end) return true;
  }
  return false;
}

// Return addresses point just past the call; step back into the call.
bool InLibc(void* frame) { return In(g_libc, g_libc_count, reinterpret_cast<uintptr_t>(frame) - 1); }
bool InSim(void* frame) { return In(g_sim, g_sim_count, reinterpret_cast<uintptr_t>(frame) - 1); }

// backtrace() frames seen from Attribute(): [0] Attribute, [1] the hook (malloc, ...),
// [2] whoever called the allocator.
constexpr int kFirstCaller = 2;

// Writes one attributed allocation's owner and its callers (without
// allocating: backtrace_symbols_fd writes straight to the descriptor).
void DumpStack(const char* owner, void* const* frames, int n) {
  if (g_stack_fd < 0) return;
  const size_t len = std::strlen(owner);
  if (write(g_stack_fd, "alloc ", 6) < 0 || write(g_stack_fd, owner, len) < 0 ||
      write(g_stack_fd, "\n", 1) < 0) {
    return;
  }
  if (n > kFirstCaller) backtrace_symbols_fd(frames + kFirstCaller, n - kFirstCaller, g_stack_fd);
}

const char* Classify(void* const* frames, int n) {
  if (n <= kFirstCaller) return "unattributed";
  int sim = -1;
  for (int i = kFirstCaller; i < n; ++i) {
    if (InSim(frames[i])) {
      sim = i;
      break;
    }
  }
  if (sim < 0) return InLibc(frames[kFirstCaller]) ? "libc" : "own";
  // Reached through the simulator: glibc work forwarded by one of its
  // wrappers counts for the caller; anything else is the simulator's own.
  bool only_libc = sim > kFirstCaller;
  for (int i = kFirstCaller; i < sim; ++i) only_libc = only_libc && InLibc(frames[i]);
  return only_libc ? "libc" : "simulator";
}

__attribute__((noinline)) void Attribute(ThreadState& s) {
  void* frames[64];
  const int n = backtrace(frames, 64);
  const char* owner = Classify(frames, n);
  DumpStack(owner, frames, n);
  switch (owner[0]) {
    case 'o': ++s.counts.own; break;
    case 'l': ++s.counts.libc; break;
    case 's': ++s.counts.simulator; break;
    default: ++s.counts.unattributed; break;
  }
}

inline void Note() {
  ThreadState& s = t_state;
  if (!s.active || s.in_hook) return;
  ++s.counts.total;
  if (s.attributed) {
    s.in_hook = true;
    Attribute(s);
    s.in_hook = false;
  }
}

int CollectRanges(struct dl_phdr_info* info, size_t, void*) {
  const char* name = info->dlpi_name != nullptr ? info->dlpi_name : "";
  Range* ranges = nullptr;
  int* count = nullptr;
  const char* base = std::strrchr(name, '/');
  base = base != nullptr ? base + 1 : name;
  if (std::strncmp(base, "libc.so", 7) == 0) {
    ranges = g_libc;
    count = &g_libc_count;
  } else if (std::strstr(base, "kfdsim-preload") != nullptr) {
    ranges = g_sim;
    count = &g_sim_count;
  } else {
    return 0;
  }
  for (int i = 0; i < info->dlpi_phnum && *count < kMaxRanges; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD || (ph.p_flags & PF_X) == 0) continue;
    const uintptr_t begin = info->dlpi_addr + ph.p_vaddr;
    ranges[(*count)++] = Range{begin, begin + ph.p_memsz};
  }
  return 0;
}

}  // namespace

bool HeapCountSetup(const char** why) {
  g_libc_count = 0;
  g_sim_count = 0;
  dl_iterate_phdr(&CollectRanges, nullptr);
  if (g_libc_count == 0) {
    *why = "glibc's code segments were not found (dl_iterate_phdr)";
    return false;
  }
  void* frames[4];
  backtrace(frames, 4);  // loads libgcc_s now rather than inside a scope
  return true;
}

void HeapCountSetStackFd(int fd) { g_stack_fd = fd; }

bool HeapCountSawSimulator() { return g_sim_count > 0; }

HeapScope::HeapScope(HeapCounts* out, bool attributed) : out_(out) {
  t_state.counts = HeapCounts{};
  t_state.attributed = attributed;
  t_state.active = true;
}

HeapScope::~HeapScope() {
  t_state.active = false;
  *out_ += t_state.counts;
}

}  // namespace hkebench

// ---- the hooks ---------------------------------------------------------------
// Visible from the executable so that every module binds to them.

extern "C" {

__attribute__((visibility("default"))) void* malloc(size_t size) {
  hkebench::Note();
  return __libc_malloc(size);
}

__attribute__((visibility("default"))) void* calloc(size_t count, size_t size) {
  hkebench::Note();
  return __libc_calloc(count, size);
}

__attribute__((visibility("default"))) void* realloc(void* ptr, size_t size) {
  hkebench::Note();
  return __libc_realloc(ptr, size);
}

__attribute__((visibility("default"))) void free(void* ptr) { __libc_free(ptr); }

__attribute__((visibility("default"))) void* memalign(size_t alignment, size_t size) {
  hkebench::Note();
  return __libc_memalign(alignment, size);
}

__attribute__((visibility("default"))) void* aligned_alloc(size_t alignment, size_t size) {
  hkebench::Note();
  return __libc_memalign(alignment, size);
}

__attribute__((visibility("default"))) int posix_memalign(void** out, size_t alignment,
                                                          size_t size) {
  if (alignment < sizeof(void*) || (alignment & (alignment - 1)) != 0) return EINVAL;
  hkebench::Note();
  void* p = __libc_memalign(alignment, size);
  if (p == nullptr && size != 0) return ENOMEM;
  *out = p;
  return 0;
}

__attribute__((visibility("default"))) void* valloc(size_t size) {
  hkebench::Note();
  return __libc_valloc(size);
}

__attribute__((visibility("default"))) void* pvalloc(size_t size) {
  hkebench::Note();
  return __libc_pvalloc(size);
}

}  // extern "C"
