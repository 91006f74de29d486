// Fault sweep: hsaKmtOpenKFD / hsaKmtGetVersion / hsaKmtCloseKFD, and the
// last hsaKmtCloseKFD with live allocations of every kind.
#include "doctest/doctest.h"
#include "tests/fault_sweep/sweep.h"

namespace {

using sweep::Run;

class OpenClose : public sweep::Body {
 public:
  void Prepare(Run&) override {}
  void Act(Run& r) override {
    if (r.Step("hsaKmtOpenKFD", [] { return hsaKmtOpenKFD(); }) != HSAKMT_STATUS_SUCCESS) return;
    HsaVersionInfo v;
    r.Step("hsaKmtGetVersion", [&] { return hsaKmtGetVersion(&v); }, {{&v, sizeof(v)}});
    r.Step("hsaKmtCloseKFD", [] { return hsaKmtCloseKFD(); });
  }
};

// Every kind of object alive at the last close: the close must unmap and
// free all of them (README: memory left allocated at the last close).
class CloseWithLiveObjects : public sweep::Body {
 public:
  void Arrange(Run& r) override {
    const uint32_t gpu = r.gpu_node(0);
    auto alloc = [&](const char* what, uint32_t node, HsaMemFlags f, bool map) {
      void* p = nullptr;
      r.Require(what, hsaKmtAllocMemory(node, kSize, f, &p));
      if (map && p != nullptr)
        r.Require("hsaKmtMapMemoryToGPU", hsaKmtMapMemoryToGPU(p, kSize, nullptr));
    };
    HsaMemFlags f = sweep::Flags();
    f.ui32.NonPaged = 1;
    f.ui32.HostAccess = 1;
    alloc("hsaKmtAllocMemory (VRAM host access, mapped)", gpu, f, true);
    f = sweep::Flags();
    f.ui32.NonPaged = 1;
    alloc("hsaKmtAllocMemory (VRAM)", gpu, f, false);
    f = sweep::Flags();
    f.ui32.HostAccess = 1;
    alloc("hsaKmtAllocMemory (system paged, mapped)", r.cpu_node(), f, true);
    f = sweep::Flags();
    f.ui32.HostAccess = 1;
    f.ui32.NonPaged = 1;
    alloc("hsaKmtAllocMemory (system GTT, mapped)", r.cpu_node(), f, true);
    f = sweep::Flags();
    f.ui32.NonPaged = 1;
    f.ui32.NoAddress = 1;
    alloc("hsaKmtAllocMemory (NoAddress)", gpu, f, false);
    f = sweep::Flags();
    f.ui32.NonPaged = 1;
    f.ui32.OnlyAddress = 1;
    alloc("hsaKmtAllocMemory (OnlyAddress)", gpu, f, false);
    f = sweep::Flags();
    f.ui32.Scratch = 1;
    alloc("hsaKmtAllocMemory (scratch, mapped)", gpu, f, true);
  }
  void Act(Run& r) override {
    r.Step("hsaKmtCloseKFD", [] { return hsaKmtCloseKFD(); });
  }
  // A close the kernel refused (a FREE failed) keeps the device open and
  // everything tracked; the contract is that closing again releases it.
  void Cleanup(Run&) override {
    hke_memory_stats st{};
    st.struct_size = sizeof(st);
    if (hke_memory_stats_get(hke_default_context(), &st) == HKE_OK && st.live_objects != 0) {
      (void)hsaKmtCloseKFD();
    }
  }

 private:
  static constexpr uint64_t kSize = 64 * 1024;
};

}  // namespace

TEST_CASE(
    "fault sweep: OpenKFD/GetVersion/CloseKFD fail cleanly at every platform call and the device "
    "reopens") {
  sweep::Scenario s;
  s.name = "open";
  s.make = [] { return std::make_unique<OpenClose>(); };
  sweep::Report(s, sweep::Sweep(s));
}

TEST_CASE(
    "fault sweep: the last CloseKFD with live objects of every kind frees every BO, mapping and "
    "slot whatever fails") {
  sweep::Scenario s;
  s.name = "close with live objects";
  s.changes_vm = true;
  s.make = [] { return std::make_unique<CloseWithLiveObjects>(); };
  sweep::Report(s, sweep::Sweep(s));
}
