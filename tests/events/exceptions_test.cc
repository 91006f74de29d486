// Memory-exception and HW-exception events: the data the kernel returns
// with a completed wait reaches the caller's HsaEvent (faulting VA, the
// node of the gpu_id, reason bits), injected through the simulator.
#include <cstdint>
#include <vector>

#include "tests/events/support.h"

using evtest::Create;
using evtest::SimBoard;
namespace k = hke::kfd;

namespace {

// doctest takes operands by reference, which bit-fields cannot bind to.
unsigned Bit(unsigned v) { return v; }

struct Gpu {
  uint32_t node;
  uint32_t gpu_id;
};

std::vector<Gpu> Gpus(SimBoard& b) {
  std::vector<Gpu> out;
  for (uint32_t n = 0; n < b.num_nodes(); ++n) {
    HsaNodeProperties p{};
    REQUIRE(hsaKmtGetNodeProperties(n, &p) == HSAKMT_STATUS_SUCCESS);
    if (p.KFDGpuID != 0) out.push_back(Gpu{n, p.KFDGpuID});
  }
  REQUIRE(!out.empty());
  return out;
}

}  // namespace

TEST_CASE("a memory exception reports the faulting VA, the node of the gpu_id and the reason bits") {
  SimBoard b(nullptr, "datacenter-4gpu");
  b.Open();
  const std::vector<Gpu> gpus = Gpus(b);
  const Gpu g = gpus.back();  // not the first GPU: the node really is looked up
  HsaEvent* e = Create(false, false, HSA_EVENTTYPE_MEMORY);
  CHECK(hsaKmtWaitOnEvent(e, 0) == HSAKMT_STATUS_WAIT_TIMEOUT);
  struct Case {
    uint32_t flags;       // bit 0 not present, 1 read-only, 2 no-execute, 3 imprecise
    uint32_t error_type;  // 0 none, 1 SRAM ECC, 2 poison, 3 hang
    uint64_t va;
  };
  const Case cases[] = {
      {0x1, 0, 0x7f0000001000ull}, {0x2, 1, 0x123456789000ull}, {0xC, 2, 0x1000ull},
      {0xF, 3, 0x7ffffffff000ull},
  };
  for (const Case& c : cases) {
    CAPTURE(c.flags);
    CAPTURE(c.error_type);
    REQUIRE(kfdsim_inject_memory_exception(b.sim(), g.gpu_id, c.va, c.flags, c.error_type) == 0);
    REQUIRE(hsaKmtWaitOnEvent(e, 0) == HSAKMT_STATUS_SUCCESS);
    const HsaMemoryAccessFault& f = e->EventData.EventData.MemoryAccessFault;
    CHECK(e->EventData.EventType == HSA_EVENTTYPE_MEMORY);
    CHECK(f.NodeId == g.node);
    CHECK(f.VirtualAddress == c.va);
    CHECK(Bit(f.Failure.NotPresent) == ((c.flags >> 0) & 1u));
    CHECK(Bit(f.Failure.ReadOnly) == ((c.flags >> 1) & 1u));
    CHECK(Bit(f.Failure.NoExecute) == ((c.flags >> 2) & 1u));
    CHECK(Bit(f.Failure.Imprecise) == ((c.flags >> 3) & 1u));
    CHECK(Bit(f.Failure.ErrorType) == c.error_type);
    CHECK(Bit(f.Failure.ECC) == ((c.error_type == 1 || c.error_type == 2) ? 1u : 0u));
    CHECK(f.Flags == HSA_EVENTID_MEMORY_FATAL_PROCESS);
    // Auto-reset: the fault was consumed.
    CHECK(hsaKmtWaitOnEvent(e, 0) == HSAKMT_STATUS_WAIT_TIMEOUT);
  }
  CHECK(hsaKmtDestroyEvent(e) == HSAKMT_STATUS_SUCCESS);
}

TEST_CASE("a HW exception reports the node, reset type, cause and lost memory") {
  SimBoard b(nullptr, "datacenter-4gpu");
  b.Open();
  const std::vector<Gpu> gpus = Gpus(b);
  HsaEvent* e = Create(true, false, HSA_EVENTTYPE_HW_EXCEPTION);
  const Gpu g = gpus[1];
  REQUIRE(kfdsim_inject_hw_exception(b.sim(), g.gpu_id, k::kHwExceptionPerEngineReset,
                                     k::kHwExceptionEcc, 1) == 0);
  REQUIRE(hsaKmtWaitOnEvent(e, 0) == HSAKMT_STATUS_SUCCESS);
  const HsaHwException& h = e->EventData.EventData.HwException;
  CHECK(h.NodeId == g.node);
  CHECK(h.ResetType == k::kHwExceptionPerEngineReset);
  CHECK(h.ResetCause == HSA_EVENTID_HW_EXCEPTION_ECC);
  CHECK(h.MemoryLost == 1);
  REQUIRE(kfdsim_inject_hw_exception(b.sim(), gpus[0].gpu_id, k::kHwExceptionWholeGpuReset,
                                     k::kHwExceptionGpuHang, 0) == 0);
  REQUIRE(hsaKmtWaitOnEvent(e, 0) == HSAKMT_STATUS_SUCCESS);
  CHECK(h.NodeId == gpus[0].node);
  CHECK(h.ResetType == k::kHwExceptionWholeGpuReset);
  CHECK(h.ResetCause == HSA_EVENTID_HW_EXCEPTION_GPU_HANG);
  CHECK(h.MemoryLost == 0);
  CHECK(hsaKmtDestroyEvent(e) == HSAKMT_STATUS_SUCCESS);
}

TEST_CASE("a wait across signal and exception events fills in data only for the event that fired") {
  SimBoard b(nullptr, "datacenter-4gpu");
  b.Open();
  const std::vector<Gpu> gpus = Gpus(b);
  HsaEvent* sig = Create(true);
  HsaEvent* mem = Create(true, false, HSA_EVENTTYPE_MEMORY);
  HsaEvent* hw = Create(true, false, HSA_EVENTTYPE_HW_EXCEPTION);
  HsaEvent* ev[3] = {sig, mem, hw};
  REQUIRE(kfdsim_inject_memory_exception(b.sim(), gpus[0].gpu_id, 0x5000, 0x1, 0) == 0);
  REQUIRE(hsaKmtWaitOnMultipleEvents(ev, 3, false, 0) == HSAKMT_STATUS_SUCCESS);
  CHECK(mem->EventData.EventData.MemoryAccessFault.VirtualAddress == 0x5000);
  CHECK(mem->EventData.EventData.MemoryAccessFault.NodeId == gpus[0].node);
  CHECK(hw->EventData.EventData.HwException.NodeId == 0);  // untouched
  CHECK(hw->EventData.EventData.HwException.ResetType == 0);
  for (HsaEvent* e : ev) CHECK(hsaKmtDestroyEvent(e) == HSAKMT_STATUS_SUCCESS);
}

TEST_CASE("an APU reports memory exceptions against its integrated GPU's node") {
  SimBoard b(nullptr, "apu-embedded");
  b.Open();
  const std::vector<Gpu> gpus = Gpus(b);
  HsaEvent* e = Create(true, false, HSA_EVENTTYPE_MEMORY);
  REQUIRE(kfdsim_inject_memory_exception(b.sim(), gpus[0].gpu_id, 0xdead000, 0x2, 0) == 0);
  REQUIRE(hsaKmtWaitOnEvent(e, 0) == HSAKMT_STATUS_SUCCESS);
  CHECK(e->EventData.EventData.MemoryAccessFault.NodeId == gpus[0].node);
  CHECK(Bit(e->EventData.EventData.MemoryAccessFault.Failure.ReadOnly) == 1);
  CHECK(hsaKmtDestroyEvent(e) == HSAKMT_STATUS_SUCCESS);
}
