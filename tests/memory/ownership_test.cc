// Buffers the library owns (the events page, a queue's page, EOP buffer and
// CWSR area, the doorbell BO, the MMIO page, scratch backing) are not the
// caller's: every call that takes an address refuses them with
// INVALID_HANDLE and a diagnostic, before any kernel call, and they keep
// working; QueryPointerInfo may still report them.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "lib/context/context.h"
#include "lib/events/events.h"
#include "lib/queues/queues.h"
#include "tests/memory/support.h"
#include "tests/queues/support.h"

using memtest::Flags;
using memtest::SimBoard;

namespace {

constexpr uint64_t kPage = 4096;

struct Owned {
  std::string name;
  char* addr;
  bool scratch;  // scratch backing: Map/Unmap of the range are the caller's to use
};

char* P(uint64_t v) { return reinterpret_cast<char*>(static_cast<uintptr_t>(v)); }

// Every address-taking call on `a`: refused with INVALID_HANDLE, a
// diagnostic naming the library, and no kernel call.
void CheckRefused(SimBoard& b, const Owned& a, uint32_t gpu) {
  INFO(a.name);
  b.ClearTrace();
  const size_t diags = b.Diags().size();
  auto refused = [&](const char* call, HSAKMT_STATUS s) {
    INFO(call << ": " << b.LastDiag());
    CHECK(s == HSAKMT_STATUS_INVALID_HANDLE);
    CHECK(b.LastDiag().find("belongs to the library") != std::string::npos);
  };
  HSAuint64 alt = 0;
  HSAuint32 node = gpu;
  refused("FreeMemory", hsaKmtFreeMemory(a.addr, kPage));
  if (!a.scratch) {
    refused("MapMemoryToGPU", hsaKmtMapMemoryToGPU(a.addr, kPage, &alt));
    refused("MapMemoryToGPUNodes",
            hsaKmtMapMemoryToGPUNodes(a.addr, kPage, &alt, HsaMemMapFlags{}, 1, &node));
    refused("UnmapMemoryToGPU", hsaKmtUnmapMemoryToGPU(a.addr));
  }
  refused("SetMemoryUserData", hsaKmtSetMemoryUserData(a.addr, &alt));
  HsaSharedMemoryHandle h;
  refused("ShareMemory", hsaKmtShareMemory(a.addr, kPage, &h));
  int fd = -1;
  HSAuint64 off = 0;
  refused("ExportDMABufHandle", hsaKmtExportDMABufHandle(a.addr, kPage, &fd, &off));
  refused("RegisterMemory", hsaKmtRegisterMemory(a.addr, kPage));
  refused("RegisterMemoryToNodes", hsaKmtRegisterMemoryToNodes(a.addr, kPage, 1, &node));
  HsaMemFlags f = Flags();
  f.ui32.HostAccess = 1;
  refused("RegisterMemoryWithFlags", hsaKmtRegisterMemoryWithFlags(a.addr, kPage, f));
  refused("DeregisterMemory", hsaKmtDeregisterMemory(a.addr));
  HSA_SVM_ATTRIBUTE attr{HSA_SVM_ATTR_ACCESS, node};
  refused("SVMSetAttr", hsaKmtSVMSetAttr(a.addr, kPage, 1, &attr));
  // A range that only overlaps the buffer.
  refused("SVMSetAttr (overlap)", hsaKmtSVMSetAttr(a.addr - kPage, 2 * kPage, 1, &attr));
  CHECK(b.Diags().size() > diags);
  CHECK(b.Ioctls().empty());
}

}  // namespace

TEST_CASE(
    "library-owned buffers are refused by every address-taking call with INVALID_HANDLE and keep "
    "working") {
  struct Mode {
    const char* board;
    uint32_t flags;
  };
  for (const Mode& mode : {Mode{"apu-embedded", 0}, Mode{"datacenter-4gpu", 0},
                           Mode{"datacenter-4gpu", HKE_CONFIG_LEGACY_USERPTR}}) {
    INFO(mode.board << " flags " << mode.flags);
    SimBoard b(nullptr, mode.board, mode.flags);
    REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
    const uint32_t gpu = hketest::FirstGpuNode();
    hke::Context& ctx = hke_default_context()->impl;

    // The events page (a dGPU's first signal event allocates it).
    HsaEventDescriptor d{};
    d.EventType = HSA_EVENTTYPE_SIGNAL;
    HsaEvent* ev = nullptr;
    REQUIRE(hsaKmtCreateEvent(&d, false, false, &ev) == HSAKMT_STATUS_SUCCESS);
    const uint64_t page_va = ctx.events().page_va;
    REQUIRE(page_va != 0);

    // A compute queue: its page, EOP buffer, CWSR area and the node's doorbell BO.
    void* ring = queuetest::Gtt(gpu, 4096);
    HsaQueueResource r{};
    REQUIRE(hsaKmtCreateQueue(gpu, HSA_QUEUE_COMPUTE, 100, HSA_QUEUE_PRIORITY_NORMAL, ring, 4096,
                              nullptr, &r) == HSAKMT_STATUS_SUCCESS);
    uint32_t slot = 0, generation = 0;
    REQUIRE(hke::queues::DecodeQueueId(r.QueueId, &slot, &generation));
    const hke::queues::QueueSlot& q = ctx.queues().slots[slot];
    REQUIRE(q.page_va == (r.QueueWptrValue & ~(kPage - 1)));
    REQUIRE(q.eop_va != 0);
    REQUIRE(q.cwsr_va != 0);
    const hke::queues::DoorbellMapping& db = ctx.queues().doorbells[q.gpu];
    REQUIRE(db.bo);

    // The MMIO page of the GPU.
    uint64_t mmio = 0;
    for (uint32_t g = 0; g < ctx.memory().num_gpus; ++g) {
      if (ctx.memory().gpus[g].node == gpu) mmio = ctx.memory().gpus[g].mmio_va;
    }
    REQUIRE(mmio != 0);

    // Scratch backing: a slice of a scratch range.
    HsaMemFlags sf = Flags();
    sf.ui32.Scratch = 1;
    void* scratch = nullptr;
    REQUIRE(hsaKmtAllocMemory(gpu, 1 << 20, sf, &scratch) == HSAKMT_STATUS_SUCCESS);
    char* slice = static_cast<char*>(scratch) + 64 * 1024;
    REQUIRE(hsaKmtMapMemoryToGPU(slice, 64 * 1024, nullptr) == HSAKMT_STATUS_SUCCESS);

    const std::vector<Owned> owned = {
        {"events page", P(page_va), false}, {"queue page", P(q.page_va), false},
        {"EOP buffer", P(q.eop_va), false}, {"CWSR area", P(q.cwsr_va), false},
        {"doorbell BO", P(db.va), false},   {"MMIO page", P(mmio), false},
        {"scratch backing", slice, true},
    };
    for (const Owned& a : owned) CheckRefused(b, a, gpu);

    // QueryPointerInfo still describes the events page and the queue's buffers.
    for (uint64_t va : {page_va, q.page_va, q.eop_va, q.cwsr_va}) {
      HsaPointerInfo info;
      CHECK(hsaKmtQueryPointerInfo(P(va), &info) == HSAKMT_STATUS_SUCCESS);
      CHECK(info.Type == HSA_POINTER_ALLOCATED);
    }

    // Everything still works, and the library releases its own buffers.
    REQUIRE(hsaKmtSetEvent(ev) == HSAKMT_STATUS_SUCCESS);
    CHECK(hsaKmtWaitOnEvent(ev, 0) == HSAKMT_STATUS_SUCCESS);
    b.ClearTrace();
    CHECK(hsaKmtDestroyQueue(r.QueueId) == HSAKMT_STATUS_SUCCESS);
    CHECK(b.Args("FREE_MEMORY_OF_GPU").size() == 3);  // page, EOP, CWSR
    CHECK(hsaKmtUnmapMemoryToGPU(slice) == HSAKMT_STATUS_SUCCESS);
    CHECK(hsaKmtFreeMemory(scratch, 1 << 20) == HSAKMT_STATUS_SUCCESS);
    CHECK(hsaKmtDestroyEvent(ev) == HSAKMT_STATUS_SUCCESS);
    CHECK(hke_memory_check(hke_default_context()) == HKE_OK);
  }
}

TEST_CASE("memory the caller allocated at the events page's neighbourhood stays the caller's") {
  // The refusal names objects, not address ranges: the caller's own
  // buffers next to library buffers are untouched by it.
  SimBoard b(nullptr, "datacenter-4gpu");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  const uint32_t gpu = hketest::FirstGpuNode();
  HsaEventDescriptor d{};
  d.EventType = HSA_EVENTTYPE_SIGNAL;
  HsaEvent* ev = nullptr;
  REQUIRE(hsaKmtCreateEvent(&d, false, false, &ev) == HSAKMT_STATUS_SUCCESS);
  HsaMemFlags f = Flags();
  f.ui32.HostAccess = 1;
  f.ui32.NonPaged = 1;
  void* mine = nullptr;
  REQUIRE(hsaKmtAllocMemory(0, 64 * 1024, f, &mine) == HSAKMT_STATUS_SUCCESS);
  HSAuint32 node = gpu;
  CHECK(hsaKmtMapMemoryToGPUNodes(mine, 64 * 1024, nullptr, HsaMemMapFlags{}, 1, &node) ==
        HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtSetMemoryUserData(mine, mine) == HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtUnmapMemoryToGPU(mine) == HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtFreeMemory(mine, 64 * 1024) == HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtDestroyEvent(ev) == HSAKMT_STATUS_SUCCESS);
}
