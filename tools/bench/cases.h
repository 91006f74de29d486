// The cases, each written once for both libraries as a template over `Api`:
//   OpenClose           hsaKmtOpenKFD + hsaKmtCloseKFD (the open handshake);
//   TopologyCycle       OpenKFD, AcquireSystemProperties, every node's
//                       node/memory/cache/io-link properties,
//                       ReleaseSystemProperties, CloseKFD;
//   AllocMapFree        AllocMemory + MapMemoryToGPU + UnmapMemoryToGPU +
//                       FreeMemory of one buffer (device open for the whole run);
//   QueryPointer        QueryPointerInfo of random addresses inside N live 4 KiB
//                       allocations (populated in Setup), 16 per iteration;
//   WorstCase           N live mapped allocations of mixed sizes, churned in
//                       random order; AllocMemory, FreeMemory, MapMemoryToGPU,
//                       UnmapMemoryToGPU and QueryPointerInfo timed one call
//                       at a time (per-call percentiles and maximum);
//   QueueCreateDestroy  CreateQueue + DestroyQueue of an SDMA or AQL queue on
//                       the first GPU node (ring and pointers allocated in Setup);
//   DoorbellLatency     one SDMA FENCE (and for the event variant a FENCE to
//                       the event's slot plus a TRAP) written to the ring, the
//                       write pointer and doorbell stored, then the caller
//                       waits for the fence value: by polling memory or in
//                       WaitOnEvent. Needs the simulator's engine thread.
//
// `Api` supplies the types of its header (System, Node, Memory, Cache, Link,
// MemFlags, PointerInfo, QueueType, QueuePriority, QueueId, QueueResource,
// Event, EventDesc, EventType), the constants kSdmaQueue, kAqlQueue,
// kPriorityNormal and kSignalEvent, and static functions Open, Close,
// Acquire, Release, GetNode, GetMemory, GetCaches, GetLinks, Alloc, Free,
// Map, MapToNode (MapMemoryToGPUNodes to one node, default map flags),
// Unmap, Query, CreateQueue, DestroyQueue, CreateEvent, DestroyEvent,
// WaitOnEvent with the hsaKmt* signatures, returning the HSAKMT_STATUS as
// int. Included by ours.cc and debian.cc only; each instantiates it with its
// own types.
//
// Threading: the cases run on the harness's main thread; DoorbellLatency
// shares its ring, fence buffer and event slot with the simulator's engine
// thread through the release/acquire protocol of the queue (packets, then
// the write pointer and doorbell with release stores; the fence read with
// acquire loads).
#ifndef HKE_TOOLS_BENCH_CASES_H_
#define HKE_TOOLS_BENCH_CASES_H_

#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

#include "tools/bench/bench.h"

namespace hkebench {

template <class Api>
class OpenClose final : public CaseRun {
 public:
  Outcome Iterate(Work*) override {
    int s = Api::Open();
    if (s != kStatusSuccess) return Outcome{s, "hsaKmtOpenKFD"};
    s = Api::Close();
    if (s != kStatusSuccess) return Outcome{s, "hsaKmtCloseKFD"};
    return Outcome{};
  }
};

template <class Api>
class TopologyCycle final : public CaseRun {
 public:
  // Output arrays of `per_node` entries each, allocated here, outside the
  // measured region.
  explicit TopologyCycle(size_t per_node) : mem_(per_node), caches_(per_node), links_(per_node) {}

  Outcome Iterate(Work* work) override {
    int s = Api::Open();
    if (s != kStatusSuccess) return Outcome{s, "hsaKmtOpenKFD"};
    Outcome o = ReadAll(work);
    s = Api::Close();
    if (o.status == kStatusSuccess && s != kStatusSuccess) o = Outcome{s, "hsaKmtCloseKFD"};
    return o;
  }

 private:
  Outcome ReadAll(Work* work) {
    typename Api::System sys;
    std::memset(&sys, 0, sizeof(sys));
    int s = Api::Acquire(&sys);
    if (s != kStatusSuccess) return Outcome{s, "hsaKmtAcquireSystemProperties"};
    Outcome o = ReadNodes(sys.NumNodes, work);
    s = Api::Release();
    if (o.status == kStatusSuccess && s != kStatusSuccess) {
      o = Outcome{s, "hsaKmtReleaseSystemProperties"};
    }
    return o;
  }

  Outcome ReadNodes(uint32_t count, Work* work) {
    work->nodes += count;
    for (uint32_t n = 0; n < count; ++n) {
      typename Api::Node node;
      std::memset(&node, 0, sizeof(node));
      int s = Api::GetNode(n, &node);
      if (s != kStatusSuccess) return Outcome{s, "hsaKmtGetNodeProperties"};
      if (node.NumMemoryBanks > mem_.size() || node.NumCaches > caches_.size() ||
          node.NumIOLinks > links_.size()) {
        return Outcome{kHarnessError, "harness: per-node output arrays too small"};
      }
      if (node.NumMemoryBanks != 0) {
        s = Api::GetMemory(n, node.NumMemoryBanks, mem_.data());
        if (s != kStatusSuccess) return Outcome{s, "hsaKmtGetNodeMemoryProperties"};
      }
      if (node.NumCaches != 0) {
        s = Api::GetCaches(n, node.CComputeIdLo, node.NumCaches, caches_.data());
        if (s != kStatusSuccess) return Outcome{s, "hsaKmtGetNodeCacheProperties"};
      }
      if (node.NumIOLinks != 0) {
        s = Api::GetLinks(n, node.NumIOLinks, links_.data());
        if (s != kStatusSuccess) return Outcome{s, "hsaKmtGetNodeIoLinkProperties"};
      }
      work->mem_banks += node.NumMemoryBanks;
      work->caches += node.NumCaches;
      work->io_links += node.NumIOLinks;
    }
    return Outcome{};
  }

  std::vector<typename Api::Memory> mem_;
  std::vector<typename Api::Cache> caches_;
  std::vector<typename Api::Link> links_;
};

// Opens the device and takes the topology snapshot for the memory cases;
// the destructor undoes whatever succeeded.
template <class Api>
class OpenDevice {
 public:
  OpenDevice() = default;
  OpenDevice(const OpenDevice&) = delete;
  OpenDevice& operator=(const OpenDevice&) = delete;
  ~OpenDevice() {
    if (acquired_) Api::Release();
    if (opened_) Api::Close();
  }

  // Opens, acquires, and finds the first GPU node (NumFComputeCores > 0).
  Outcome Open() {
    int s = Api::Open();
    if (s != kStatusSuccess) return Outcome{s, "hsaKmtOpenKFD"};
    opened_ = true;
    typename Api::System sys;
    std::memset(&sys, 0, sizeof(sys));
    s = Api::Acquire(&sys);
    if (s != kStatusSuccess) return Outcome{s, "hsaKmtAcquireSystemProperties"};
    acquired_ = true;
    for (uint32_t n = 0; n < sys.NumNodes; ++n) {
      typename Api::Node node;
      std::memset(&node, 0, sizeof(node));
      s = Api::GetNode(n, &node);
      if (s != kStatusSuccess) return Outcome{s, "hsaKmtGetNodeProperties"};
      if (node.NumFComputeCores > 0) {
        gpu_node_ = n;
        gfx_ = node.EngineId.ui32.Major * 100 + node.EngineId.ui32.Minor;
        has_gpu_ = true;
        break;
      }
    }
    if (!has_gpu_) return Outcome{kHarnessError, "harness: the board has no GPU node"};
    return Outcome{};
  }

  uint32_t gpu_node() const { return gpu_node_; }
  // The GPU node's GFX major * 100 + minor (EngineId), e.g. 904 for gfx94x.
  uint32_t gfx() const { return gfx_; }

 private:
  bool opened_ = false;
  bool acquired_ = false;
  bool has_gpu_ = false;
  uint32_t gpu_node_ = 0;
  uint32_t gfx_ = 0;
};

// System memory as a runtime allocates it for the host (paged, host
// access), or device memory (non-paged, no host access, coarse grain: the
// runtimes' default device pool).
template <class Api>
typename Api::MemFlags BenchMemFlags(bool vram) {
  typename Api::MemFlags f;
  std::memset(&f, 0, sizeof(f));
  f.ui32.PageSize = 0;  // HSA_PAGE_SIZE_4KB
  if (vram) {
    f.ui32.NonPaged = 1;
    f.ui32.CoarseGrain = 1;
  } else {
    f.ui32.HostAccess = 1;
  }
  return f;
}

template <class Api>
class AllocMapFree final : public CaseRun {
 public:
  AllocMapFree(uint64_t size, bool vram)
      : size_(size), vram_(vram), flags_(BenchMemFlags<Api>(vram)) {}

  Outcome Setup() override { return device_.Open(); }

  Outcome Iterate(Work* work) override {
    const uint32_t node = vram_ ? device_.gpu_node() : 0;
    void* p = nullptr;
    int s = Api::Alloc(node, size_, flags_, &p);
    if (s != kStatusSuccess) return Outcome{s, "hsaKmtAllocMemory"};
    uint64_t alternate = 0;
    s = Api::Map(p, size_, &alternate);
    if (s != kStatusSuccess) {
      Api::Free(p, size_);
      return Outcome{s, "hsaKmtMapMemoryToGPU"};
    }
    s = Api::Unmap(p);
    if (s != kStatusSuccess) {
      Api::Free(p, size_);
      return Outcome{s, "hsaKmtUnmapMemoryToGPU"};
    }
    s = Api::Free(p, size_);
    if (s != kStatusSuccess) return Outcome{s, "hsaKmtFreeMemory"};
    work->bytes += size_;
    return Outcome{};
  }

 private:
  OpenDevice<Api> device_;
  uint64_t size_;
  bool vram_;
  typename Api::MemFlags flags_;
};

// The kernel's limit on mappings per process (each allocation of either
// library is at least one mapping); 0 when unknown.
inline uint64_t MaxMapCount() {
  std::FILE* f = std::fopen("/proc/sys/vm/max_map_count", "r");
  if (f == nullptr) return 0;
  unsigned long long v = 0;
  const int n = std::fscanf(f, "%llu", &v);
  std::fclose(f);
  return n == 1 ? v : 0;
}

// Mappings one live 4 KiB allocation costs at least (Debian's is exactly
// one), plus headroom for the process's other mappings: below that the case
// cannot run on this host and is skipped. A library that needs more
// mappings per allocation fails visibly, naming the allocation that failed.
constexpr uint64_t kMappingsPerAllocation = 1;
constexpr uint64_t kMappingHeadroom = 4096;

// False (and why, in text) when vm.max_map_count cannot hold `live`
// allocations plus the headroom.
inline bool MappingsAllow(uint32_t live, char* text, size_t text_size) {
  const uint64_t limit = MaxMapCount();
  const uint64_t need = uint64_t{live} * kMappingsPerAllocation + kMappingHeadroom;
  if (limit == 0 || need <= limit) return true;
  std::snprintf(text, text_size,
                "needs vm.max_map_count >= %llu for %u live allocations (this host: %llu)",
                static_cast<unsigned long long>(need), live, static_cast<unsigned long long>(limit));
  return false;
}

template <class Api>
class QueryPointer final : public CaseRun {
 public:
  static constexpr uint64_t kSize = 4096;
  static constexpr size_t kProbes = 65536;  // power of two
  static constexpr uint32_t kBatch = 16;    // queries per iteration

  explicit QueryPointer(uint32_t live) : live_(live) {}

  ~QueryPointer() override {
    for (void* p : ptrs_) Api::Free(p, kSize);
  }

  Outcome Setup() override {
    if (!MappingsAllow(live_, text_, sizeof(text_))) return Outcome{kHarnessSkipped, text_};
    Outcome o = device_.Open();
    if (o.status != kStatusSuccess) return o;
    ptrs_.reserve(live_);
    const typename Api::MemFlags flags = BenchMemFlags<Api>(false);
    for (uint32_t i = 0; i < live_; ++i) {
      void* p = nullptr;
      const int s = Api::Alloc(0, kSize, flags, &p);
      if (s != kStatusSuccess) {
        if (s == kStatusNotImplemented) return Outcome{s, "hsaKmtAllocMemory"};
        std::snprintf(text_, sizeof(text_), "hsaKmtAllocMemory (allocation %u of %u)", i + 1,
                      live_);
        return Outcome{s, text_};
      }
      ptrs_.push_back(p);
    }
    // Probe addresses: a random allocation and a random byte in it
    // (fixed-seed LCG so both libraries see the same pattern).
    probes_.resize(kProbes);
    uint64_t x = 0x9E3779B97F4A7C15ull;
    for (size_t i = 0; i < kProbes; ++i) {
      x = x * 6364136223846793005ull + 1442695040888963407ull;
      const uint32_t which = static_cast<uint32_t>((x >> 33) % live_);
      const uint64_t offset = (x >> 12) % kSize;
      probes_[i] = static_cast<const char*>(ptrs_[which]) + offset;
    }
    return Outcome{};
  }

  Outcome Iterate(Work* work) override {
    for (uint32_t i = 0; i < kBatch; ++i) {
      const char* p = probes_[next_++ & (kProbes - 1)];
      typename Api::PointerInfo info;
      const int s = Api::Query(p, &info);
      if (s != kStatusSuccess) return Outcome{s, "hsaKmtQueryPointerInfo"};
      const char* base = static_cast<const char*>(info.CPUAddress);
      if (static_cast<int>(info.Type) != 1 /* HSA_POINTER_ALLOCATED */ ||
          info.SizeInBytes != kSize || base == nullptr || p < base || p >= base + kSize) {
        return Outcome{kHarnessError, "harness: QueryPointerInfo described another allocation"};
      }
    }
    work->live = live_;
    work->ops = kBatch;
    return Outcome{};
  }

 private:
  OpenDevice<Api> device_;
  uint32_t live_;
  std::vector<void*> ptrs_;
  std::vector<const char*> probes_;
  size_t next_ = 0;
  char text_[160] = {};  // Outcome::call text built in Setup
};

// worst-case/{kernel,reserved}-N: N live allocations of mixed sizes (system
// memory, paged, HostAccess, mapped to the GPU as a runtime maps them),
// populated in Setup and then churned: Setup frees and re-allocates N/2
// random slots (capped at 50,000), untimed, so the address space is
// fragmented before timing starts. One iteration is one more churn step
// on a random slot: Unmap, Free, Alloc (a new random size), Map, then
// kQueries QueryPointerInfo of random bytes of random live allocations,
// each call timed on its own (steady_clock around the call's marker, see
// CallMarker) and checked. The slot, size and probe sequence comes from a
// fixed-seed generator, the same for both libraries. Sizes: 4 KiB << k,
// k = 0..9 (4 KiB..2 MiB), weighted toward the small ones (kSizeWeights).
template <class Api>
class WorstCase final : public CaseRun {
 public:
  static constexpr uint32_t kQueries = 4;  // per iteration
  static constexpr uint32_t kChurnCap = 50000;
  // Samples kept per operation (memory for them is reserved in Setup, so
  // the measured region does not allocate); later calls are timed but not
  // kept.
  static constexpr size_t kSampleCap = 200000;

  explicit WorstCase(uint32_t live) : live_(live) {}

  ~WorstCase() override {
    for (Slot& s : slots_) {
      if (s.mapped) Api::Unmap(s.p);
      if (s.p != nullptr) Api::Free(s.p, s.size);
    }
  }

  Outcome Setup() override {
    if (!MappingsAllow(live_, text_, sizeof(text_))) return Outcome{kHarnessSkipped, text_};
    Outcome o = device_.Open();
    if (o.status != kStatusSuccess) return o;
    for (std::vector<double>& v : samples_.ns) v.reserve(kSampleCap);
    slots_.resize(live_);
    for (uint32_t i = 0; i < live_; ++i) {
      o = Place(&slots_[i], NextSize());
      if (o.status != kStatusSuccess) return Describe(o, i, "populating");
    }
    const uint32_t churn = live_ / 2 < kChurnCap ? live_ / 2 : kChurnCap;
    for (uint32_t i = 0; i < churn; ++i) {
      Slot& s = slots_[Next() % live_];
      o = Remove(&s);
      if (o.status == kStatusSuccess) o = Place(&s, NextSize());
      if (o.status != kStatusSuccess) return Describe(o, i, "fragmenting");
    }
    return Outcome{};
  }

  void BeginTimed() override {
    for (std::vector<double>& v : samples_.ns) v.clear();
    keep_ = true;
  }

  const CallSamples* Calls() const override { return &samples_; }

  Outcome Iterate(Work* work) override {
    Slot& s = slots_[Next() % live_];
    Outcome o = Remove(&s);
    if (o.status == kStatusSuccess) o = Place(&s, NextSize());
    if (o.status != kStatusSuccess) return o;
    for (uint32_t q = 0; q < kQueries; ++q) {
      const Slot& t = slots_[Next() % live_];
      const char* p = static_cast<const char*>(t.p) + Next() % t.size;
      query_ = p;
      std::memset(&info_, 0, sizeof(info_));
      if (Timed(kCallQuery, &DoQuery) != kStatusSuccess) {
        return Outcome{status_, "hsaKmtQueryPointerInfo"};
      }
      const char* base = static_cast<const char*>(info_.CPUAddress);
      if (static_cast<int>(info_.Type) != 1 /* HSA_POINTER_ALLOCATED */ ||
          info_.SizeInBytes != t.size || base != t.p) {
        return Outcome{kHarnessError, "harness: QueryPointerInfo described another allocation"};
      }
    }
    work->live = live_;
    return Outcome{};
  }

 private:
  struct Slot {
    void* p = nullptr;
    uint64_t size = 0;
    bool mapped = false;
  };

  // Relative weights of the size classes 4 KiB << k (mean about 164 KiB).
  static constexpr uint32_t kSizeWeights[10] = {16, 8, 8, 6, 6, 4, 4, 2, 2, 2};

  uint64_t Next() {
    x_ = x_ * 6364136223846793005ull + 1442695040888963407ull;
    return x_ >> 17;
  }

  uint64_t NextSize() {
    uint32_t total = 0;
    for (uint32_t w : kSizeWeights) total += w;
    uint32_t r = static_cast<uint32_t>(Next() % total);
    uint32_t k = 0;
    while (r >= kSizeWeights[k]) r -= kSizeWeights[k++];
    return uint64_t{4096} << k;
  }

  // Allocates and maps `size` bytes into an empty slot.
  Outcome Place(Slot* s, uint64_t size) {
    size_ = size;
    if (Timed(kCallAlloc, &DoAlloc) != kStatusSuccess) return Outcome{status_, "hsaKmtAllocMemory"};
    s->p = ptr_;
    s->size = size;
    if (Timed(kCallMap, &DoMap) != kStatusSuccess) return Outcome{status_, "hsaKmtMapMemoryToGPU"};
    s->mapped = true;
    return Outcome{};
  }

  // Unmaps and frees a slot's allocation.
  Outcome Remove(Slot* s) {
    ptr_ = s->p;
    size_ = s->size;
    if (Timed(kCallUnmap, &DoUnmap) != kStatusSuccess) {
      return Outcome{status_, "hsaKmtUnmapMemoryToGPU"};
    }
    s->mapped = false;
    if (Timed(kCallFree, &DoFree) != kStatusSuccess) return Outcome{status_, "hsaKmtFreeMemory"};
    s->p = nullptr;
    return Outcome{};
  }

  Outcome Describe(const Outcome& o, uint32_t i, const char* phase) {
    if (o.status == kStatusNotImplemented) return o;
    std::snprintf(text_, sizeof(text_), "%s (%s, step %u of %u live)", o.call, phase, i + 1, live_);
    return Outcome{o.status, text_};
  }

  // The call of `op`, timed and kept once the timed iterations began
  // (keep_); only those go through the marker, so that callgrind counts
  // none of Setup's, warm-up's or the attributed iteration's calls.
  int Timed(CallOp op, CallThunk fn) {
    if (!keep_) {
      fn(this);
      return status_;
    }
    const auto t0 = std::chrono::steady_clock::now();
    CallMarker(op)(fn, this);
    const auto t1 = std::chrono::steady_clock::now();
    std::vector<double>& v = samples_.ns[op];
    if (v.size() < kSampleCap) {
      v.push_back(static_cast<double>(
          std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count()));
    }
    return status_;
  }

  static void DoAlloc(void* ctx) {
    auto* c = static_cast<WorstCase*>(ctx);
    c->ptr_ = nullptr;
    c->status_ = Api::Alloc(0, c->size_, c->flags_, &c->ptr_);
  }
  static void DoFree(void* ctx) {
    auto* c = static_cast<WorstCase*>(ctx);
    c->status_ = Api::Free(c->ptr_, c->size_);
  }
  static void DoMap(void* ctx) {
    auto* c = static_cast<WorstCase*>(ctx);
    uint64_t alternate = 0;
    c->status_ = Api::Map(c->ptr_, c->size_, &alternate);
  }
  static void DoUnmap(void* ctx) {
    auto* c = static_cast<WorstCase*>(ctx);
    c->status_ = Api::Unmap(c->ptr_);
  }
  static void DoQuery(void* ctx) {
    auto* c = static_cast<WorstCase*>(ctx);
    c->status_ = Api::Query(c->query_, &c->info_);
  }

  OpenDevice<Api> device_;
  uint32_t live_;
  const typename Api::MemFlags flags_ = BenchMemFlags<Api>(false);
  std::vector<Slot> slots_;
  uint64_t x_ = 0x2545F4914F6CDD1Dull;  // generator state (fixed seed)
  CallSamples samples_;
  bool keep_ = false;
  // Arguments and results of the call in flight (the thunks' context).
  void* ptr_ = nullptr;
  uint64_t size_ = 0;
  const char* query_ = nullptr;
  typename Api::PointerInfo info_{};
  int status_ = kStatusSuccess;
  char text_[160] = {};  // Outcome::call text built in Setup
};

// System memory the GPU reaches, as runtimes allocate rings and queue
// pointers: node 0, HostAccess + NonPaged + ExecuteAccess (GTT), mapped to
// one GPU node and zeroed. The destructor unmaps and frees what succeeded.
template <class Api>
class GttBuffer {
 public:
  GttBuffer() = default;
  GttBuffer(const GttBuffer&) = delete;
  GttBuffer& operator=(const GttBuffer&) = delete;
  ~GttBuffer() {
    if (mapped_) Api::Unmap(p_);
    if (p_ != nullptr) Api::Free(p_, size_);
  }

  Outcome Allocate(uint64_t size, uint32_t gpu_node) {
    typename Api::MemFlags f;
    std::memset(&f, 0, sizeof(f));
    f.ui32.PageSize = 0;  // HSA_PAGE_SIZE_4KB
    f.ui32.HostAccess = 1;
    f.ui32.NonPaged = 1;
    f.ui32.ExecuteAccess = 1;
    void* p = nullptr;
    int s = Api::Alloc(0, size, f, &p);
    if (s != kStatusSuccess) return Outcome{s, "hsaKmtAllocMemory (GTT)"};
    p_ = p;
    size_ = size;
    s = Api::MapToNode(p, size, gpu_node);
    if (s != kStatusSuccess) return Outcome{s, "hsaKmtMapMemoryToGPUNodes"};
    mapped_ = true;
    std::memset(p, 0, size);
    return Outcome{};
  }

  void* get() const { return p_; }
  uint64_t size() const { return size_; }
  uint64_t address() const { return reinterpret_cast<uintptr_t>(p_); }

 private:
  void* p_ = nullptr;
  uint64_t size_ = 0;
  bool mapped_ = false;
};

constexpr uint64_t kSdmaRingBytes = 4096;
constexpr uint64_t kAqlRingBytes = 64 * 1024;

// queue-create-destroy/{sdma,aql}: one iteration creates a queue on the
// first GPU node and destroys it. Setup opens the device and allocates the
// ring (4 KiB SDMA, 64 KiB AQL) and, for AQL, the read/write pointer pair
// (two u64 at the start of a 4 KiB GTT buffer: inputs of an AQL create,
// while the library provides an SDMA queue's pointers itself).
template <class Api>
class QueueCreateDestroy final : public CaseRun {
 public:
  explicit QueueCreateDestroy(QueueKind kind) : kind_(kind) {}

  Outcome Setup() override {
    Outcome o = device_.Open();
    if (o.status != kStatusSuccess) return o;
    o = ring_.Allocate(kind_ == kQueueAql ? kAqlRingBytes : kSdmaRingBytes, device_.gpu_node());
    if (o.status != kStatusSuccess || kind_ != kQueueAql) return o;
    o = pointers_.Allocate(4096, device_.gpu_node());
    if (o.status != kStatusSuccess || Api::kAqlRefusal == nullptr ||
        device_.gfx() < Api::kAqlRefusalFromGfx) {
      return o;
    }
    // A library whose AQL queues the kernel's queue-buffer checks refuse on
    // GPUs from Api::kAqlRefusalFromGfx on (Api::kAqlRefusal says why): one
    // trial create tells, and the case is skipped with that reason instead
    // of failing every iteration. Any other failure stays an error.
    o = Iterate(nullptr);
    if (o.status == kStatusSuccess || std::strcmp(o.call, "hsaKmtCreateQueue") != 0) return o;
    std::snprintf(text_, sizeof(text_), "%s returned %d here: %s", o.call, o.status,
                  Api::kAqlRefusal);
    return Outcome{kHarnessSkipped, text_};
  }

  Outcome Iterate(Work*) override {
    typename Api::QueueResource q;
    std::memset(&q, 0, sizeof(q));
    if (kind_ == kQueueAql) {
      auto* words = static_cast<char*>(pointers_.get());
      q.Queue_read_ptr_aql = reinterpret_cast<decltype(q.Queue_read_ptr_aql)>(words);
      q.Queue_write_ptr_aql = reinterpret_cast<decltype(q.Queue_write_ptr_aql)>(words + 8);
    }
    int s = Api::CreateQueue(device_.gpu_node(), kind_ == kQueueAql ? Api::kAqlQueue : Api::kSdmaQueue,
                             100, Api::kPriorityNormal, ring_.get(), ring_.size(), nullptr, &q);
    if (s != kStatusSuccess) return Outcome{s, "hsaKmtCreateQueue"};
    s = Api::DestroyQueue(q.QueueId);
    if (s != kStatusSuccess) return Outcome{s, "hsaKmtDestroyQueue"};
    return Outcome{};
  }

 private:
  // Declared first: destroyed after the buffers (which need the open device).
  OpenDevice<Api> device_;
  QueueKind kind_;
  GttBuffer<Api> ring_;
  GttBuffer<Api> pointers_;
  char text_[512] = {};
};

// The text of a doorbell-latency iteration that saw no completion.
constexpr const char* kNoCompletion =
    "no completion within 5 s: does the simulator run its engine thread?";

// doorbell-latency/{sdma-poll,sdma-event}: one iteration appends to the
// ring a FENCE writing the iteration's sequence number to the fence buffer
// (and for sdma-event a FENCE of the event id to the event's slot plus a
// TRAP naming the event, which is how the SDMA engine raises the event's
// interrupt), publishes the write pointer and rings the doorbell (both u64
// byte offsets, release stores), then waits for the sequence number:
// sdma-poll spins on the fence buffer (bounded: 5 s of steady_clock),
// sdma-event blocks in WaitOnEvent(event, 5 s) and then checks the fence.
// The time is doorbell-to-completion as the caller sees it (writing the
// few packet dwords is included). Setup opens the device and allocates a
// 4 KiB ring, a 4 KiB fence buffer, an auto-reset signal event on the GPU
// node (both variants, so their setup is the same) and the SDMA queue.
template <class Api>
class DoorbellLatency final : public CaseRun {
 public:
  static constexpr uint32_t kTimeoutMs = 5000;

  explicit DoorbellLatency(bool wait_event) : wait_event_(wait_event) {}

  ~DoorbellLatency() override {
    // Before the ring and the device go (members are destroyed after this).
    if (queue_created_) Api::DestroyQueue(queue_.QueueId);
    if (event_ != nullptr) Api::DestroyEvent(event_);
  }

  Outcome Setup() override {
    Outcome o = device_.Open();
    if (o.status != kStatusSuccess) return o;
    const uint32_t gpu = device_.gpu_node();
    o = ring_.Allocate(kSdmaRingBytes, gpu);
    if (o.status != kStatusSuccess) return o;
    o = fence_.Allocate(4096, gpu);
    if (o.status != kStatusSuccess) return o;
    typename Api::EventDesc desc;
    std::memset(&desc, 0, sizeof(desc));
    desc.EventType = Api::kSignalEvent;
    desc.NodeId = gpu;
    desc.SyncVar.SyncVar.UserData = nullptr;
    desc.SyncVar.SyncVarSize = sizeof(uint64_t);
    int s = Api::CreateEvent(&desc, /*ManualReset=*/false, /*IsSignaled=*/false, &event_);
    if (s != kStatusSuccess) {
      event_ = nullptr;
      return Outcome{s, "hsaKmtCreateEvent"};
    }
    std::memset(&queue_, 0, sizeof(queue_));
    s = Api::CreateQueue(gpu, Api::kSdmaQueue, 100, Api::kPriorityNormal, ring_.get(), ring_.size(),
                         nullptr, &queue_);
    if (s != kStatusSuccess) return Outcome{s, "hsaKmtCreateQueue"};
    queue_created_ = true;
    return Outcome{};
  }

  Outcome Iterate(Work*) override {
    const uint32_t value = ++sequence_;
    Fence(fence_.address(), value);
    if (wait_event_) {
      Fence(event_->EventData.HWData2, static_cast<uint32_t>(event_->EventId));
      Put(6u);  // TRAP
      Put(static_cast<uint32_t>(event_->EventId) & 0x0FFFFFFFu);
    }
    __atomic_store_n(queue_.Queue_write_ptr_aql, wptr_, __ATOMIC_RELEASE);
    __atomic_store_n(queue_.Queue_DoorBell_aql, wptr_, __ATOMIC_RELEASE);
    const uint32_t* fence = static_cast<const uint32_t*>(fence_.get());
    if (wait_event_) {
      const int s = Api::WaitOnEvent(event_, kTimeoutMs);
      if (s == kStatusWaitTimeout) return Outcome{kHarnessError, kNoCompletion};
      if (s != kStatusSuccess) return Outcome{s, "hsaKmtWaitOnEvent"};
      if (__atomic_load_n(fence, __ATOMIC_ACQUIRE) != value) {
        return Outcome{kHarnessError, "harness: the event fired but the fence value is not there"};
      }
      return Outcome{};
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kTimeoutMs);
    for (uint32_t spins = 1; __atomic_load_n(fence, __ATOMIC_ACQUIRE) != value; ++spins) {
      __builtin_ia32_pause();
      if ((spins & 1023u) == 0 && std::chrono::steady_clock::now() > deadline) {
        return Outcome{kHarnessError, kNoCompletion};
      }
    }
    return Outcome{};
  }

 private:
  // One dword at the write pointer; the ring wraps (byte offset modulo its
  // size), so a packet may straddle the end, as the engine allows.
  void Put(uint32_t dw) {
    auto* ring = static_cast<uint32_t*>(ring_.get());
    __atomic_store_n(&ring[(wptr_ % kSdmaRingBytes) / 4], dw, __ATOMIC_RELAXED);
    wptr_ += 4;
  }

  // SDMA FENCE (op 5): writes `data` (u32) to `address`.
  void Fence(uint64_t address, uint32_t data) {
    Put(5u);
    Put(static_cast<uint32_t>(address));
    Put(static_cast<uint32_t>(address >> 32));
    Put(data);
  }

  // Declared first: destroyed after the buffers (which need the open device).
  OpenDevice<Api> device_;
  bool wait_event_;
  GttBuffer<Api> ring_;
  GttBuffer<Api> fence_;
  typename Api::Event* event_ = nullptr;
  typename Api::QueueResource queue_{};
  bool queue_created_ = false;
  uint64_t wptr_ = 0;      // bytes written to the ring, only growing
  uint32_t sequence_ = 0;  // fence value of the latest iteration
};

// An auto-reset, unsignalled signal event on `node` (event-set-wake,
// event-set-wait). *out stays null on failure.
template <class Api>
Outcome CreateAutoResetSignal(uint32_t node, typename Api::Event** out) {
  typename Api::EventDesc desc;
  std::memset(&desc, 0, sizeof(desc));
  desc.EventType = Api::kSignalEvent;
  desc.NodeId = node;
  desc.SyncVar.SyncVar.UserData = nullptr;
  desc.SyncVar.SyncVarSize = sizeof(uint64_t);
  typename Api::Event* e = nullptr;
  const int s = Api::CreateEvent(&desc, /*ManualReset=*/false, /*IsSignaled=*/false, &e);
  if (s != kStatusSuccess) return Outcome{s, "hsaKmtCreateEvent"};
  *out = e;
  return Outcome{};
}

// event-set-wake: an auto-reset signal event, a waiter thread blocked in
// WaitOnEvent; one iteration = SetEvent on this thread until the waiter
// reports the wake-up (an atomic counter), i.e. the set -> wake round trip
// through the library and the simulated kernel. Heap allocations are counted
// on this thread only (the waiter's WaitOnEvent is not in the region).
//
// The waiter loops straight back into WaitOnEvent, so where it is when the
// next SetEvent comes is a race: still on its way in (the SET finds nobody
// waiting and the next WAIT_EVENTS returns at once) or asleep in the
// simulated kernel (the SET has to wake it). The two libraries land on
// different sides of that race (tools/bench/README.md, "event-set-wake").
// event-wake-parked (`parked`) removes it: Prepare, untimed, waits until
// the waiter has entered WaitOnEvent and its thread sleeps
// (/proc/self/task/<tid>/stat state S), so every timed SetEvent wakes a
// sleeping waiter, the same work for both libraries.
template <class Api>
class EventSetWake final : public CaseRun {
 public:
  static constexpr uint32_t kTimeoutMs = 5000;

  explicit EventSetWake(bool parked = false) : parked_(parked) {}

  ~EventSetWake() override {
    if (waiter_.joinable()) {
      stop_.store(true, std::memory_order_release);
      if (event_ != nullptr) Api::SetEvent(event_);
      waiter_.join();
    }
    if (event_ != nullptr) Api::DestroyEvent(event_);
  }

  Outcome Setup() override {
    Outcome o = device_.Open();
    if (o.status != kStatusSuccess) return o;
    o = CreateAutoResetSignal<Api>(device_.gpu_node(), &event_);
    if (o.status != kStatusSuccess) return o;
    waiter_ = std::thread([this] {
      tid_.store(static_cast<int>(syscall(SYS_gettid)), std::memory_order_release);
      while (!stop_.load(std::memory_order_acquire)) {
        entered_.fetch_add(1, std::memory_order_acq_rel);
        const int w = Api::WaitOnEvent(event_, kTimeoutMs);
        if (w == kStatusSuccess) {
          woken_.fetch_add(1, std::memory_order_acq_rel);
        } else if (w != kStatusWaitTimeout) {
          failed_.store(w, std::memory_order_release);
          return;
        }
      }
    });
    return Outcome{};
  }

  Outcome Prepare() override {
    if (!parked_) return Outcome{};
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kTimeoutMs);
    // The waiter has started the WaitOnEvent that the next SetEvent ends
    // (it counts entries before the call, wake-ups after it)...
    while (tid_.load(std::memory_order_acquire) == 0 ||
           entered_.load(std::memory_order_acquire) <= woken_.load(std::memory_order_acquire)) {
      if (failed_.load(std::memory_order_acquire) != 0) {
        return Outcome{failed_.load(), "hsaKmtWaitOnEvent (waiter thread)"};
      }
      if (std::chrono::steady_clock::now() > deadline) {
        return Outcome{kHarnessError, "harness: the waiter did not enter WaitOnEvent within 5 s"};
      }
      std::this_thread::yield();
    }
    // ...and sleeps in it: nothing else puts that thread to sleep (the
    // timing thread holds no lock of either library here).
    char path[64];
    std::snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid_.load());
    for (;;) {
      const char state = ThreadState(path);
      if (state == 'S') return Outcome{};
      if (state == 0) return Outcome{kHarnessError, "harness: cannot read the waiter's state"};
      if (std::chrono::steady_clock::now() > deadline) {
        return Outcome{kHarnessError, "harness: the waiter did not sleep within 5 s"};
      }
      std::this_thread::yield();
    }
  }

  Outcome Iterate(Work*) override {
    const uint64_t before = woken_.load(std::memory_order_acquire);
    const int s = Api::SetEvent(event_);
    if (s != kStatusSuccess) return Outcome{s, "hsaKmtSetEvent"};
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kTimeoutMs);
    for (uint32_t spins = 1; woken_.load(std::memory_order_acquire) == before; ++spins) {
      if (failed_.load(std::memory_order_acquire) != 0) {
        return Outcome{failed_.load(), "hsaKmtWaitOnEvent (waiter thread)"};
      }
      if ((spins & 1023u) == 0 && std::chrono::steady_clock::now() > deadline) {
        return Outcome{kHarnessError, "harness: the waiter did not wake within 5 s"};
      }
    }
    return Outcome{};
  }

 private:
  // The state letter of /proc/<pid>/stat (after the ')' that ends the
  // command name), or 0 when the file cannot be read.
  static char ThreadState(const char* path) {
    const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    char buf[512];
    const ssize_t n = ::read(fd, buf, sizeof(buf) - 1);
    ::close(fd);
    if (n <= 0) return 0;
    buf[n] = '\0';
    const char* paren = std::strrchr(buf, ')');
    return paren != nullptr && paren[1] == ' ' ? paren[2] : 0;
  }

  OpenDevice<Api> device_;
  typename Api::Event* event_ = nullptr;
  std::thread waiter_;
  const bool parked_;
  std::atomic<bool> stop_{false};
  std::atomic<int> tid_{0};
  std::atomic<uint64_t> entered_{0};
  std::atomic<uint64_t> woken_{0};
  std::atomic<int> failed_{0};
};

// event-set-wait: one thread, an auto-reset signal event; one iteration =
// SetEvent then WaitOnEvent(event, 0), which finds the event signalled and
// consumes it. The per-call cost of the two event calls without a second
// thread: what instruction counts can measure (event-set-wake's spin on the
// waiter's counter runs as long as valgrind's thread scheduling makes it).
template <class Api>
class EventSetWait final : public CaseRun {
 public:
  ~EventSetWait() override {
    if (event_ != nullptr) Api::DestroyEvent(event_);
  }

  Outcome Setup() override {
    Outcome o = device_.Open();
    if (o.status != kStatusSuccess) return o;
    o = CreateAutoResetSignal<Api>(device_.gpu_node(), &event_);
    if (o.status != kStatusSuccess) return o;
    return Outcome{};
  }

  Outcome Iterate(Work*) override {
    int s = Api::SetEvent(event_);
    if (s != kStatusSuccess) return Outcome{s, "hsaKmtSetEvent"};
    s = Api::WaitOnEvent(event_, 0);
    if (s != kStatusSuccess) return Outcome{s, "hsaKmtWaitOnEvent (the event was set)"};
    return Outcome{};
  }

 private:
  OpenDevice<Api> device_;
  typename Api::Event* event_ = nullptr;
};

}  // namespace hkebench

#endif  // HKE_TOOLS_BENCH_CASES_H_
