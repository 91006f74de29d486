// The cases, each written once for both libraries as a template over `Api`:
//   OpenClose      hsaKmtOpenKFD + hsaKmtCloseKFD (the open handshake);
//   TopologyCycle  OpenKFD, AcquireSystemProperties, every node's
//                  node/memory/cache/io-link properties,
//                  ReleaseSystemProperties, CloseKFD;
//   AllocMapFree   AllocMemory + MapMemoryToGPU + UnmapMemoryToGPU +
//                  FreeMemory of one buffer (device open for the whole run);
//   QueryPointer   QueryPointerInfo of random addresses inside N live 4 KiB
//                  allocations (populated in Setup), 16 per iteration.
//
// `Api` supplies the types of its header (System, Node, Memory, Cache, Link,
// MemFlags, PointerInfo) and static functions Open, Close, Acquire, Release,
// GetNode, GetMemory, GetCaches, GetLinks, Alloc, Free, Map, Unmap, Query
// with the hsaKmt* signatures, returning the HSAKMT_STATUS as int. Included
// by ours.cc and debian.cc only; each instantiates it with its own types.
#ifndef HKE_TOOLS_BENCH_CASES_H_
#define HKE_TOOLS_BENCH_CASES_H_

#include <cstdint>
#include <cstdio>
#include <cstring>
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
        has_gpu_ = true;
        break;
      }
    }
    if (!has_gpu_) return Outcome{kHarnessError, "harness: the board has no GPU node"};
    return Outcome{};
  }

  uint32_t gpu_node() const { return gpu_node_; }

 private:
  bool opened_ = false;
  bool acquired_ = false;
  bool has_gpu_ = false;
  uint32_t gpu_node_ = 0;
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
    const uint64_t limit = MaxMapCount();
    const uint64_t need = uint64_t{live_} * kMappingsPerAllocation + kMappingHeadroom;
    if (limit != 0 && need > limit) {
      std::snprintf(text_, sizeof(text_),
                    "needs vm.max_map_count >= %llu for %u live allocations (this host: %llu)",
                    static_cast<unsigned long long>(need), live_,
                    static_cast<unsigned long long>(limit));
      return Outcome{kHarnessSkipped, text_};
    }
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

}  // namespace hkebench

#endif  // HKE_TOOLS_BENCH_CASES_H_
