// hke-bench, Debian: libhsakmt.so.1 (ROCm 5.2.3) loaded with
// dlopen(RTLD_NOW | RTLD_LOCAL) and called through dlsym'd pointers, with
// the types of its own header (namespace `debian`).
//
// Not RTLD_DEEPBIND: a deep-bound library resolves open/ioctl/mmap/fopen
// and malloc in its own dependency chain (glibc) before the global scope,
// which would bypass both the simulator's preload and the allocation
// counter. Without it, the executable must not export hsaKmt* symbols, or
// Debian's calls between its own entry points could bind to ours; the
// driver checks that (dlsym(RTLD_DEFAULT, "hsaKmtOpenKFD") must be NULL).
#include <dlfcn.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cstdlib>
#include <cstring>

namespace debian {
#include <hsakmt.h>
}  // namespace debian

#include "tools/bench/bench.h"
#include "tools/bench/cases.h"

namespace hkebench {
namespace {

static_assert(sizeof(debian::HsaNodeProperties) == 356,
              "expected Debian's libhsakmt 5.2.3 header (HsaNodeProperties of 356 bytes)");

// Entry points, resolved once by DebianLoad (main thread, before any case).
struct Functions {
  decltype(&debian::hsaKmtOpenKFD) open = nullptr;
  decltype(&debian::hsaKmtCloseKFD) close = nullptr;
  decltype(&debian::hsaKmtAcquireSystemProperties) acquire = nullptr;
  decltype(&debian::hsaKmtReleaseSystemProperties) release = nullptr;
  decltype(&debian::hsaKmtGetNodeProperties) node = nullptr;
  decltype(&debian::hsaKmtGetNodeMemoryProperties) memory = nullptr;
  decltype(&debian::hsaKmtGetNodeCacheProperties) caches = nullptr;
  decltype(&debian::hsaKmtGetNodeIoLinkProperties) links = nullptr;
  decltype(&debian::hsaKmtAllocMemory) alloc = nullptr;
  decltype(&debian::hsaKmtFreeMemory) free = nullptr;
  decltype(&debian::hsaKmtMapMemoryToGPU) map = nullptr;
  decltype(&debian::hsaKmtUnmapMemoryToGPU) unmap = nullptr;
  decltype(&debian::hsaKmtQueryPointerInfo) query = nullptr;
  decltype(&debian::hsaKmtMapMemoryToGPUNodes) map_nodes = nullptr;
  decltype(&debian::hsaKmtCreateQueue) create_queue = nullptr;
  decltype(&debian::hsaKmtDestroyQueue) destroy_queue = nullptr;
  decltype(&debian::hsaKmtCreateEvent) create_event = nullptr;
  decltype(&debian::hsaKmtDestroyEvent) destroy_event = nullptr;
  decltype(&debian::hsaKmtWaitOnEvent) wait_event = nullptr;
  decltype(&debian::hsaKmtSetEvent) set_event = nullptr;
};
Functions g_fn;

struct DebianApi {
  using System = debian::HsaSystemProperties;
  using Node = debian::HsaNodeProperties;
  using Memory = debian::HsaMemoryProperties;
  using Cache = debian::HsaCacheProperties;
  using Link = debian::HsaIoLinkProperties;
  static int Open() { return g_fn.open(); }
  static int Close() { return g_fn.close(); }
  static int Acquire(System* s) { return g_fn.acquire(s); }
  static int Release() { return g_fn.release(); }
  static int GetNode(uint32_t n, Node* p) { return g_fn.node(n, p); }
  static int GetMemory(uint32_t n, uint32_t c, Memory* p) { return g_fn.memory(n, c, p); }
  static int GetCaches(uint32_t n, uint32_t proc, uint32_t c, Cache* p) {
    return g_fn.caches(n, proc, c, p);
  }
  static int GetLinks(uint32_t n, uint32_t c, Link* p) { return g_fn.links(n, c, p); }
  using MemFlags = debian::HsaMemFlags;
  using PointerInfo = debian::HsaPointerInfo;
  static int Alloc(uint32_t node, uint64_t size, MemFlags f, void** p) {
    return g_fn.alloc(node, size, f, p);
  }
  static int Free(void* p, uint64_t size) { return g_fn.free(p, size); }
  static int Map(void* p, uint64_t size, uint64_t* alternate) {
    debian::HSAuint64 alt = 0;
    const int s = g_fn.map(p, size, &alt);
    *alternate = alt;
    return s;
  }
  static int Unmap(void* p) { return g_fn.unmap(p); }
  static int Query(const void* p, PointerInfo* info) { return g_fn.query(p, info); }
  static int MapToNode(void* p, uint64_t size, uint32_t node) {
    debian::HsaMemMapFlags flags;
    std::memset(&flags, 0, sizeof(flags));
    debian::HSAuint32 nodes[1] = {node};
    debian::HSAuint64 alt = 0;
    return g_fn.map_nodes(p, size, &alt, flags, 1, nodes);
  }
  using QueueType = debian::HSA_QUEUE_TYPE;
  using QueuePriority = debian::HSA_QUEUE_PRIORITY;
  using QueueId = debian::HSA_QUEUEID;
  using QueueResource = debian::HsaQueueResource;
  using Event = debian::HsaEvent;
  using EventDesc = debian::HsaEventDescriptor;
  using EventType = debian::HSA_EVENTTYPE;
  static constexpr QueueType kSdmaQueue = debian::HSA_QUEUE_SDMA;
  static constexpr QueueType kAqlQueue = debian::HSA_QUEUE_COMPUTE_AQL;
  // Why the simulated kernel may refuse Debian's AQL creates (cases.h
  // QueueCreateDestroy skips the case then).
  // From gfx 9.4 (gfx94x, gfx950) on: 5.2.3 predates their VGPR size.
  static constexpr uint32_t kAqlRefusalFromGfx = 904;
  static constexpr const char* kAqlRefusal =
      "presumably Debian 5.2.3's CWSR area: it predates gfx94x's VGPR size, so the area is "
      "smaller than the node's cwsr_size, which the simulated kernel's queue-buffer check "
      "(Linux 6.12+, KFD 1.17+) refuses with EINVAL, as a real kernel would";
  static constexpr QueuePriority kPriorityNormal = debian::HSA_QUEUE_PRIORITY_NORMAL;
  static constexpr EventType kSignalEvent = debian::HSA_EVENTTYPE_SIGNAL;
  static int CreateQueue(uint32_t node, QueueType type, uint32_t percentage, QueuePriority priority,
                         void* ring, uint64_t ring_size, Event* event, QueueResource* q) {
    return g_fn.create_queue(node, type, percentage, priority, ring, ring_size, event, q);
  }
  static int DestroyQueue(QueueId id) { return g_fn.destroy_queue(id); }
  static int CreateEvent(EventDesc* desc, bool manual_reset, bool signaled, Event** event) {
    return g_fn.create_event(desc, manual_reset, signaled, event);
  }
  static int DestroyEvent(Event* event) { return g_fn.destroy_event(event); }
  static int WaitOnEvent(Event* event, uint32_t ms) { return g_fn.wait_event(event, ms); }
  static int SetEvent(Event* event) { return g_fn.set_event(event); }
};

// Entries per node in the output arrays; Debian has no compile-time
// capacities, so this bounds every tree the harness runs (the largest,
// MI300X CPX, has 64 io_links on a node).
constexpr size_t kDebianPerNode = 4096;

template <class F>
bool Resolve(void* handle, const char* name, F* out, std::string* error) {
  void* p = dlsym(handle, name);
  if (p == nullptr) {
    *error = std::string("dlsym ") + name + ": not found in Debian's libhsakmt";
    return false;
  }
  *out = reinterpret_cast<F>(p);
  return true;
}

}  // namespace

bool DebianLoad(const char* path, std::string* error) {
  void* h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (h == nullptr) {
    const char* why = dlerror();
    *error = std::string("dlopen ") + path + ": " + (why != nullptr ? why : "failed");
    return false;
  }
  Functions f;
  if (!Resolve(h, "hsaKmtOpenKFD", &f.open, error) || !Resolve(h, "hsaKmtCloseKFD", &f.close, error) ||
      !Resolve(h, "hsaKmtAcquireSystemProperties", &f.acquire, error) ||
      !Resolve(h, "hsaKmtReleaseSystemProperties", &f.release, error) ||
      !Resolve(h, "hsaKmtGetNodeProperties", &f.node, error) ||
      !Resolve(h, "hsaKmtGetNodeMemoryProperties", &f.memory, error) ||
      !Resolve(h, "hsaKmtGetNodeCacheProperties", &f.caches, error) ||
      !Resolve(h, "hsaKmtGetNodeIoLinkProperties", &f.links, error) ||
      !Resolve(h, "hsaKmtAllocMemory", &f.alloc, error) ||
      !Resolve(h, "hsaKmtFreeMemory", &f.free, error) ||
      !Resolve(h, "hsaKmtMapMemoryToGPU", &f.map, error) ||
      !Resolve(h, "hsaKmtUnmapMemoryToGPU", &f.unmap, error) ||
      !Resolve(h, "hsaKmtQueryPointerInfo", &f.query, error) ||
      !Resolve(h, "hsaKmtMapMemoryToGPUNodes", &f.map_nodes, error) ||
      !Resolve(h, "hsaKmtCreateQueue", &f.create_queue, error) ||
      !Resolve(h, "hsaKmtDestroyQueue", &f.destroy_queue, error) ||
      !Resolve(h, "hsaKmtCreateEvent", &f.create_event, error) ||
      !Resolve(h, "hsaKmtDestroyEvent", &f.destroy_event, error) ||
      !Resolve(h, "hsaKmtWaitOnEvent", &f.wait_event, error) ||
      !Resolve(h, "hsaKmtSetEvent", &f.set_event, error)) {
    return false;
  }
  g_fn = f;
  return true;
}

std::unique_ptr<CaseRun> DebianOpenClose(const CaseParams&, std::string* error) {
  if (g_fn.open == nullptr) {
    *error = "Debian's libhsakmt is not loaded";
    return nullptr;
  }
  return std::unique_ptr<CaseRun>(new OpenClose<DebianApi>());
}

std::unique_ptr<CaseRun> DebianTopologyCycle(const CaseParams&, std::string* error) {
  if (g_fn.open == nullptr) {
    *error = "Debian's libhsakmt is not loaded";
    return nullptr;
  }
  return std::unique_ptr<CaseRun>(new TopologyCycle<DebianApi>(kDebianPerNode));
}

std::unique_ptr<CaseRun> DebianAllocMapFree(const CaseParams& params, std::string* error) {
  if (g_fn.open == nullptr) {
    *error = "Debian's libhsakmt is not loaded";
    return nullptr;
  }
  return std::unique_ptr<CaseRun>(new AllocMapFree<DebianApi>(params.size, params.vram));
}

std::unique_ptr<CaseRun> DebianQueryPointer(const CaseParams& params, std::string* error) {
  if (g_fn.open == nullptr) {
    *error = "Debian's libhsakmt is not loaded";
    return nullptr;
  }
  return std::unique_ptr<CaseRun>(new QueryPointer<DebianApi>(params.live));
}

std::unique_ptr<CaseRun> DebianQueueCreateDestroy(const CaseParams& params, std::string* error) {
  if (g_fn.open == nullptr) {
    *error = "Debian's libhsakmt is not loaded";
    return nullptr;
  }
  return std::unique_ptr<CaseRun>(new QueueCreateDestroy<DebianApi>(params.queue));
}

std::unique_ptr<CaseRun> DebianEventSetWake(const CaseParams&, std::string*) {
  return std::unique_ptr<CaseRun>(new EventSetWake<DebianApi>());
}

std::unique_ptr<CaseRun> DebianEventWakeParked(const CaseParams&, std::string*) {
  return std::unique_ptr<CaseRun>(new EventSetWake<DebianApi>(/*parked=*/true));
}

std::unique_ptr<CaseRun> DebianEventSetWait(const CaseParams&, std::string*) {
  return std::unique_ptr<CaseRun>(new EventSetWait<DebianApi>());
}

std::unique_ptr<CaseRun> DebianDoorbellLatency(const CaseParams& params, std::string* error) {
  if (g_fn.open == nullptr) {
    *error = "Debian's libhsakmt is not loaded";
    return nullptr;
  }
  return std::unique_ptr<CaseRun>(new DoorbellLatency<DebianApi>(params.wait_event));
}

namespace {

// Live allocations from which Debian's reserved-SVM worst case is skipped
// unless HKE_BENCH_SLOW is set: at 10^4 one churn step already takes
// ~0.3 ms (median) and populating grows with the square of the count.
constexpr uint32_t kDebianReservedLimit = 100000;

// A case this run does not attempt; Setup says why.
class Skipped final : public CaseRun {
 public:
  explicit Skipped(const char* why) : why_(why) {}
  Outcome Setup() override { return Outcome{kHarnessSkipped, why_}; }
  Outcome Iterate(Work*) override { return Outcome{kHarnessSkipped, why_}; }

 private:
  const char* why_;
};

}  // namespace

std::unique_ptr<CaseRun> DebianWorstCase(const CaseParams& params, std::string* error) {
  if (g_fn.open == nullptr) {
    *error = "Debian's libhsakmt is not loaded";
    return nullptr;
  }
  if (params.reserve_svm && params.live >= kDebianReservedLimit &&
      std::getenv("HKE_BENCH_SLOW") == nullptr) {
    return std::unique_ptr<CaseRun>(new Skipped(
        "Debian's reserved-SVM allocator walks a list of every area per allocation: "
        "populating this many takes many minutes (set HKE_BENCH_SLOW=1 to run it)"));
  }
  // Read by Debian's hsaKmtOpenKFD (its aperture set-up), which the case's
  // Setup calls; each variant runs in a process of its own.
  if (params.reserve_svm) {
    setenv("HSA_RESERVE_SVM", "1", 1);
  } else {
    unsetenv("HSA_RESERVE_SVM");
  }
  return std::unique_ptr<CaseRun>(new WorstCase<DebianApi>(params.live));
}

}  // namespace hkebench
