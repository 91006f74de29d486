// Fault sweep: hsaKmtMapMemoryToGPU / MapMemoryToGPUNodes / UnmapMemoryToGPU
// on VRAM, and user-memory registration (legacy userptr BOs and the SVM
// path) with its map, unmap and deregistration.
#include <cstdlib>
#include <cstring>

#include "doctest/doctest.h"
#include "tests/fault_sweep/sweep.h"

namespace {

using sweep::Run;

constexpr uint64_t kSize = 1 << 20;

// Maps to every GPU, unmaps, maps to two GPUs, narrows to one (an unmap
// of the dropped GPU), unmaps. A failed map must leave nothing mapped.
class MapUnmap : public sweep::Body {
 public:
  void Arrange(Run& r) override {
    HsaMemFlags f = sweep::Flags();
    f.ui32.NonPaged = 1;
    f.ui32.HostAccess = 1;
    r.Require("hsaKmtAllocMemory", hsaKmtAllocMemory(r.gpu_node(0), kSize, f, &p_));
  }
  void Act(Run& r) override {
    if (p_ == nullptr) return;
    HSAuint64 alt = 0;
    if (r.Step("hsaKmtMapMemoryToGPU", [&] { return hsaKmtMapMemoryToGPU(p_, kSize, &alt); },
               {{&alt, sizeof(alt)}}) != HSAKMT_STATUS_SUCCESS) {
      return;
    }
    r.MustRecover("hsaKmtUnmapMemoryToGPU", [&] { return hsaKmtUnmapMemoryToGPU(p_); });
    HsaMemMapFlags mf;
    mf.Value = 0;
    HSAuint32 two[] = {r.gpu_node(0), r.gpu_node(1)};
    if (r.Step("hsaKmtMapMemoryToGPUNodes (2 GPUs)",
               [&] { return hsaKmtMapMemoryToGPUNodes(p_, kSize, &alt, mf, 2, two); },
               {{&alt, sizeof(alt)}}) != HSAKMT_STATUS_SUCCESS) {
      return;
    }
    HSAuint32 one[] = {r.gpu_node(1)};
    r.Step("hsaKmtMapMemoryToGPUNodes (1 of them)",
           [&] { return hsaKmtMapMemoryToGPUNodes(p_, kSize, &alt, mf, 1, one); },
           {{&alt, sizeof(alt)}});
    r.MustRecover("hsaKmtUnmapMemoryToGPU", [&] { return hsaKmtUnmapMemoryToGPU(p_); });
  }
  void Cleanup(Run& r) override {
    if (p_ == nullptr) return;
    // Whatever failed, the object ends up mapped nowhere.
    HsaPointerInfo info;
    r.Require("hsaKmtQueryPointerInfo", hsaKmtQueryPointerInfo(p_, &info));
    if (info.NMappedNodes != 0) {
      r.Violation("the buffer is still mapped to " + std::to_string(info.NMappedNodes) +
                  " GPUs after act");
    }
    r.Require("hsaKmtFreeMemory", hsaKmtFreeMemory(p_, kSize));
  }

 private:
  void* p_ = nullptr;
};

// Registers a user buffer (not page aligned), maps it, unmaps it,
// deregisters it.
class RegisterUser : public sweep::Body {
 public:
  void Arrange(Run& r) override {
    if (posix_memalign(&raw_, 4096, 8 * 4096) != 0) {
      r.Violation("posix_memalign failed");
      raw_ = nullptr;
      return;
    }
    std::memset(raw_, 0x11, 8 * 4096);
  }
  void Act(Run& r) override {
    if (raw_ == nullptr) return;
    char* buf = static_cast<char*>(raw_) + 64;
    const HSAuint64 size = 3 * 4096 + 100;
    if (r.Step("hsaKmtRegisterMemory", [&] { return hsaKmtRegisterMemory(buf, size); }) !=
        HSAKMT_STATUS_SUCCESS) {
      return;
    }
    HSAuint64 alt = 0;
    if (r.Step("hsaKmtMapMemoryToGPU", [&] { return hsaKmtMapMemoryToGPU(buf, size, &alt); },
               {{&alt, sizeof(alt)}}) == HSAKMT_STATUS_SUCCESS) {
      r.MustRecover("hsaKmtUnmapMemoryToGPU", [&] { return hsaKmtUnmapMemoryToGPU(buf); });
    }
    r.MustRecover("hsaKmtDeregisterMemory", [&] { return hsaKmtDeregisterMemory(buf); });
  }
  void Cleanup(Run&) override { std::free(raw_); }

 private:
  void* raw_ = nullptr;
};

}  // namespace

TEST_CASE(
    "fault sweep: MapMemoryToGPU(Nodes)/UnmapMemoryToGPU on VRAM leave the buffer mapped nowhere "
    "and still freeable") {
  sweep::Scenario s;
  s.name = "map/unmap";
  s.make = [] { return std::make_unique<MapUnmap>(); };
  sweep::Report(s, sweep::Sweep(s));
}

TEST_CASE(
    "fault sweep: legacy userptr RegisterMemory/Map/Unmap/DeregisterMemory leave no slot, VA or "
    "userptr BO behind") {
  sweep::Scenario s;
  s.name = "register (legacy userptr)";
  s.flags = HKE_CONFIG_LEGACY_USERPTR;
  s.make = [] { return std::make_unique<RegisterUser>(); };
  sweep::Report(s, sweep::Sweep(s));
}

TEST_CASE(
    "fault sweep: SVM RegisterMemory/Map/Unmap/DeregisterMemory fail cleanly at every platform "
    "call") {
  sweep::Scenario s;
  s.name = "register (SVM)";
  s.make = [] { return std::make_unique<RegisterUser>(); };
  sweep::Report(s, sweep::Sweep(s));
}
