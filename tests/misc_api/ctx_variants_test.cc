// The hsaKmt*Ctx functions of hsakmtctx.h that lib/api defines, on the
// in-process simulator: a NULL or dead context is INVALID_PARAMETER before
// anything else (no kernel call, outputs untouched), for every one of
// them; on the primary context (the default context behind hsakmt.h) a
// Ctx call behaves like its plain namesake and shares its objects; and a
// Ctx call runs on the context it is given, not on the default one.
//
// The primary context is taken as reinterpret_cast<HsaKFDContext*>(
// hke_default_context()): that is what hke_context_kfd_ctx returns for it.
#include <cstdint>
#include <cstring>
#include <new>
#include <set>
#include <string>
#include <vector>

#include "doctest/doctest.h"
#include "hsakmt/hsakmtctx.h"
#include "lib/kfd/abi.h"
#include "tests/api/abi_lists.h"
#include "tests/misc_api/support.h"

using hketest::SimBoard;
using misctest::Count;
using misctest::Join;
using misctest::Poisoned;

namespace {

HsaKFDContext* Primary() { return reinterpret_cast<HsaKFDContext*>(hke_default_context()); }

// One call of each Ctx function on context `c`. `p` is passed for every
// pointer argument (inputs and outputs alike), zero or the first valid
// enumerator for every value argument.
struct CtxCall {
  const char* name;
  HSAKMT_STATUS (*call)(HsaKFDContext* c, void* p);
};

template <typename T>
T* As(void* p) {
  return static_cast<T*>(p);
}

HsaMemFlags NoMemFlags() {
  HsaMemFlags f;
  f.Value = 0;
  return f;
}
HsaMemMapFlags NoMapFlags() {
  HsaMemMapFlags f;
  f.Value = 0;
  return f;
}
HSA_REGISTER_MEM_FLAGS NoRegisterFlags() {
  HSA_REGISTER_MEM_FLAGS f;
  f.Value = 0;
  return f;
}

constexpr HSA_QUEUE_PRIORITY kPrio = HSA_QUEUE_PRIORITY_NORMAL;

// The Ctx functions that take no context to run on (they open one, or
// close the primary): tests/contexts checks them.
const char* const kNoContextArgument[] = {"hsaKmtOpenKFDCtx", "hsaKmtCloseKFDCtx",
                                          "hsaKmtOpenSecondaryKFDCtx"};

const CtxCall kCtxCalls[] = {
    {"hsaKmtCloseSecondaryKFDCtx",
     [](HsaKFDContext* c, void*) { return hsaKmtCloseSecondaryKFDCtx(c); }},
    // Topology
    {"hsaKmtAcquireSystemPropertiesCtx",
     [](HsaKFDContext* c, void* p) {
       return hsaKmtAcquireSystemPropertiesCtx(c, As<HsaSystemProperties>(p));
     }},
    {"hsaKmtReleaseSystemPropertiesCtx",
     [](HsaKFDContext* c, void*) { return hsaKmtReleaseSystemPropertiesCtx(c); }},
    {"hsaKmtGetNodePropertiesCtx",
     [](HsaKFDContext* c, void* p) {
       return hsaKmtGetNodePropertiesCtx(c, 0, As<HsaNodeProperties>(p));
     }},
    {"hsaKmtGetNodeMemoryPropertiesCtx",
     [](HsaKFDContext* c, void* p) {
       return hsaKmtGetNodeMemoryPropertiesCtx(c, 0, 1, As<HsaMemoryProperties>(p));
     }},
    {"hsaKmtGetNodeCachePropertiesCtx",
     [](HsaKFDContext* c, void* p) {
       return hsaKmtGetNodeCachePropertiesCtx(c, 0, 0, 1, As<HsaCacheProperties>(p));
     }},
    {"hsaKmtGetNodeIoLinkPropertiesCtx",
     [](HsaKFDContext* c, void* p) {
       return hsaKmtGetNodeIoLinkPropertiesCtx(c, 0, 1, As<HsaIoLinkProperties>(p));
     }},
    // Events
    {"hsaKmtCreateEventCtx",
     [](HsaKFDContext* c, void* p) {
       return hsaKmtCreateEventCtx(c, As<HsaEventDescriptor>(p), false, false, As<HsaEvent*>(p));
     }},
    {"hsaKmtDestroyEventCtx",
     [](HsaKFDContext* c, void* p) { return hsaKmtDestroyEventCtx(c, As<HsaEvent>(p)); }},
    {"hsaKmtSetEventCtx",
     [](HsaKFDContext* c, void* p) { return hsaKmtSetEventCtx(c, As<HsaEvent>(p)); }},
    {"hsaKmtResetEventCtx",
     [](HsaKFDContext* c, void* p) { return hsaKmtResetEventCtx(c, As<HsaEvent>(p)); }},
    {"hsaKmtQueryEventStateCtx",
     [](HsaKFDContext* c, void* p) { return hsaKmtQueryEventStateCtx(c, As<HsaEvent>(p)); }},
    {"hsaKmtWaitOnEventCtx",
     [](HsaKFDContext* c, void* p) { return hsaKmtWaitOnEventCtx(c, As<HsaEvent>(p), 0); }},
    {"hsaKmtWaitOnEvent_ExtCtx",
     [](HsaKFDContext* c, void* p) {
       return hsaKmtWaitOnEvent_ExtCtx(c, As<HsaEvent>(p), 0, As<uint64_t>(p));
     }},
    {"hsaKmtWaitOnMultipleEventsCtx",
     [](HsaKFDContext* c, void* p) {
       return hsaKmtWaitOnMultipleEventsCtx(c, As<HsaEvent*>(p), 1, true, 0);
     }},
    {"hsaKmtWaitOnMultipleEvents_ExtCtx",
     [](HsaKFDContext* c, void* p) {
       return hsaKmtWaitOnMultipleEvents_ExtCtx(c, As<HsaEvent*>(p), 1, true, 0, As<uint64_t>(p));
     }},
    {"hsaKmtOpenSMICtx",
     [](HsaKFDContext* c, void* p) { return hsaKmtOpenSMICtx(c, 0, As<int>(p)); }},
    // Queues
    {"hsaKmtCreateQueueCtx",
     [](HsaKFDContext* c, void* p) {
       return hsaKmtCreateQueueCtx(c, 0, HSA_QUEUE_SDMA, 100, kPrio, p, 4096, As<HsaEvent>(p),
                                   As<HsaQueueResource>(p));
     }},
    {"hsaKmtCreateQueueExtCtx",
     [](HsaKFDContext* c, void* p) {
       return hsaKmtCreateQueueExtCtx(c, 0, HSA_QUEUE_SDMA, 100, kPrio, 0, p, 4096,
                                      As<HsaEvent>(p), As<HsaQueueResource>(p));
     }},
    {"hsaKmtUpdateQueueCtx",
     [](HsaKFDContext* c, void* p) {
       return hsaKmtUpdateQueueCtx(c, 0, 100, kPrio, p, 4096, As<HsaEvent>(p));
     }},
    {"hsaKmtDestroyQueueCtx", [](HsaKFDContext* c, void*) { return hsaKmtDestroyQueueCtx(c, 0); }},
    {"hsaKmtSetQueueCUMaskCtx",
     [](HsaKFDContext* c, void* p) { return hsaKmtSetQueueCUMaskCtx(c, 0, 32, As<HSAuint32>(p)); }},
    {"hsaKmtGetQueueInfoCtx",
     [](HsaKFDContext* c, void* p) { return hsaKmtGetQueueInfoCtx(c, 0, As<HsaQueueInfo>(p)); }},
    {"hsaKmtAllocQueueGWSCtx",
     [](HsaKFDContext* c, void* p) { return hsaKmtAllocQueueGWSCtx(c, 0, 1, As<HSAuint32>(p)); }},
    // Memory
    {"hsaKmtSetMemoryPolicyCtx",
     [](HsaKFDContext* c, void* p) { return hsaKmtSetMemoryPolicyCtx(c, 0, 0, 0, p, 4096); }},
    {"hsaKmtAllocMemoryCtx",
     [](HsaKFDContext* c, void* p) {
       return hsaKmtAllocMemoryCtx(c, 0, 4096, NoMemFlags(), As<void*>(p));
     }},
    {"hsaKmtAllocMemoryAlignCtx",
     [](HsaKFDContext* c, void* p) {
       return hsaKmtAllocMemoryAlignCtx(c, 0, 4096, 4096, NoMemFlags(), As<void*>(p));
     }},
    {"hsaKmtFreeMemoryCtx",
     [](HsaKFDContext* c, void* p) { return hsaKmtFreeMemoryCtx(c, p, 4096); }},
    {"hsaKmtAvailableMemoryCtx",
     [](HsaKFDContext* c, void* p) { return hsaKmtAvailableMemoryCtx(c, 0, As<HSAuint64>(p)); }},
    {"hsaKmtRegisterMemoryCtx",
     [](HsaKFDContext* c, void* p) { return hsaKmtRegisterMemoryCtx(c, p, 4096); }},
    {"hsaKmtRegisterMemoryToNodesCtx",
     [](HsaKFDContext* c, void* p) {
       return hsaKmtRegisterMemoryToNodesCtx(c, p, 4096, 1, As<HSAuint32>(p));
     }},
    {"hsaKmtRegisterMemoryWithFlagsCtx",
     [](HsaKFDContext* c, void* p) {
       return hsaKmtRegisterMemoryWithFlagsCtx(c, p, 4096, NoMemFlags());
     }},
    {"hsaKmtRegisterGraphicsHandleToNodesCtx",
     [](HsaKFDContext* c, void* p) {
       return hsaKmtRegisterGraphicsHandleToNodesCtx(c, 0, As<HsaGraphicsResourceInfo>(p), 1,
                                                     As<HSAuint32>(p));
     }},
    {"hsaKmtRegisterGraphicsHandleToNodesExtCtx",
     [](HsaKFDContext* c, void* p) {
       return hsaKmtRegisterGraphicsHandleToNodesExtCtx(c, 0, As<HsaGraphicsResourceInfo>(p), 1,
                                                        As<HSAuint32>(p), NoRegisterFlags());
     }},
    {"hsaKmtExportDMABufHandleCtx",
     [](HsaKFDContext* c, void* p) {
       return hsaKmtExportDMABufHandleCtx(c, p, 4096, As<int>(p), As<HSAuint64>(p));
     }},
    {"hsaKmtShareMemoryCtx",
     [](HsaKFDContext* c, void* p) {
       return hsaKmtShareMemoryCtx(c, p, 4096, As<HsaSharedMemoryHandle>(p));
     }},
    {"hsaKmtRegisterSharedHandleCtx",
     [](HsaKFDContext* c, void* p) {
       return hsaKmtRegisterSharedHandleCtx(c, As<const HsaSharedMemoryHandle>(p), As<void*>(p),
                                            As<HSAuint64>(p));
     }},
    {"hsaKmtRegisterSharedHandleToNodesCtx",
     [](HsaKFDContext* c, void* p) {
       return hsaKmtRegisterSharedHandleToNodesCtx(c, As<const HsaSharedMemoryHandle>(p),
                                                   As<void*>(p), As<HSAuint64>(p), 1,
                                                   As<HSAuint32>(p));
     }},
    {"hsaKmtDeregisterMemoryCtx",
     [](HsaKFDContext* c, void* p) { return hsaKmtDeregisterMemoryCtx(c, p); }},
    {"hsaKmtMapMemoryToGPUCtx",
     [](HsaKFDContext* c, void* p) {
       return hsaKmtMapMemoryToGPUCtx(c, p, 4096, As<HSAuint64>(p));
     }},
    {"hsaKmtMapMemoryToGPUNodesCtx",
     [](HsaKFDContext* c, void* p) {
       return hsaKmtMapMemoryToGPUNodesCtx(c, p, 4096, As<HSAuint64>(p), NoMapFlags(), 1,
                                           As<HSAuint32>(p));
     }},
    {"hsaKmtUnmapMemoryToGPUCtx",
     [](HsaKFDContext* c, void* p) { return hsaKmtUnmapMemoryToGPUCtx(c, p); }},
    {"hsaKmtUnmapGraphicHandleCtx",
     [](HsaKFDContext* c, void* p) {
       return hsaKmtUnmapGraphicHandleCtx(c, 0, static_cast<HSAuint64>(reinterpret_cast<uintptr_t>(p)), 4096);
     }},
    {"hsaKmtQueryPointerInfoCtx",
     [](HsaKFDContext* c, void* p) {
       return hsaKmtQueryPointerInfoCtx(c, p, As<HsaPointerInfo>(p));
     }},
    {"hsaKmtSetMemoryUserDataCtx",
     [](HsaKFDContext* c, void* p) { return hsaKmtSetMemoryUserDataCtx(c, p, p); }},
    {"hsaKmtSVMSetAttrCtx",
     [](HsaKFDContext* c, void* p) {
       return hsaKmtSVMSetAttrCtx(c, p, 4096, 1, As<HSA_SVM_ATTRIBUTE>(p));
     }},
    {"hsaKmtSVMGetAttrCtx",
     [](HsaKFDContext* c, void* p) {
       return hsaKmtSVMGetAttrCtx(c, p, 4096, 1, As<HSA_SVM_ATTRIBUTE>(p));
     }},
    {"hsaKmtSetXNACKModeCtx", [](HsaKFDContext* c, void*) { return hsaKmtSetXNACKModeCtx(c, 0); }},
    {"hsaKmtGetXNACKModeCtx",
     [](HsaKFDContext* c, void* p) { return hsaKmtGetXNACKModeCtx(c, As<HSAint32>(p)); }},
    {"hsaKmtReplaceAsanHeaderPageCtx",
     [](HsaKFDContext* c, void* p) { return hsaKmtReplaceAsanHeaderPageCtx(c, p); }},
    {"hsaKmtReturnAsanHeaderPageCtx",
     [](HsaKFDContext* c, void* p) { return hsaKmtReturnAsanHeaderPageCtx(c, p); }},
    // Devices, clocks, trap handler
    {"hsaKmtGetAMDGPUDeviceHandleCtx",
     [](HsaKFDContext* c, void* p) {
       return hsaKmtGetAMDGPUDeviceHandleCtx(c, 0, As<HsaAMDGPUDeviceHandle>(p));
     }},
    {"hsaKmtSetTrapHandlerCtx",
     [](HsaKFDContext* c, void* p) { return hsaKmtSetTrapHandlerCtx(c, 0, p, 4096, p, 4096); }},
    {"hsaKmtGetTileConfigCtx",
     [](HsaKFDContext* c, void* p) { return hsaKmtGetTileConfigCtx(c, 0, As<HsaGpuTileConfig>(p)); }},
    {"hsaKmtGetClockCountersCtx",
     [](HsaKFDContext* c, void* p) {
       return hsaKmtGetClockCountersCtx(c, 0, As<HsaClockCounters>(p));
     }},
    // Debugger
    {"hsaKmtRuntimeEnableCtx",
     [](HsaKFDContext* c, void* p) { return hsaKmtRuntimeEnableCtx(c, p, false); }},
    {"hsaKmtRuntimeDisableCtx", [](HsaKFDContext* c, void*) { return hsaKmtRuntimeDisableCtx(c); }},
    {"hsaKmtGetRuntimeCapabilitiesCtx",
     [](HsaKFDContext* c, void* p) { return hsaKmtGetRuntimeCapabilitiesCtx(c, As<HSAuint32>(p)); }},
    {"hsaKmtDbgEnableCtx",
     [](HsaKFDContext* c, void* p) { return hsaKmtDbgEnableCtx(c, As<void*>(p), As<HSAuint32>(p)); }},
    {"hsaKmtDbgDisableCtx", [](HsaKFDContext* c, void*) { return hsaKmtDbgDisableCtx(c); }},
    {"hsaKmtDbgGetDeviceDataCtx",
     [](HsaKFDContext* c, void* p) {
       return hsaKmtDbgGetDeviceDataCtx(c, As<void*>(p), As<HSAuint32>(p), As<HSAuint32>(p));
     }},
    {"hsaKmtDbgGetQueueDataCtx",
     [](HsaKFDContext* c, void* p) {
       return hsaKmtDbgGetQueueDataCtx(c, As<void*>(p), As<HSAuint32>(p), As<HSAuint32>(p), false);
     }},
    {"hsaKmtCheckRuntimeDebugSupportCtx",
     [](HsaKFDContext* c, void*) { return hsaKmtCheckRuntimeDebugSupportCtx(c); }},
    {"hsaKmtDebugTrapIoctlCtx",
     [](HsaKFDContext* c, void* p) {
       return hsaKmtDebugTrapIoctlCtx(c, As<kfd_ioctl_dbg_trap_args>(p), As<HSA_QUEUEID>(p),
                                      As<HSAuint64>(p));
     }},
    // Performance counters
    {"hsaKmtPmcGetCounterPropertiesCtx",
     [](HsaKFDContext* c, void* p) {
       return hsaKmtPmcGetCounterPropertiesCtx(c, 2, As<HsaCounterProperties*>(p));
     }},
    {"hsaKmtPmcRegisterTraceCtx",
     [](HsaKFDContext* c, void* p) {
       return hsaKmtPmcRegisterTraceCtx(c, 2, 1, As<HsaCounter>(p), As<HsaPmcTraceRoot>(p));
     }},
    {"hsaKmtPmcUnregisterTraceCtx",
     [](HsaKFDContext* c, void*) { return hsaKmtPmcUnregisterTraceCtx(c, 2, 1); }},
    {"hsaKmtPmcAcquireTraceAccessCtx",
     [](HsaKFDContext* c, void*) { return hsaKmtPmcAcquireTraceAccessCtx(c, 2, 1); }},
    {"hsaKmtPmcReleaseTraceAccessCtx",
     [](HsaKFDContext* c, void*) { return hsaKmtPmcReleaseTraceAccessCtx(c, 2, 1); }},
};

// A buffer larger than any argument the calls above pass through `p`,
// filled with a byte pattern.
struct Scratch {
  Scratch() { std::memset(bytes, 0xA5, sizeof(bytes)); }
  bool untouched() const {
    for (unsigned char b : bytes) {
      if (b != 0xA5) return false;
    }
    return true;
  }
  alignas(64) unsigned char bytes[4096];
};

// A caller-owned context in heap storage; Deinit() leaves the storage in
// place, as a dead context a caller might still pass.
class OwnedContext {
 public:
  explicit OwnedContext(const hke_platform& platform)
      : storage_(::operator new(hke_context_storage_size(),
                                std::align_val_t(hke_context_storage_align()))) {
    hke_config c{};
    c.struct_size = sizeof(c);
    c.platform = platform;
    REQUIRE(hke_context_init(storage_, hke_context_storage_size(), &c, &ctx_) == HKE_OK);
  }
  ~OwnedContext() {
    Deinit();
    ::operator delete(storage_, std::align_val_t(hke_context_storage_align()));
  }
  OwnedContext(const OwnedContext&) = delete;
  OwnedContext& operator=(const OwnedContext&) = delete;

  HsaKFDContext* kfd() { return reinterpret_cast<HsaKFDContext*>(ctx_); }
  void Deinit() { hke_context_deinit(ctx_); }

 private:
  void* storage_;
  hke_context* ctx_ = nullptr;
};

// GTT host memory of `size` bytes mapped to `node` (plain calls).
void* Gtt(uint32_t node, HSAuint64 size) {
  HsaMemFlags f = NoMemFlags();
  f.ui32.HostAccess = 1;
  f.ui32.NonPaged = 1;
  void* p = nullptr;
  REQUIRE(hsaKmtAllocMemory(0, size, f, &p) == HSAKMT_STATUS_SUCCESS);
  HSAuint32 n = node;
  REQUIRE(hsaKmtMapMemoryToGPUNodes(p, size, nullptr, NoMapFlags(), 1, &n) ==
          HSAKMT_STATUS_SUCCESS);
  return p;
}

HsaEventDescriptor SignalDesc(uint32_t node) {
  HsaEventDescriptor d{};
  d.EventType = HSA_EVENTTYPE_SIGNAL;
  d.NodeId = node;
  return d;
}

}  // namespace

TEST_CASE("the NULL-context table covers every hsaKmt*Ctx function this branch defines, once") {
  std::set<std::string> listed;
  for (const CtxCall& c : kCtxCalls) {
    CHECK_MESSAGE(listed.insert(c.name).second, c.name << " is in kCtxCalls twice");
  }
  std::set<std::string> defined;
#define HKE_NAME(name) defined.insert(#name);
  HKE_CTX_FUNCTIONS(HKE_NAME)
#undef HKE_NAME
  for (const char* n : kNoContextArgument) CHECK(defined.erase(n) == 1);
  for (const std::string& n : defined) {
    CHECK_MESSAGE(listed.count(n) == 1, n << " is defined but has no NULL-context call here");
  }
  CHECK(listed == defined);
}

TEST_CASE(
    "every Ctx function on a NULL context is INVALID_PARAMETER before anything else: no kernel "
    "call, no diagnostic, every output byte untouched") {
  SimBoard b(nullptr, "datacenter-4gpu");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  HsaSystemProperties sys{};
  REQUIRE(hsaKmtAcquireSystemProperties(&sys) == HSAKMT_STATUS_SUCCESS);
  b.ClearTrace();
  const size_t diags = b.Diags().size();
  for (const CtxCall& c : kCtxCalls) {
    CAPTURE(c.name);
    Scratch s;
    CHECK(c.call(nullptr, s.bytes) == HSAKMT_STATUS_INVALID_PARAMETER);
    CHECK(s.untouched());
    // NULL for every pointer as well: still the context's status first.
    CHECK(c.call(nullptr, nullptr) == HSAKMT_STATUS_INVALID_PARAMETER);
  }
  INFO(Join(b.Ioctls()));
  CHECK(b.Ioctls().empty());
  CHECK(b.Diags().size() == diags);
  // The default context was not disturbed: its snapshot is still acquired.
  HsaSystemProperties again{};
  CHECK(hsaKmtAcquireSystemProperties(&again) == HSAKMT_STATUS_SUCCESS);
  CHECK(again.NumNodes == sys.NumNodes);
  CHECK(b.Ioctls().empty());
}

TEST_CASE(
    "every Ctx function on a deinitialised (dead) context is INVALID_PARAMETER, with outputs "
    "untouched") {
  SimBoard b(nullptr, "datacenter-4gpu");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  OwnedContext owned(hke_sim_platform(b.sim()));
  owned.Deinit();
  b.ClearTrace();
  for (const CtxCall& c : kCtxCalls) {
    CAPTURE(c.name);
    Scratch s;
    CHECK(c.call(owned.kfd(), s.bytes) == HSAKMT_STATUS_INVALID_PARAMETER);
    CHECK(s.untouched());
  }
  CHECK(b.Ioctls().empty());
}

TEST_CASE(
    "a Ctx call runs on the context it is given: a live caller-owned context that is not open "
    "answers KERNEL_IO_CHANNEL_NOT_OPENED while the default one is open") {
  SimBoard b(nullptr, "datacenter-4gpu");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  OwnedContext owned(hke_sim_platform(b.sim()));
  b.ClearTrace();
  Poisoned<HsaSystemProperties> sys;
  CHECK(hsaKmtAcquireSystemPropertiesCtx(owned.kfd(), &sys.v) ==
        HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED);
  CHECK(sys.untouched());
  Poisoned<HsaClockCounters> clocks;
  CHECK(hsaKmtGetClockCountersCtx(owned.kfd(), 0, &clocks.v) ==
        HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED);
  CHECK(clocks.untouched());
  Poisoned<void*> mem;
  CHECK(hsaKmtAllocMemoryCtx(owned.kfd(), 0, 4096, NoMemFlags(), &mem.v) ==
        HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED);
  CHECK(mem.untouched());
  CHECK(b.Ioctls().empty());
  // The same calls on the primary succeed.
  HsaSystemProperties ok{};
  CHECK(hsaKmtAcquireSystemPropertiesCtx(Primary(), &ok) == HSAKMT_STATUS_SUCCESS);
  CHECK(ok.NumNodes > 0);
}

TEST_CASE(
    "on a live context a Ctx call keeps its plain namesake's argument checks: NULL outputs are "
    "INVALID_PARAMETER, a closed device KERNEL_IO_CHANNEL_NOT_OPENED") {
  SimBoard b(nullptr, "datacenter-4gpu");
  // Closed: the plain call's answer, after the context check passed.
  Poisoned<HsaSystemProperties> sys;
  CHECK(hsaKmtAcquireSystemPropertiesCtx(Primary(), &sys.v) ==
        HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED);
  CHECK(sys.untouched());
  CHECK(hsaKmtAcquireSystemProperties(&sys.v) == HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED);
  // A NULL output before the open check, as the plain call.
  CHECK(hsaKmtGetClockCountersCtx(Primary(), 0, nullptr) == HSAKMT_STATUS_INVALID_PARAMETER);
  CHECK(hsaKmtGetClockCounters(0, nullptr) == HSAKMT_STATUS_INVALID_PARAMETER);
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtGetXNACKModeCtx(Primary(), nullptr) == HSAKMT_STATUS_INVALID_PARAMETER);
  HsaEvent* e = nullptr;
  CHECK(hsaKmtCreateEventCtx(Primary(), nullptr, false, false, &e) ==
        HSAKMT_STATUS_INVALID_PARAMETER);
  CHECK(e == nullptr);
  // SDMA_BY_ENG_ID through CreateQueue is ERROR, before the ring is looked at.
  HsaQueueResource q{};
  CHECK(hsaKmtCreateQueueCtx(Primary(), 0, HSA_QUEUE_SDMA_BY_ENG_ID, 100, kPrio, nullptr, 0,
                             nullptr, &q) == HSAKMT_STATUS_ERROR);
}

TEST_CASE(
    "AcquireSystemPropertiesCtx and the node getters on the primary give the plain calls' "
    "answers field for field") {
  SimBoard b(nullptr, "datacenter-4gpu");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  HsaSystemProperties plain{}, ctx{};
  REQUIRE(hsaKmtAcquireSystemProperties(&plain) == HSAKMT_STATUS_SUCCESS);
  REQUIRE(hsaKmtAcquireSystemPropertiesCtx(Primary(), &ctx) == HSAKMT_STATUS_SUCCESS);
  CHECK(ctx.NumNodes == plain.NumNodes);
  CHECK(ctx.NumNodes > 1);
  CHECK(std::memcmp(&ctx, &plain, sizeof(ctx)) == 0);
  for (uint32_t n = 0; n < plain.NumNodes; ++n) {
    CAPTURE(n);
    HsaNodeProperties pn{}, cn{};
    REQUIRE(hsaKmtGetNodeProperties(n, &pn) == HSAKMT_STATUS_SUCCESS);
    REQUIRE(hsaKmtGetNodePropertiesCtx(Primary(), n, &cn) == HSAKMT_STATUS_SUCCESS);
    CHECK(std::memcmp(&pn, &cn, sizeof(pn)) == 0);
    std::vector<HsaMemoryProperties> pm(pn.NumMemoryBanks), cm(pn.NumMemoryBanks);
    REQUIRE(hsaKmtGetNodeMemoryProperties(n, pn.NumMemoryBanks, pm.data()) ==
            HSAKMT_STATUS_SUCCESS);
    REQUIRE(hsaKmtGetNodeMemoryPropertiesCtx(Primary(), n, pn.NumMemoryBanks, cm.data()) ==
            HSAKMT_STATUS_SUCCESS);
    CHECK(std::memcmp(pm.data(), cm.data(), pm.size() * sizeof(pm[0])) == 0);
  }
  // Out of range through Ctx: the plain call's status.
  HsaNodeProperties none{};
  CHECK(hsaKmtGetNodePropertiesCtx(Primary(), plain.NumNodes, &none) ==
        HSAKMT_STATUS_INVALID_NODE_UNIT);
  // ReleaseSystemPropertiesCtx drops the primary's snapshot for the plain getters too.
  REQUIRE(hsaKmtReleaseSystemPropertiesCtx(Primary()) == HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtGetNodeProperties(0, &none) == HSAKMT_STATUS_INVALID_NODE_UNIT);
}

TEST_CASE(
    "AllocMemoryCtx on the primary makes an allocation the plain QueryPointerInfo sees, and "
    "FreeMemoryCtx frees it") {
  SimBoard b(nullptr, "datacenter-4gpu");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  const uint32_t gpu = hketest::FirstGpuNode();
  const hke_memory_stats before = b.Stats();
  HsaMemFlags f = NoMemFlags();
  f.ui32.HostAccess = 1;
  f.ui32.NonPaged = 1;
  void* p = nullptr;
  REQUIRE(hsaKmtAllocMemoryCtx(Primary(), 0, 8192, f, &p) == HSAKMT_STATUS_SUCCESS);
  REQUIRE(p != nullptr);
  CHECK(b.Stats().live_objects == before.live_objects + 1);
  HsaPointerInfo info{};
  REQUIRE(hsaKmtQueryPointerInfo(p, &info) == HSAKMT_STATUS_SUCCESS);
  CHECK(info.Type == HSA_POINTER_ALLOCATED);
  CHECK(info.CPUAddress == p);
  CHECK(info.SizeInBytes == 8192);
  HsaPointerInfo via_ctx{};
  REQUIRE(hsaKmtQueryPointerInfoCtx(Primary(), p, &via_ctx) == HSAKMT_STATUS_SUCCESS);
  CHECK(std::memcmp(&via_ctx, &info, sizeof(info)) == 0);
  // Map and unmap through Ctx; the plain query sees the mapping.
  HSAuint32 node = gpu;
  REQUIRE(hsaKmtMapMemoryToGPUNodesCtx(Primary(), p, 8192, nullptr, NoMapFlags(), 1, &node) ==
          HSAKMT_STATUS_SUCCESS);
  REQUIRE(hsaKmtQueryPointerInfo(p, &info) == HSAKMT_STATUS_SUCCESS);
  CHECK(info.NMappedNodes == 1);
  REQUIRE(hsaKmtUnmapMemoryToGPUCtx(Primary(), p) == HSAKMT_STATUS_SUCCESS);
  REQUIRE(hsaKmtFreeMemoryCtx(Primary(), p, 8192) == HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtQueryPointerInfo(p, &info) == HSAKMT_STATUS_ERROR);
  CHECK(info.Type == HSA_POINTER_UNKNOWN);
  CHECK(b.Stats().live_objects == before.live_objects);
  // An unknown address through Ctx: the plain call's answer.
  CHECK(hsaKmtFreeMemoryCtx(Primary(), p, 8192) == hsaKmtFreeMemory(p, 8192));
}

TEST_CASE(
    "CreateEventCtx, SetEventCtx and WaitOnEventCtx on the primary round-trip a signal event "
    "the plain calls also accept") {
  SimBoard b(nullptr, "datacenter-4gpu");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  const uint32_t gpu = hketest::FirstGpuNode();
  HsaEventDescriptor d = SignalDesc(gpu);
  HsaEvent* e = nullptr;
  REQUIRE(hsaKmtCreateEventCtx(Primary(), &d, false, false, &e) == HSAKMT_STATUS_SUCCESS);
  REQUIRE(e != nullptr);
  CHECK(hsaKmtWaitOnEventCtx(Primary(), e, 0) == HSAKMT_STATUS_WAIT_TIMEOUT);
  b.ClearTrace();
  REQUIRE(hsaKmtSetEventCtx(Primary(), e) == HSAKMT_STATUS_SUCCESS);
  CHECK(Count(b.Ioctls(), "SET_EVENT") == 1);
  uint64_t age = 0;
  CHECK(hsaKmtWaitOnEvent_ExtCtx(Primary(), e, 1000, &age) == HSAKMT_STATUS_SUCCESS);
  // Auto-reset: the wait consumed it, for the plain call as well.
  CHECK(hsaKmtWaitOnEvent(e, 0) == HSAKMT_STATUS_WAIT_TIMEOUT);
  // The plain Set, then the Ctx multi-wait.
  REQUIRE(hsaKmtSetEvent(e) == HSAKMT_STATUS_SUCCESS);
  HsaEvent* list[1] = {e};
  CHECK(hsaKmtWaitOnMultipleEventsCtx(Primary(), list, 1, true, 1000) == HSAKMT_STATUS_SUCCESS);
  REQUIRE(hsaKmtResetEventCtx(Primary(), e) == HSAKMT_STATUS_SUCCESS);
  REQUIRE(hsaKmtDestroyEventCtx(Primary(), e) == HSAKMT_STATUS_SUCCESS);
  // Destroyed: stale for both.
  CHECK(hsaKmtSetEventCtx(Primary(), e) == HSAKMT_STATUS_INVALID_HANDLE);
  CHECK(hsaKmtSetEvent(e) == HSAKMT_STATUS_INVALID_HANDLE);
}

TEST_CASE(
    "CreateQueueCtx and DestroyQueueCtx on the primary create and destroy an SDMA queue the "
    "plain calls see") {
  SimBoard b(nullptr, "datacenter-4gpu");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  const uint32_t gpu = hketest::FirstGpuNode();
  void* ring = Gtt(gpu, 4096);
  HsaQueueResource q{};
  b.ClearTrace();
  REQUIRE(hsaKmtCreateQueueCtx(Primary(), gpu, HSA_QUEUE_SDMA, 100, kPrio, ring, 4096, nullptr,
                               &q) == HSAKMT_STATUS_SUCCESS);
  CHECK(Count(b.Ioctls(), "CREATE_QUEUE") == 1);
  CHECK(q.QueueId != 0);
  CHECK(q.QueueDoorBell != 0);
  // The plain calls know the queue: an SDMA queue has no context save area.
  HsaQueueInfo info{};
  CHECK(hsaKmtGetQueueInfo(q.QueueId, &info) == HSAKMT_STATUS_NOT_SUPPORTED);
  CHECK(hsaKmtUpdateQueueCtx(Primary(), q.QueueId, 100, kPrio, ring, 4096, nullptr) ==
        HSAKMT_STATUS_SUCCESS);
  b.ClearTrace();
  REQUIRE(hsaKmtDestroyQueueCtx(Primary(), q.QueueId) == HSAKMT_STATUS_SUCCESS);
  CHECK(Count(b.Ioctls(), "DESTROY_QUEUE") == 1);
  // Gone for both.
  CHECK(hsaKmtDestroyQueue(q.QueueId) == HSAKMT_STATUS_INVALID_HANDLE);
  CHECK(hsaKmtDestroyQueueCtx(Primary(), q.QueueId) == HSAKMT_STATUS_INVALID_HANDLE);
  REQUIRE(hsaKmtUnmapMemoryToGPU(ring) == HSAKMT_STATUS_SUCCESS);
  REQUIRE(hsaKmtFreeMemory(ring, 4096) == HSAKMT_STATUS_SUCCESS);
}

TEST_CASE(
    "GetClockCountersCtx on the primary samples a GPU node as the plain call does, and "
    "GetXNACKModeCtx reports the plain call's mode") {
  SimBoard b(nullptr, "datacenter-4gpu");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  const uint32_t gpu = hketest::FirstGpuNode();
  b.ClearTrace();
  HsaClockCounters c{};
  REQUIRE(hsaKmtGetClockCountersCtx(Primary(), gpu, &c) == HSAKMT_STATUS_SUCCESS);
  CHECK(Count(b.Ioctls(), "GET_CLOCK_COUNTERS") == 4);
  for (const auto& a : b.Args("GET_CLOCK_COUNTERS")) {
    CHECK(SimBoard::As<hke::kfd::GetClockCountersArgs>(a).gpu_id == misctest::GpuId(gpu));
  }
  CHECK(c.SystemClockFrequencyHz == 1000000000ull);
  CHECK(c.GPUClockCounter != 0);
  CHECK(c.GPUClockCounter == c.CPUClockCounter / 10);

  HSAint32 plain = -1, via_ctx = -2;
  REQUIRE(hsaKmtGetXNACKMode(&plain) == HSAKMT_STATUS_SUCCESS);
  REQUIRE(hsaKmtGetXNACKModeCtx(Primary(), &via_ctx) == HSAKMT_STATUS_SUCCESS);
  CHECK(via_ctx == plain);
  CHECK((plain == 0 || plain == 1));
}

TEST_CASE(
    "GetRuntimeCapabilitiesCtx and AvailableMemoryCtx on the primary give the plain calls' "
    "answers") {
  SimBoard b(nullptr, "datacenter-4gpu");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  const uint32_t gpu = hketest::FirstGpuNode();
  HSAuint32 caps_plain = 0xA5A5A5A5u, caps_ctx = 0x5A5A5A5Au;
  REQUIRE(hsaKmtGetRuntimeCapabilities(&caps_plain) == HSAKMT_STATUS_SUCCESS);
  REQUIRE(hsaKmtGetRuntimeCapabilitiesCtx(Primary(), &caps_ctx) == HSAKMT_STATUS_SUCCESS);
  CHECK(caps_ctx == caps_plain);
  HSAuint64 avail_plain = 0, avail_ctx = 0;
  REQUIRE(hsaKmtAvailableMemory(gpu, &avail_plain) == HSAKMT_STATUS_SUCCESS);
  REQUIRE(hsaKmtAvailableMemoryCtx(Primary(), gpu, &avail_ctx) == HSAKMT_STATUS_SUCCESS);
  CHECK(avail_ctx == avail_plain);
  CHECK(avail_plain > 0);
}
