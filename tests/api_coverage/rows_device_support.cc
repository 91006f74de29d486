// Coverage rows: open/close/version, topology, the per-node calls and the
// fixed-status legacy calls; the documented-outcome and by-design lists.
#include <cerrno>
#include <cstring>

#include "lib/kfd/abi.h"
#include "tests/api_coverage/coverage.h"

namespace covtest {

namespace k = hke::kfd;

// ------------------------------------------------------------------------
// Documented outcomes: functions whose success path needs something the
// simulator does not model (or that no KFD ever had). Each row's success
// path asserts exactly this status; it is never NOT_IMPLEMENTED.
const Documented kDocumentedOutcomes[] = {
    {"hsaKmtGetAMDGPUDeviceHandle", HSAKMT_STATUS_NOT_SUPPORTED,
     "the handle is the platform's libdrm amdgpu_device; the simulator's platform table has no "
     "amdgpu_device op (lib/api/node.cc, README status table; tests/misc_api covers a fake port)"},
    {"hsaKmtReportQueue", HSAKMT_STATUS_NOT_SUPPORTED,
     "reserved for Trinity + Southern Islands, which the KFD never supported; upstream's other "
     "backends return NOT_SUPPORTED (lib/api/legacy.cc)"},
    {"hsaKmtReplaceAsanHeaderPage", HSAKMT_STATUS_NOT_SUPPORTED,
     "header-page swapping needs a library built for ASAN, as upstream (lib/api/memory.cc)"},
    {"hsaKmtReturnAsanHeaderPage", HSAKMT_STATUS_NOT_SUPPORTED,
     "header-page swapping needs a library built for ASAN, as upstream (lib/api/memory.cc)"},
};
const size_t kDocumentedOutcomeCount = sizeof(kDocumentedOutcomes) / sizeof(kDocumentedOutcomes[0]);

// NOT_IMPLEMENTED by design, as upstream (lib/api/legacy.cc documents why):
// the only functions that may answer it.
const char* const kNotImplementedByDesign[] = {
    "hsaKmtProcessVMRead",     // upstream: "Deprecated"; no kernel has a cross-process copy ioctl
    "hsaKmtProcessVMWrite",    // likewise
    "hsaKmtMapGraphicHandle",  // the Kaveri-only KFD side was never merged upstream
};
const size_t kNotImplementedByDesignCount =
    sizeof(kNotImplementedByDesign) / sizeof(kNotImplementedByDesign[0]);

namespace {

// A node-wide getter's error path: a node one past the topology is
// INVALID_NODE_UNIT with the output untouched and no ioctl.
template <typename T, typename Call>
Outcome BadNode(Env& e, Call call) {
  Poisoned<T> out;
  const uint32_t n = e.NumNodes();
  e.Mark();
  const HSAKMT_STATUS s = call(n, &out.v);
  return e.Expect(s, HSAKMT_STATUS_INVALID_NODE_UNIT, out.untouched() && e.Quiet(),
                  "output untouched, no ioctl");
}

// A call made before hsaKmtOpenKFD: KERNEL_IO_CHANNEL_NOT_OPENED, output untouched.
template <typename T, typename Call>
Outcome NotOpened(Env& e, Call call) {
  Poisoned<T> out;
  const HSAKMT_STATUS s = call(&out.v);
  return e.Expect(s, HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED, out.untouched(),
                  "output untouched");
}

// The fixed-status legacy calls read no argument: NULLs and garbage give the
// same status as valid arguments, and nothing is written.
Outcome ProcessVM(Env& e, bool write, bool garbage) {
  e.Open();
  HsaMemoryRange local{};
  HsaMemoryRange remote{};
  Poisoned<HSAuint64> copied;
  const HSAuint32 pid = garbage ? 0xFFFFFFFFu : 1;
  HsaMemoryRange* l = garbage ? nullptr : &local;
  HsaMemoryRange* r = garbage ? nullptr : &remote;
  e.Mark();
  const HSAKMT_STATUS s = write ? hsaKmtProcessVMWrite(pid, l, 1, r, 1, &copied.v)
                                : hsaKmtProcessVMRead(pid, l, 1, r, 1, &copied.v);
  return e.Expect(s, HSAKMT_STATUS_NOT_IMPLEMENTED, copied.untouched() && e.Quiet(),
                  "SizeCopied untouched, no ioctl");
}

Outcome MapGraphic(Env& e, bool garbage) {
  e.Open();
  Poisoned<HSAuint64> flat;
  e.Mark();
  const HSAKMT_STATUS s = garbage ? hsaKmtMapGraphicHandle(0xFFFF, 0, 0, 0, 0, &flat.v)
                                  : hsaKmtMapGraphicHandle(e.Gpu(), 1, 2, 0, 4096, &flat.v);
  return e.Expect(s, HSAKMT_STATUS_NOT_IMPLEMENTED, flat.untouched() && e.Quiet(),
                  "FlatMemoryAddress untouched, no ioctl");
}

Outcome Asan(Env& e, bool replace, void* addr) {
  e.Open();
  e.Mark();
  const HSAKMT_STATUS s =
      replace ? hsaKmtReplaceAsanHeaderPage(addr) : hsaKmtReturnAsanHeaderPage(addr);
  return e.Expect(s, HSAKMT_STATUS_NOT_SUPPORTED, e.Quiet(), "no ioctl");
}

Outcome ReportQueue(Env& e, HSA_QUEUEID q) {
  Poisoned<HsaQueueReport> rep;
  const HSAKMT_STATUS s = hsaKmtReportQueue(q, &rep.v);
  return e.Expect(s, HSAKMT_STATUS_NOT_SUPPORTED, rep.untouched(), "report untouched");
}

// The first bank / cache / link of a node, through `get`, must be filled.
template <typename T, typename Get, typename Filled>
Outcome FirstEntries(Env& e, uint32_t count, Get get, Filled filled) {
  if (count == 0) return {false, "the node reports none"};
  std::vector<T> v(count);
  const HSAKMT_STATUS s = get(count, v.data());
  return e.Ok(s, filled(v[0]), "the first entry is filled");
}

HsaNodeProperties Props(uint32_t node) {
  HsaNodeProperties p{};
  REQUIRE(hsaKmtGetNodeProperties(node, &p) == HSAKMT_STATUS_SUCCESS);
  return p;
}

}  // namespace

void AddDeviceRows(std::vector<Row>* rows) {
  const std::vector<Row> r = {
      // ------------------------------------------------ open/close/version
      {"hsaKmtOpenKFD", Kind::kReal,
       [](Env& e) {
         const HSAKMT_STATUS s = hsaKmtOpenKFD();
         return e.Ok(s, e.Saw("GET_VERSION"), "GET_VERSION handshake");
       },
       [](Env& e) {
         kfdsim_add_fault(e.sim(), k::kIocGetVersion & 0xFFFF, EIO, 1, 1);
         const HSAKMT_STATUS s = hsaKmtOpenKFD();
         HsaVersionInfo v{};
         return e.Expect(s, HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED,
                         hsaKmtGetVersion(&v) == HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED,
                         "a failed handshake leaves the device closed");
       }},
      {"hsaKmtCloseKFD", Kind::kReal,
       [](Env& e) {
         e.Open();
         const HSAKMT_STATUS s = hsaKmtCloseKFD();
         HsaVersionInfo v{};
         return e.Ok(s, hsaKmtGetVersion(&v) == HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED,
                     "the device is closed afterwards");
       },
       [](Env& e) {
         const HSAKMT_STATUS s = hsaKmtCloseKFD();
         return e.Expect(s, HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED, e.Quiet(),
                         "nothing to close");
       }},
      {"hsaKmtGetVersion", Kind::kReal,
       [](Env& e) {
         e.Open();
         HsaVersionInfo v{};
         const HSAKMT_STATUS s = hsaKmtGetVersion(&v);
         return e.Ok(s, v.KernelInterfaceMajorVersion == 1 && v.KernelInterfaceMinorVersion == 17,
                     "KFD 1.17, the simulator's default");
       },
       [](Env& e) { return NotOpened<HsaVersionInfo>(e, hsaKmtGetVersion); }},
      {"hsaKmtModelEnabled", Kind::kReal,
       [](Env& e) {
         bool enabled = true;
         const HSAKMT_STATUS s = hsaKmtModelEnabled(&enabled);
         return e.Ok(s, !enabled, "false: the simulator emulates the driver, not a GPU model");
       },
       [](Env& e) {
         const HSAKMT_STATUS s = hsaKmtModelEnabled(nullptr);
         return e.Expect(s, HSAKMT_STATUS_INVALID_PARAMETER, true, "NULL output");
       }},

      // ------------------------------------------------------- topology
      {"hsaKmtAcquireSystemProperties", Kind::kReal,
       [](Env& e) {
         REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
         HsaSystemProperties sys{};
         const HSAKMT_STATUS s = hsaKmtAcquireSystemProperties(&sys);
         return e.Ok(s, sys.NumNodes == 6, "2 CPU + 4 GPU nodes");
       },
       [](Env& e) { return NotOpened<HsaSystemProperties>(e, hsaKmtAcquireSystemProperties); }},
      {"hsaKmtReleaseSystemProperties", Kind::kReal,
       [](Env& e) {
         e.Open();
         const HSAKMT_STATUS s = hsaKmtReleaseSystemProperties();
         HsaNodeProperties p{};
         return e.Ok(s, hsaKmtGetNodeProperties(0, &p) == HSAKMT_STATUS_INVALID_NODE_UNIT,
                     "the node getters have no snapshot afterwards");
       },
       [](Env& e) {
         const HSAKMT_STATUS s = hsaKmtReleaseSystemProperties();
         return e.Expect(s, HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED, true, "not opened");
       }},
      {"hsaKmtGetNodeProperties", Kind::kReal,
       [](Env& e) {
         const uint32_t n = e.Gpu();
         HsaNodeProperties p{};
         const HSAKMT_STATUS s = hsaKmtGetNodeProperties(n, &p);
         return e.Ok(s, p.KFDGpuID != 0 && p.NumFComputeCores != 0 && p.EngineId.ui32.Major == 9,
                     "a gfx9 GPU with SIMDs and a gpu_id");
       },
       [](Env& e) { return BadNode<HsaNodeProperties>(e, hsaKmtGetNodeProperties); }},
      {"hsaKmtGetNodeMemoryProperties", Kind::kReal,
       [](Env& e) {
         const uint32_t n = e.Gpu();
         return FirstEntries<HsaMemoryProperties>(
             e, Props(n).NumMemoryBanks,
             [n](uint32_t c, HsaMemoryProperties* m) { return hsaKmtGetNodeMemoryProperties(n, c, m); },
             [](const HsaMemoryProperties& m) { return m.SizeInBytes != 0; });
       },
       [](Env& e) {
         return BadNode<HsaMemoryProperties>(e, [](uint32_t n, HsaMemoryProperties* m) {
           return hsaKmtGetNodeMemoryProperties(n, 1, m);
         });
       }},
      {"hsaKmtGetNodeCacheProperties", Kind::kReal,
       [](Env& e) {
         const uint32_t n = e.Gpu();
         const HsaNodeProperties p = Props(n);
         return FirstEntries<HsaCacheProperties>(
             e, p.NumCaches,
             [n, &p](uint32_t c, HsaCacheProperties* m) {
               return hsaKmtGetNodeCacheProperties(n, p.FComputeIdLo, c, m);
             },
             [](const HsaCacheProperties& c) { return c.CacheSize != 0 && c.CacheLevel != 0; });
       },
       [](Env& e) {
         return BadNode<HsaCacheProperties>(e, [](uint32_t n, HsaCacheProperties* m) {
           return hsaKmtGetNodeCacheProperties(n, 0, 1, m);
         });
       }},
      {"hsaKmtGetNodeIoLinkProperties", Kind::kReal,
       [](Env& e) {
         const uint32_t n = e.Gpu();
         return FirstEntries<HsaIoLinkProperties>(
             e, Props(n).NumIOLinks,
             [n](uint32_t c, HsaIoLinkProperties* m) { return hsaKmtGetNodeIoLinkProperties(n, c, m); },
             [n](const HsaIoLinkProperties& l) { return l.NodeFrom == n && l.NodeTo != n; });
       },
       [](Env& e) {
         return BadNode<HsaIoLinkProperties>(e, [](uint32_t n, HsaIoLinkProperties* m) {
           return hsaKmtGetNodeIoLinkProperties(n, 1, m);
         });
       }},

      // ------------------------------------------------------- per node
      {"hsaKmtGetAMDGPUDeviceHandle", Kind::kDocumented,
       [](Env& e) {
         const uint32_t n = e.Gpu();
         Poisoned<HsaAMDGPUDeviceHandle> h;
         const HSAKMT_STATUS s = hsaKmtGetAMDGPUDeviceHandle(n, &h.v);
         return e.Expect(s, HSAKMT_STATUS_NOT_SUPPORTED,
                         h.untouched() && e.DiagHas("no libdrm devices"),
                         "handle untouched, the diagnostic says why");
       },
       [](Env& e) {
         const uint32_t cpu = e.Cpu();
         Poisoned<HsaAMDGPUDeviceHandle> h;
         const HSAKMT_STATUS s = hsaKmtGetAMDGPUDeviceHandle(cpu, &h.v);
         return e.Expect(s, HSAKMT_STATUS_INVALID_NODE_UNIT, h.untouched(), "CPU node");
       }},
      {"hsaKmtGetClockCounters", Kind::kReal,
       [](Env& e) {
         const uint32_t n = e.Gpu();
         HsaClockCounters c{};
         e.Mark();
         const HSAKMT_STATUS s = hsaKmtGetClockCounters(n, &c);
         return e.Ok(s, e.Saw("GET_CLOCK_COUNTERS") && c.GPUClockCounter != 0,
                     "GET_CLOCK_COUNTERS sampled the GPU counter");
       },
       [](Env& e) { return BadNode<HsaClockCounters>(e, hsaKmtGetClockCounters); }},
      {"hsaKmtSetTrapHandler", Kind::kReal,
       [](Env& e) {
         const uint32_t n = e.Gpu();
         e.Mark();
         const HSAKMT_STATUS s = hsaKmtSetTrapHandler(
             n, reinterpret_cast<void*>(uintptr_t{0x10000}), 4096,
             reinterpret_cast<void*>(uintptr_t{0x20000}), 4096);
         const auto a = e.board().Args("SET_TRAP_HANDLER");
         return e.Ok(s,
                     a.size() == 1 &&
                         hketest::SimBoard::As<k::SetTrapHandlerArgs>(a[0]).tba_addr == 0x10000,
                     "SET_TRAP_HANDLER with the handler address");
       },
       [](Env& e) {
         const uint32_t cpu = e.Cpu();
         e.Mark();
         const HSAKMT_STATUS s = hsaKmtSetTrapHandler(cpu, nullptr, 0, nullptr, 0);
         return e.Expect(s, HSAKMT_STATUS_INVALID_NODE_UNIT, e.Quiet(), "CPU node, no ioctl");
       }},
      {"hsaKmtGetTileConfig", Kind::kReal,
       [](Env& e) {
         const uint32_t n = e.Gpu();
         HSAuint32 tile[32] = {};
         HsaGpuTileConfig c{};
         c.TileConfig = tile;
         c.NumTileConfigs = 32;
         const HSAKMT_STATUS s = hsaKmtGetTileConfig(n, &c);
         return e.Ok(s, c.GbAddrConfig != 0 && c.NumTileConfigs == 32, "GB_ADDR_CONFIG, 32 words");
       },
       [](Env& e) {
         const uint32_t n = e.Gpu();
         const HSAKMT_STATUS s = hsaKmtGetTileConfig(n, nullptr);
         return e.Expect(s, HSAKMT_STATUS_INVALID_PARAMETER, true, "NULL config");
       }},
      // Kaveri only (NOT_IMPLEMENTED elsewhere, as upstream): the row runs
      // on a Kaveri copy of a fixture tree, where the call is real.
      {"hsaKmtSetMemoryPolicy", Kind::kReal,
       [](Env& e) {
         e.Open();
         const uint32_t n = misctest::KaveriTree::kKaveriNode;
         e.Mark();
         const HSAKMT_STATUS s = hsaKmtSetMemoryPolicy(
             n, HSA_CACHING_NONCACHED, HSA_CACHING_CACHED,
             reinterpret_cast<void*>(uintptr_t{0x40000000}), 0x200000);
         return e.Ok(s, e.Saw("SET_MEMORY_POLICY"), "SET_MEMORY_POLICY sent");
       },
       [](Env& e) {
         const uint32_t n = misctest::KaveriTree::kKaveriNode;
         e.Open();
         e.Mark();
         const HSAKMT_STATUS s = hsaKmtSetMemoryPolicy(n, 2, HSA_CACHING_CACHED, nullptr, 0);
         return e.Expect(s, HSAKMT_STATUS_INVALID_PARAMETER, e.Quiet(),
                         "an unknown default policy, no ioctl");
       },
       Board::kKaveri},

      // ------------------------------------------- fixed-status legacy calls
      {"hsaKmtReportQueue", Kind::kDocumented,
       [](Env& e) { return ReportQueue(e, e.Sdma()); },
       [](Env& e) { return ReportQueue(e, 0); }},
      {"hsaKmtProcessVMRead", Kind::kByDesign,
       [](Env& e) { return ProcessVM(e, false, false); },
       [](Env& e) { return ProcessVM(e, false, true); }},
      {"hsaKmtProcessVMWrite", Kind::kByDesign,
       [](Env& e) { return ProcessVM(e, true, false); },
       [](Env& e) { return ProcessVM(e, true, true); }},
      {"hsaKmtMapGraphicHandle", Kind::kByDesign, [](Env& e) { return MapGraphic(e, false); },
       [](Env& e) { return MapGraphic(e, true); }},
      {"hsaKmtReplaceAsanHeaderPage", Kind::kDocumented,
       [](Env& e) { return Asan(e, true, e.Vram()); },
       [](Env& e) { return Asan(e, true, nullptr); }},
      {"hsaKmtReturnAsanHeaderPage", Kind::kDocumented,
       [](Env& e) { return Asan(e, false, e.Vram()); },
       [](Env& e) { return Asan(e, false, nullptr); }},
  };
  rows->insert(rows->end(), r.begin(), r.end());
}

}  // namespace covtest
