// Heap-allocation counting for hke-bench.
//
// heap_count.cc defines malloc, calloc, realloc, free, posix_memalign,
// aligned_alloc, memalign, valloc and pvalloc in the executable. The dynamic
// linker binds every module of the process to them (the executable comes
// first in the global scope; glibc's own internal allocations go through the
// same symbols), and they forward to glibc's __libc_* allocator. Freeing is
// not counted: an allocation is one call to an allocating function.
//
// Counting is per thread and off unless a HeapScope is alive on that thread.
// Two modes:
//   - plain: one counter increment per allocation (cheap; used around timed
//     iterations);
//   - attributed: each allocation's call stack is unwound and charged to one
//     of three owners (slow; used in a separate, untimed iteration):
//       own        made by the code under test (or a library it links) itself;
//       libc       made inside glibc on the code's behalf (opendir's DIR,
//                  fopen's FILE and buffer, strdup, ...), including libc calls
//                  that reach glibc through the simulator's path-rewriting
//                  wrappers, since the same call allocates on real hardware;
//       simulator  made by libkfdsim-preload.so's own code (path rewriting,
//                  the simulated kernel), which real hardware does not have.
//     Allocations reached through no simulator frame are own or libc by the
//     first frame above the allocator.
//
// Threading: counters are thread-local; HeapCountSetup() must run once on
// the main thread before any HeapScope, after every module of interest is
// loaded.
#ifndef HKE_TOOLS_BENCH_HEAP_COUNT_H_
#define HKE_TOOLS_BENCH_HEAP_COUNT_H_

#include <cstdint>

namespace hkebench {

struct HeapCounts {
  uint64_t total = 0;      // every allocation (both modes)
  uint64_t own = 0;        // attributed mode only
  uint64_t libc = 0;       // attributed mode only
  uint64_t simulator = 0;  // attributed mode only
  uint64_t unattributed = 0;  // attributed mode: stack could not be unwound
  HeapCounts& operator+=(const HeapCounts& o) {
    total += o.total;
    own += o.own;
    libc += o.libc;
    simulator += o.simulator;
    unattributed += o.unattributed;
    return *this;
  }
};

// Records the address ranges of glibc and libkfdsim-preload.so and primes
// the unwinder (whose first use allocates). Returns false with a message
// in *why when glibc cannot be found.
bool HeapCountSetup(const char** why);

// In attributed mode, also write each allocation's owner and call stack
// (backtrace_symbols_fd format) to `fd`; -1 turns this off.
void HeapCountSetStackFd(int fd);

// True when the process runs under libkfdsim-preload.so (its ranges were found).
bool HeapCountSawSimulator();

// Counts this thread's allocations for its lifetime; adds them to *out on
// destruction. Scopes do not nest.
class HeapScope {
 public:
  HeapScope(HeapCounts* out, bool attributed);
  ~HeapScope();
  HeapScope(const HeapScope&) = delete;
  HeapScope& operator=(const HeapScope&) = delete;

 private:
  HeapCounts* out_;
};

}  // namespace hkebench

#endif  // HKE_TOOLS_BENCH_HEAP_COUNT_H_
