// hke-bench, ours: this project's libhsakmt.a linked in, on the default
// context configured with the Linux platform, so its file and device calls
// are plain libc calls that the simulator's preload serves exactly as it
// serves Debian's.
#include <cstdio>
#include <cstring>

#include "hsakmt/hsakmt.h"
#include "hsakmt/hsakmt_embedded.h"
#include "hsakmt/hsakmt_linux.h"
#include "tools/bench/bench.h"
#include "tools/bench/cases.h"

namespace hkebench {
namespace {

// Latest diagnostic of the library, copied into fixed storage (the callback
// runs inside measured regions and must not allocate). Main thread only.
char g_last_diag[512];

void KeepDiagnostic(void*, const hke_diag_record* r) {
  std::snprintf(g_last_diag, sizeof(g_last_diag), "%s: %s%s%s", r->area != nullptr ? r->area : "?",
                r->message != nullptr ? r->message : "", r->path != nullptr ? " @ " : "",
                r->path != nullptr ? r->path : "");
}

struct OursApi {
  using System = HsaSystemProperties;
  using Node = HsaNodeProperties;
  using Memory = HsaMemoryProperties;
  using Cache = HsaCacheProperties;
  using Link = HsaIoLinkProperties;
  static int Open() { return hsaKmtOpenKFD(); }
  static int Close() { return hsaKmtCloseKFD(); }
  static int Acquire(System* s) { return hsaKmtAcquireSystemProperties(s); }
  static int Release() { return hsaKmtReleaseSystemProperties(); }
  static int GetNode(uint32_t n, Node* p) { return hsaKmtGetNodeProperties(n, p); }
  static int GetMemory(uint32_t n, uint32_t c, Memory* p) {
    return hsaKmtGetNodeMemoryProperties(n, c, p);
  }
  static int GetCaches(uint32_t n, uint32_t proc, uint32_t c, Cache* p) {
    return hsaKmtGetNodeCacheProperties(n, proc, c, p);
  }
  static int GetLinks(uint32_t n, uint32_t c, Link* p) {
    return hsaKmtGetNodeIoLinkProperties(n, c, p);
  }
  using MemFlags = HsaMemFlags;
  using PointerInfo = HsaPointerInfo;
  static int Alloc(uint32_t node, uint64_t size, MemFlags f, void** p) {
    return hsaKmtAllocMemory(node, size, f, p);
  }
  static int Free(void* p, uint64_t size) { return hsaKmtFreeMemory(p, size); }
  static int Map(void* p, uint64_t size, uint64_t* alternate) {
    HSAuint64 alt = 0;
    const int s = hsaKmtMapMemoryToGPU(p, size, &alt);
    *alternate = alt;
    return s;
  }
  static int Unmap(void* p) { return hsaKmtUnmapMemoryToGPU(p); }
  static int Query(const void* p, PointerInfo* info) { return hsaKmtQueryPointerInfo(p, info); }
  static int MapToNode(void* p, uint64_t size, uint32_t node) {
    HsaMemMapFlags flags;
    std::memset(&flags, 0, sizeof(flags));
    HSAuint32 nodes[1] = {node};
    HSAuint64 alt = 0;
    return hsaKmtMapMemoryToGPUNodes(p, size, &alt, flags, 1, nodes);
  }
  using QueueType = HSA_QUEUE_TYPE;
  using QueuePriority = HSA_QUEUE_PRIORITY;
  using QueueId = HSA_QUEUEID;
  using QueueResource = HsaQueueResource;
  using Event = HsaEvent;
  using EventDesc = HsaEventDescriptor;
  using EventType = HSA_EVENTTYPE;
  static constexpr QueueType kSdmaQueue = HSA_QUEUE_SDMA;
  static constexpr QueueType kAqlQueue = HSA_QUEUE_COMPUTE_AQL;
  // Ours sizes every queue buffer as the kernel checks it: a refusal is an
  // error (cases.h QueueCreateDestroy).
  static constexpr const char* kAqlRefusal = nullptr;
  static constexpr uint32_t kAqlRefusalFromGfx = 0;
  static constexpr QueuePriority kPriorityNormal = HSA_QUEUE_PRIORITY_NORMAL;
  static constexpr EventType kSignalEvent = HSA_EVENTTYPE_SIGNAL;
  static int CreateQueue(uint32_t node, QueueType type, uint32_t percentage, QueuePriority priority,
                         void* ring, uint64_t ring_size, Event* event, QueueResource* q) {
    return hsaKmtCreateQueue(node, type, percentage, priority, ring, ring_size, event, q);
  }
  static int DestroyQueue(QueueId id) { return hsaKmtDestroyQueue(id); }
  static int CreateEvent(EventDesc* desc, bool manual_reset, bool signaled, Event** event) {
    return hsaKmtCreateEvent(desc, manual_reset, signaled, event);
  }
  static int DestroyEvent(Event* event) { return hsaKmtDestroyEvent(event); }
  static int WaitOnEvent(Event* event, uint32_t ms) { return hsaKmtWaitOnEvent(event, ms); }
  static int SetEvent(Event* event) { return hsaKmtSetEvent(event); }
};

}  // namespace

bool OursSetup(std::string* error) {
  hke_config config;
  std::memset(&config, 0, sizeof(config));
  config.struct_size = sizeof(config);
  config.platform = hke_linux_platform();
  config.diag = &KeepDiagnostic;
  const hke_status_t s = hke_default_context_configure(&config);
  if (s != HKE_OK) {
    *error = std::string("hke_default_context_configure: ") + hke_status_name(s);
    return false;
  }
  return true;
}

const char* LastOursDiagnostic() { return g_last_diag; }

std::unique_ptr<CaseRun> OursOpenClose(const CaseParams&, std::string*) {
  return std::unique_ptr<CaseRun>(new OpenClose<OursApi>());
}

std::unique_ptr<CaseRun> OursTopologyCycle(const CaseParams&, std::string*) {
  hke_capacities caps;
  std::memset(&caps, 0, sizeof(caps));
  hke_build_capacities(&caps);
  size_t per_node = caps.max_mem_banks_per_node;
  if (caps.max_caches_per_node > per_node) per_node = caps.max_caches_per_node;
  if (caps.max_links_per_node > per_node) per_node = caps.max_links_per_node;
  return std::unique_ptr<CaseRun>(new TopologyCycle<OursApi>(per_node));
}

namespace {

// The default context as OursSetup configures it, plus `flags`.
hke_status_t ConfigureDefault(uint32_t flags) {
  hke_config config;
  std::memset(&config, 0, sizeof(config));
  config.struct_size = sizeof(config);
  config.platform = hke_linux_platform();
  config.diag = &KeepDiagnostic;
  config.flags = flags;
  return hke_default_context_configure(&config);
}

// topology-cycle-cold: TopologyCycle on a default context that parses sysfs
// on every Acquire; the configuration without the flag comes back when the
// run ends (the device is closed between iterations, as configure needs).
class TopologyCycleCold final : public CaseRun {
 public:
  explicit TopologyCycleCold(size_t per_node) : cycle_(per_node) {}
  ~TopologyCycleCold() override { (void)ConfigureDefault(0); }
  Outcome Setup() override {
    const hke_status_t s = ConfigureDefault(HKE_CONFIG_REPARSE_TOPOLOGY);
    if (s != HKE_OK) return Outcome{kHarnessError, "hke_default_context_configure(REPARSE_TOPOLOGY)"};
    return cycle_.Setup();
  }
  Outcome Iterate(Work* work) override { return cycle_.Iterate(work); }

 private:
  TopologyCycle<OursApi> cycle_;
};

}  // namespace

std::unique_ptr<CaseRun> OursTopologyCycleCold(const CaseParams&, std::string*) {
  hke_capacities caps;
  std::memset(&caps, 0, sizeof(caps));
  hke_build_capacities(&caps);
  size_t per_node = caps.max_mem_banks_per_node;
  if (caps.max_caches_per_node > per_node) per_node = caps.max_caches_per_node;
  if (caps.max_links_per_node > per_node) per_node = caps.max_links_per_node;
  return std::unique_ptr<CaseRun>(new TopologyCycleCold(per_node));
}

std::unique_ptr<CaseRun> OursAllocMapFree(const CaseParams& params, std::string*) {
  return std::unique_ptr<CaseRun>(new AllocMapFree<OursApi>(params.size, params.vram));
}

std::unique_ptr<CaseRun> OursQueryPointer(const CaseParams& params, std::string*) {
  return std::unique_ptr<CaseRun>(new QueryPointer<OursApi>(params.live));
}

std::unique_ptr<CaseRun> OursQueueCreateDestroy(const CaseParams& params, std::string*) {
  return std::unique_ptr<CaseRun>(new QueueCreateDestroy<OursApi>(params.queue));
}

std::unique_ptr<CaseRun> OursEventSetWake(const CaseParams&, std::string*) {
  return std::unique_ptr<CaseRun>(new EventSetWake<OursApi>());
}

std::unique_ptr<CaseRun> OursEventWakeParked(const CaseParams&, std::string*) {
  return std::unique_ptr<CaseRun>(new EventSetWake<OursApi>(/*parked=*/true));
}

std::unique_ptr<CaseRun> OursEventSetWait(const CaseParams&, std::string*) {
  return std::unique_ptr<CaseRun>(new EventSetWait<OursApi>());
}

namespace {

// worst-case in ours: WorstCase on the default context, reconfigured with
// HKE_CONFIG_RESERVE_SVM for the reserved variants (the flag
// HSA_RESERVE_SVM=1 sets through hke_config_flags_from_environment) and
// back to the default configuration when the run ends. Each variant runs
// in a process of its own, before anything opened the device.
class OursWorstCaseRun final : public CaseRun {
 public:
  OursWorstCaseRun(uint32_t live, bool reserve_svm)
      : run_(new WorstCase<OursApi>(live)), reserve_svm_(reserve_svm) {}
  ~OursWorstCaseRun() override {
    run_.reset();  // frees everything and closes the device first
    if (reserve_svm_) (void)ConfigureDefault(0);
  }
  Outcome Setup() override {
    if (reserve_svm_ && ConfigureDefault(HKE_CONFIG_RESERVE_SVM) != HKE_OK) {
      return Outcome{kHarnessError, "hke_default_context_configure(RESERVE_SVM)"};
    }
    return run_->Setup();
  }
  Outcome Iterate(Work* work) override { return run_->Iterate(work); }
  void BeginTimed() override { run_->BeginTimed(); }
  const CallSamples* Calls() const override { return run_->Calls(); }

 private:
  std::unique_ptr<WorstCase<OursApi>> run_;
  bool reserve_svm_;
};

}  // namespace

std::unique_ptr<CaseRun> OursWorstCase(const CaseParams& params, std::string*) {
  return std::unique_ptr<CaseRun>(new OursWorstCaseRun(params.live, params.reserve_svm));
}

std::unique_ptr<CaseRun> OursDoorbellLatency(const CaseParams& params, std::string*) {
  return std::unique_ptr<CaseRun>(new DoorbellLatency<OursApi>(params.wait_event));
}

}  // namespace hkebench
