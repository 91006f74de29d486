// Fault sweep: hsaKmtAllocMemory + hsaKmtFreeMemory of every allocation
// kind (system paged, with and without NoSubstitute, system GTT, VRAM,
// VRAM with host access, NoAddress, OnlyAddress, scratch with its
// map/unmap, AQL queue memory), and slices of a scratch range mapped and
// unmapped on their own.
#include <cstring>

#include "doctest/doctest.h"
#include "tests/fault_sweep/sweep.h"

namespace {

using sweep::Run;

struct Kind {
  const char* name;
  bool gpu;  // allocate on a GPU node (else the CPU node)
  void (*set)(HsaMemFlags&);
  bool host_visible;  // the CPU may write it
  bool map;           // map to the GPUs and unmap inside act
};

class AllocFree : public sweep::Body {
 public:
  explicit AllocFree(const Kind& k) : k_(k) {}
  void Act(Run& r) override {
    HsaMemFlags f = sweep::Flags();
    k_.set(f);
    const uint32_t node = k_.gpu ? r.gpu_node(0) : r.cpu_node();
    void* p = nullptr;
    if (r.Step("hsaKmtAllocMemory", [&] { return hsaKmtAllocMemory(node, kSize, f, &p); },
               {{&p, sizeof(p)}}) != HSAKMT_STATUS_SUCCESS) {
      return;
    }
    if (k_.host_visible) {
      std::memset(p, 0x3c, kSize);
      if (static_cast<unsigned char*>(p)[kSize - 1] != 0x3c) r.Violation("memory not writable");
    }
    if (k_.map) {
      HSAuint64 alt = 0;
      if (r.Step("hsaKmtMapMemoryToGPU", [&] { return hsaKmtMapMemoryToGPU(p, kSize, &alt); },
                 {{&alt, sizeof(alt)}}) == HSAKMT_STATUS_SUCCESS) {
        r.MustRecover("hsaKmtUnmapMemoryToGPU", [&] { return hsaKmtUnmapMemoryToGPU(p); });
      }
    }
    r.MustRecover("hsaKmtFreeMemory", [&] { return hsaKmtFreeMemory(p, kSize); });
  }

 private:
  static constexpr uint64_t kSize = 64 * 1024;
  Kind k_;
};

// Two slices of one scratch range mapped at non-zero offsets and unmapped
// one by one; the range itself is arranged and freed outside act. A slice
// whose backing could not be released stays with the range, and freeing
// the range releases it.
class ScratchSlices : public sweep::Body {
 public:
  void Arrange(Run& r) override {
    HsaMemFlags f = sweep::Flags();
    f.ui32.Scratch = 1;
    r.Require("hsaKmtAllocMemory", hsaKmtAllocMemory(r.gpu_node(0), kRange, f, &base_));
  }
  void Act(Run& r) override {
    if (base_ == nullptr) return;
    char* a = static_cast<char*>(base_) + 64 * 1024;
    char* b = static_cast<char*>(base_) + 256 * 1024 + 4096;
    if (r.Step("hsaKmtMapMemoryToGPU (slice a)",
               [&] { return hsaKmtMapMemoryToGPU(a, 64 * 1024, nullptr); }) != HSAKMT_STATUS_SUCCESS) {
      return;
    }
    if (r.Step("hsaKmtMapMemoryToGPU (slice b)",
               [&] { return hsaKmtMapMemoryToGPU(b, 8192, nullptr); }) == HSAKMT_STATUS_SUCCESS) {
      r.MustRecover("hsaKmtUnmapMemoryToGPU (slice b)", [&] { return hsaKmtUnmapMemoryToGPU(b); });
    }
    r.MustRecover("hsaKmtUnmapMemoryToGPU (slice a)", [&] { return hsaKmtUnmapMemoryToGPU(a); });
  }
  void Cleanup(Run& r) override {
    if (base_ != nullptr) r.Require("hsaKmtFreeMemory", hsaKmtFreeMemory(base_, kRange));
  }

 private:
  static constexpr uint64_t kRange = 1 << 20;
  void* base_ = nullptr;
};

void SweepKind(const Kind& k, uint32_t flags = 0) {
  sweep::Scenario s;
  s.name = std::string("alloc ") + k.name;
  s.flags = flags;
  s.make = [k] { return std::make_unique<AllocFree>(k); };
  sweep::Report(s, sweep::Sweep(s));
}

}  // namespace

TEST_CASE(
    "fault sweep: AllocMemory/FreeMemory of paged system memory leave no slot, VA, pages or "
    "userptr BO behind") {
  SweepKind({"system paged", false, [](HsaMemFlags& f) { f.ui32.HostAccess = 1; }, true, false});
}

TEST_CASE(
    "fault sweep: AllocMemory/FreeMemory of paged system memory with NoSubstitute (NUMA-bound "
    "with BIND) leave no slot, VA, pages or userptr BO behind") {
  SweepKind({"system paged NoSubstitute", false,
             [](HsaMemFlags& f) {
               f.ui32.HostAccess = 1;
               f.ui32.NoSubstitute = 1;
             },
             true, false});
}

TEST_CASE(
    "fault sweep: AllocMemory/FreeMemory of GTT system memory leave no slot, VA, mapping or BO "
    "behind") {
  SweepKind({"system GTT", false,
             [](HsaMemFlags& f) {
               f.ui32.HostAccess = 1;
               f.ui32.NonPaged = 1;
             },
             true, false});
}

TEST_CASE("fault sweep: AllocMemory/FreeMemory of VRAM leave no slot, VA, mapping or BO behind") {
  SweepKind({"VRAM", true, [](HsaMemFlags& f) { f.ui32.NonPaged = 1; }, false, false});
}

TEST_CASE(
    "fault sweep: AllocMemory/FreeMemory of host-accessible VRAM leave no slot, VA, mapping or BO "
    "behind") {
  SweepKind({"VRAM host access", true,
             [](HsaMemFlags& f) {
               f.ui32.NonPaged = 1;
               f.ui32.HostAccess = 1;
             },
             true, false});
}

TEST_CASE(
    "fault sweep: AllocMemory/FreeMemory of NoAddress VRAM leave no slot, handle-aperture range or "
    "BO behind") {
  SweepKind({"NoAddress", true,
             [](HsaMemFlags& f) {
               f.ui32.NonPaged = 1;
               f.ui32.NoAddress = 1;
             },
             false, false});
}

TEST_CASE(
    "fault sweep: AllocMemory/FreeMemory of an OnlyAddress reservation leave no slot or VA "
    "behind") {
  SweepKind({"OnlyAddress", true,
             [](HsaMemFlags& f) {
               f.ui32.NonPaged = 1;
               f.ui32.OnlyAddress = 1;
             },
             false, false});
}

TEST_CASE(
    "fault sweep: scratch AllocMemory, Map (backing BO), Unmap and FreeMemory leave no slot, VA or "
    "backing behind") {
  SweepKind({"scratch + map", true, [](HsaMemFlags& f) { f.ui32.Scratch = 1; }, false, true});
}

TEST_CASE(
    "fault sweep: scratch slices mapped at offsets and unmapped one by one leave no backing BO "
    "behind") {
  sweep::Scenario s;
  s.name = "scratch slices";
  s.make = [] { return std::make_unique<ScratchSlices>(); };
  sweep::Report(s, sweep::Sweep(s));
}

TEST_CASE(
    "fault sweep: AllocMemory/FreeMemory of AQL queue memory (double VA) leave no slot, VA, "
    "mapping or BO behind") {
  SweepKind({"AQL", true,
             [](HsaMemFlags& f) {
               f.ui32.NonPaged = 1;
               f.ui32.HostAccess = 1;
               f.ui32.AQLQueueMemory = 1;
             },
             true, false});
}

TEST_CASE(
    "fault sweep: in reserved-SVM mode AllocMemory/FreeMemory of host-accessible VRAM return the "
    "arena range and leave no BO behind") {
  SweepKind({"VRAM host access (reserved SVM)", true,
             [](HsaMemFlags& f) {
               f.ui32.NonPaged = 1;
               f.ui32.HostAccess = 1;
             },
             true, true},
            HKE_CONFIG_RESERVE_SVM);
}
