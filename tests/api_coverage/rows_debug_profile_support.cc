// Coverage rows: the debugger (runtime enable, DBG_TRAP, the deprecated
// calls), SPM, PC sampling, performance counters and traces.
#include <unistd.h>

#include <cstring>

#include "lib/kfd/abi.h"
#include "tests/api_coverage/coverage.h"

namespace covtest {
namespace {

namespace k = hke::kfd;

// Current kernels answer the deprecated debugger ioctls with EPERM (ERROR,
// as upstream; tests/misc_api checks that). Their success path needs a
// kernel that still accepts them: this tamper stands in for one.
int AcceptDeprecated(void*, uint32_t request, void*, size_t, int result) {
  const bool deprecated = request == k::kIocDbgRegisterDeprecated ||
                          request == k::kIocDbgUnregisterDeprecated ||
                          request == k::kIocDbgWaveControlDeprecated ||
                          request == k::kIocDbgAddressWatchDeprecated;
  return deprecated ? 0 : result;
}

// A deprecated call on Gpu() against an accepting kernel: SUCCESS, and the
// ioctl named `ioctl`, whose argument block is `Args`, carried the node's
// gpu_id.
template <typename Args, typename Call>
Outcome Deprecated(Env& e, const char* ioctl, Call call) {
  const uint32_t n = e.Gpu();
  kfdsim_set_tamper(e.sim(), &AcceptDeprecated, nullptr);
  e.Mark();
  const HSAKMT_STATUS s = call(n);
  kfdsim_set_tamper(e.sim(), nullptr, nullptr);
  const auto a = e.board().Args(ioctl);
  return e.Ok(s, a.size() == 1 && hketest::SimBoard::As<Args>(a[0]).gpu_id == e.GpuId(n),
              std::string(ioctl) + " with the node's gpu_id");
}

// A call with a node one past the topology: INVALID_NODE_UNIT, no ioctl.
template <typename Call>
Outcome PastTopology(Env& e, Call call) {
  const uint32_t n = e.NumNodes();
  e.Mark();
  const HSAKMT_STATUS s = call(n);
  return e.Expect(s, HSAKMT_STATUS_INVALID_NODE_UNIT, e.Quiet(), "node outside the topology");
}

// A call before hsaKmtOpenKFD.
Outcome Closed(Env& e, HSAKMT_STATUS (*call)()) {
  const HSAKMT_STATUS s = call();
  return e.Expect(s, HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED, true, "not opened");
}

// Debug trapping enabled for the process (RuntimeEnable first when a queue
// will follow: the kernel refuses it after the first queue).
void DbgEnabled(Env& e, bool runtime) {
  e.Open();
  if (runtime) REQUIRE(hsaKmtRuntimeEnable(nullptr, false) == HSAKMT_STATUS_SUCCESS);
  void* info = nullptr;
  HSAuint32 size = 0;
  REQUIRE(hsaKmtDbgEnable(&info, &size) == HSAKMT_STATUS_SUCCESS);
}

// DBG_TRAP SUSPEND_QUEUES for one queue; the kernel ids go to `ids`.
k::DbgTrapArgs SuspendOne(uint32_t* ids) {
  k::DbgTrapArgs a{};
  a.pid = static_cast<uint32_t>(getpid());
  a.op = k::kDbgTrapSuspendQueues;
  a.suspend_queues.queue_array_ptr = reinterpret_cast<uintptr_t>(ids);
  a.suspend_queues.num_queues = 1;
  return a;
}

// A yes/no query of the open device: the status is the answer.
Outcome Query(Env& e, HSAKMT_STATUS (*call)(), const char* why) {
  e.Open();
  const HSAKMT_STATUS s = call();
  return e.Ok(s, true, why);
}

// Replies RUNTIME_ENABLE with the core-dump capability, as newer kernels do.
int CapsTamper(void*, uint32_t request, void* reply, size_t size, int result) {
  if (request == k::kIocRuntimeEnable && size == sizeof(k::RuntimeEnableArgs) && result == 0) {
    static_cast<k::RuntimeEnableArgs*>(reply)->capabilities_mask =
        k::kRuntimeEnableCapsSupportsCoreDump;
  }
  return result;
}

HsaPcSamplingInfo HostTrap() {
  HsaPcSamplingInfo i{};
  i.value = 100;
  i.method = HSA_PC_SAMPLING_METHOD_KIND_HOSTTRAP_V1;
  i.units = HSA_PC_SAMPLING_UNIT_INTERVAL_MICROSECONDS;
  return i;
}

// A PC-sampling session on Gpu(), started when asked.
HsaPcSamplingTraceId Session(Env& e, bool started) {
  HsaPcSamplingInfo info = HostTrap();
  HsaPcSamplingTraceId id = 0;
  REQUIRE(hsaKmtPcSamplingCreate(e.Gpu(), &info, &id) == HSAKMT_STATUS_SUCCESS);
  if (started) REQUIRE(hsaKmtPcSamplingStart(e.Gpu(), id) == HSAKMT_STATUS_SUCCESS);
  return id;
}

// A PC-sampling session call: SUCCESS, and PC_SAMPLE went to the kernel
// with operation `op`.
Outcome SessionCall(Env& e, bool started, uint32_t op,
                    HSAKMT_STATUS (*call)(HSAuint32, HsaPcSamplingTraceId)) {
  const HsaPcSamplingTraceId id = Session(e, started);
  e.Mark();
  const HSAKMT_STATUS s = call(e.Gpu(), id);
  const auto a = e.board().Args("PC_SAMPLE");
  return e.Ok(s, !a.empty() && hketest::SimBoard::As<k::PcSampleArgs>(a.back()).op == op,
              "PC_SAMPLE with the operation");
}

// A trace id that was never handed out: INVALID_HANDLE, no ioctl.
Outcome ForgedSession(Env& e, HSAuint32 node_offset,
                      HSAKMT_STATUS (*call)(HSAuint32, HsaPcSamplingTraceId)) {
  const HsaPcSamplingTraceId id = Session(e, false);
  e.Mark();
  const HSAKMT_STATUS s = call(e.Gpu() + node_offset, node_offset != 0 ? id : id ^ 0x100u);
  return e.Expect(s, HSAKMT_STATUS_INVALID_HANDLE, e.Quiet(), "no ioctl");
}

// The IOMMU (privileged) counter block of the simulated gfx9 GPUs, and
// counter `id` of it (an event the simulated PMU serves).
constexpr uint32_t kIommuBlock = 24;
HsaCounter IommuCounter(uint64_t id) {
  HsaCounter c;
  std::memset(&c, 0, sizeof(c));
  c.Type = HSA_PROFILE_TYPE_PRIVILEGED_IMMEDIATE;
  c.CounterId = id;
  c.CounterSizeInBits = 64;
  c.BlockIndex = kIommuBlock;
  return c;
}

// The buffer a started trace writes (8 bytes per privileged counter).
uint64_t* TraceBuffer() {
  alignas(8) static uint64_t buffer[4];
  return buffer;
}

// A trace of one IOMMU counter on Gpu(), with access acquired and started
// as asked.
HSATraceId IommuTrace(Env& e, bool acquire, bool start) {
  HsaCounter c = IommuCounter(1);
  HsaPmcTraceRoot root{};
  REQUIRE(hsaKmtPmcRegisterTrace(e.Gpu(), 1, &c, &root) == HSAKMT_STATUS_SUCCESS);
  if (acquire) REQUIRE(hsaKmtPmcAcquireTraceAccess(e.Gpu(), root.TraceId) == HSAKMT_STATUS_SUCCESS);
  if (start) REQUIRE(hsaKmtPmcStartTrace(root.TraceId, TraceBuffer(), 8) == HSAKMT_STATUS_SUCCESS);
  return root.TraceId;
}

}  // namespace

void AddDebugProfileRows(std::vector<Row>* rows) {
  const std::vector<Row> r = {
      // ------------------------------------------ deprecated debugger calls
      {"hsaKmtDbgRegister", Kind::kReal,
       [](Env& e) {
         return Deprecated<k::DbgRegisterArgs>(e, "DBG_REGISTER_DEPRECATED", hsaKmtDbgRegister);
       },
       [](Env& e) { return PastTopology(e, hsaKmtDbgRegister); }},
      {"hsaKmtDbgUnregister", Kind::kReal,
       [](Env& e) {
         return Deprecated<k::DbgUnregisterArgs>(e, "DBG_UNREGISTER_DEPRECATED",
                                                 hsaKmtDbgUnregister);
       },
       [](Env& e) { return PastTopology(e, hsaKmtDbgUnregister); }},
      {"hsaKmtDbgWavefrontControl", Kind::kReal,
       [](Env& e) {
         return Deprecated<k::DbgWaveControlArgs>(e, "DBG_WAVE_CONTROL_DEPRECATED", [](uint32_t n) {
           HsaDbgWaveMessage msg{};
           return hsaKmtDbgWavefrontControl(n, HSA_DBG_WAVEOP_HALT,
                                            HSA_DBG_WAVEMODE_BROADCAST_PROCESS, 0, &msg);
         });
       },
       [](Env& e) {
         const uint32_t n = e.Gpu();
         e.Mark();
         const HSAKMT_STATUS s = hsaKmtDbgWavefrontControl(n, HSA_DBG_WAVEOP_HALT,
                                                           HSA_DBG_WAVEMODE_SINGLE, 0, nullptr);
         return e.Expect(s, HSAKMT_STATUS_INVALID_PARAMETER, e.Quiet(), "NULL message, no ioctl");
       }},
      {"hsaKmtDbgAddressWatch", Kind::kReal,
       [](Env& e) {
         return Deprecated<k::DbgAddressWatchArgs>(
             e, "DBG_ADDRESS_WATCH_DEPRECATED", [](uint32_t n) {
               HSA_DBG_WATCH_MODE modes[1] = {HSA_DBG_WATCH_READ};
               void* addrs[1] = {reinterpret_cast<void*>(uintptr_t{0x1000})};
               HSAuint64 masks[1] = {0xfff};
               return hsaKmtDbgAddressWatch(n, 1, modes, addrs, masks, nullptr);
             });
       },
       [](Env& e) {
         const uint32_t n = e.Gpu();
         HSA_DBG_WATCH_MODE modes[1] = {HSA_DBG_WATCH_READ};
         void* addrs[1] = {nullptr};
         HSAuint64 masks[1] = {0};
         e.Mark();
         const HSAKMT_STATUS s = hsaKmtDbgAddressWatch(n, 0, modes, addrs, masks, nullptr);
         return e.Expect(s, HSAKMT_STATUS_INVALID_PARAMETER, e.Quiet(), "no watch points");
       }},

      // ----------------------------------------------- runtime and DBG_TRAP
      {"hsaKmtRuntimeEnable", Kind::kReal,
       [](Env& e) {
         e.Open();
         int r_debug = 0;
         e.Mark();
         const HSAKMT_STATUS s = hsaKmtRuntimeEnable(&r_debug, true);
         const auto a = e.board().Args("RUNTIME_ENABLE");
         return e.Ok(s,
                     a.size() == 1 && hketest::SimBoard::As<k::RuntimeEnableArgs>(a[0]).r_debug ==
                                          reinterpret_cast<uintptr_t>(&r_debug),
                     "RUNTIME_ENABLE with r_debug");
       },
       [](Env& e) {
         e.Open();
         REQUIRE(hsaKmtRuntimeEnable(nullptr, false) == HSAKMT_STATUS_SUCCESS);
         const HSAKMT_STATUS s = hsaKmtRuntimeEnable(nullptr, false);
         return e.Expect(s, HSAKMT_STATUS_UNAVAILABLE, e.DiagHas("EBUSY"),
                         "enabled twice: the kernel's EBUSY");
       }},
      {"hsaKmtRuntimeDisable", Kind::kReal,
       [](Env& e) {
         e.Open();
         REQUIRE(hsaKmtRuntimeEnable(nullptr, false) == HSAKMT_STATUS_SUCCESS);
         e.Mark();
         const HSAKMT_STATUS s = hsaKmtRuntimeDisable();
         const auto a = e.board().Args("RUNTIME_ENABLE");
         return e.Ok(
             s, a.size() == 1 && hketest::SimBoard::As<k::RuntimeEnableArgs>(a[0]).mode_mask == 0,
             "RUNTIME_ENABLE with mode 0");
       },
       [](Env& e) { return Closed(e, hsaKmtRuntimeDisable); }},
      {"hsaKmtGetRuntimeCapabilities", Kind::kReal,
       [](Env& e) {
         e.Open();
         kfdsim_set_tamper(e.sim(), &CapsTamper, nullptr);
         REQUIRE(hsaKmtRuntimeEnable(nullptr, false) == HSAKMT_STATUS_SUCCESS);
         kfdsim_set_tamper(e.sim(), nullptr, nullptr);
         HSAuint32 caps = 0;
         const HSAKMT_STATUS s = hsaKmtGetRuntimeCapabilities(&caps);
         return e.Ok(s, caps == HSA_RUNTIME_ENABLE_CAPS_SUPPORTS_CORE_DUMP_MASK,
                     "the capabilities RUNTIME_ENABLE returned");
       },
       [](Env& e) {
         e.Open();
         const HSAKMT_STATUS s = hsaKmtGetRuntimeCapabilities(nullptr);
         return e.Expect(s, HSAKMT_STATUS_INVALID_PARAMETER, true, "NULL output");
       }},
      {"hsaKmtCheckRuntimeDebugSupport", Kind::kReal,
       [](Env& e) {
         return Query(e, hsaKmtCheckRuntimeDebugSupport, "gfx90a on KFD 1.17 supports the debugger");
       },
       [](Env& e) { return Closed(e, hsaKmtCheckRuntimeDebugSupport); }},
      {"hsaKmtDbgEnable", Kind::kReal,
       [](Env& e) {
         e.Open();
         void* info = nullptr;
         HSAuint32 size = 0;
         e.Mark();
         const HSAKMT_STATUS s = hsaKmtDbgEnable(&info, &size);
         return e.Ok(s, e.Saw("DBG_TRAP") && info != nullptr && size == sizeof(k::RuntimeInfo),
                     "DBG_TRAP ENABLE; the runtime info block");
       },
       [](Env& e) {
         Poisoned<void*> info;
         Poisoned<HSAuint32> size;
         const HSAKMT_STATUS s = hsaKmtDbgEnable(&info.v, &size.v);
         return e.Expect(s, HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED,
                         info.untouched() && size.untouched(), "not opened, outputs untouched");
       }},
      {"hsaKmtDbgDisable", Kind::kReal,
       [](Env& e) {
         DbgEnabled(e, false);
         e.Mark();
         const HSAKMT_STATUS s = hsaKmtDbgDisable();
         void* info = nullptr;
         HSAuint32 size = 0;
         return e.Ok(s, e.Saw("DBG_TRAP") && hsaKmtDbgEnable(&info, &size) == HSAKMT_STATUS_SUCCESS,
                     "DBG_TRAP DISABLE; enabling works again");
       },
       [](Env& e) { return Closed(e, hsaKmtDbgDisable); }},
      {"hsaKmtDbgGetDeviceData", Kind::kReal,
       [](Env& e) {
         DbgEnabled(e, false);
         void* data = nullptr;
         HSAuint32 n = 0, entry = 0;
         const HSAKMT_STATUS s = hsaKmtDbgGetDeviceData(&data, &n, &entry);
         return e.Ok(s, data != nullptr && n == 4 && entry == sizeof(k::DbgDeviceInfoEntry),
                     "one entry per GPU");
       },
       [](Env& e) {
         DbgEnabled(e, false);
         Poisoned<void*> data;
         Poisoned<HSAuint32> entry;
         const HSAKMT_STATUS s = hsaKmtDbgGetDeviceData(&data.v, nullptr, &entry.v);
         return e.Expect(s, HSAKMT_STATUS_INVALID_PARAMETER, data.untouched() && entry.untouched(),
                         "NULL n_entries, outputs untouched");
       }},
      {"hsaKmtDbgGetQueueData", Kind::kReal,
       [](Env& e) {
         DbgEnabled(e, true);
         (void)e.Sdma();
         void* data = nullptr;
         HSAuint32 n = 0, entry = 0;
         const HSAKMT_STATUS s = hsaKmtDbgGetQueueData(&data, &n, &entry, false);
         return e.Ok(s, data != nullptr && n == 1 && entry != 0, "the one queue");
       },
       [](Env& e) {
         DbgEnabled(e, false);
         Poisoned<HSAuint32> n;
         Poisoned<HSAuint32> entry;
         const HSAKMT_STATUS s = hsaKmtDbgGetQueueData(nullptr, &n.v, &entry.v, true);
         return e.Expect(s, HSAKMT_STATUS_INVALID_PARAMETER, n.untouched() && entry.untouched(),
                         "NULL data, outputs untouched");
       }},
      {"hsaKmtDebugTrapIoctl", Kind::kReal,
       [](Env& e) {
         DbgEnabled(e, true);
         HSA_QUEUEID handles[1] = {e.Sdma()};
         uint32_t ids[1] = {0xA5A5A5A5u};
         k::DbgTrapArgs a = SuspendOne(ids);
         HSAuint64 ret = 0xA5A5A5A5u;
         e.Mark();
         const HSAKMT_STATUS s =
             hsaKmtDebugTrapIoctl(reinterpret_cast<kfd_ioctl_dbg_trap_args*>(&a), handles, &ret);
         return e.Ok(s, e.Saw("DBG_TRAP") && ret == 0 && ids[0] != 0xA5A5A5A5u,
                     "DBG_TRAP SUSPEND_QUEUES with the queue's kernel id");
       },
       [](Env& e) {
         HSA_QUEUEID handles[1] = {e.StaleQueue()};
         uint32_t ids[1] = {0xA5A5A5A5u};
         k::DbgTrapArgs a = SuspendOne(ids);
         Poisoned<HSAuint64> ret;
         e.Mark();
         const HSAKMT_STATUS s =
             hsaKmtDebugTrapIoctl(reinterpret_cast<kfd_ioctl_dbg_trap_args*>(&a), handles, &ret.v);
         return e.Expect(s, HSAKMT_STATUS_INVALID_HANDLE,
                         ret.untouched() && ids[0] == 0xA5A5A5A5u && e.Quiet(),
                         "a destroyed queue: nothing written, no ioctl");
       }},

      // ---------------------------------------------------------------- SPM
      {"hsaKmtSPMAcquire", Kind::kReal,
       [](Env& e) {
         const uint32_t n = e.Gpu();
         e.Mark();
         const HSAKMT_STATUS s = hsaKmtSPMAcquire(n);
         return e.Ok(s, e.Saw("RLC_SPM") && hsaKmtSPMAcquire(n) == HSAKMT_STATUS_INVALID_PARAMETER,
                     "RLC_SPM ACQUIRE; a second acquire is refused");
       },
       [](Env& e) {
         const uint32_t cpu = e.Cpu();
         e.Mark();
         const HSAKMT_STATUS s = hsaKmtSPMAcquire(cpu);
         return e.Expect(s, HSAKMT_STATUS_INVALID_NODE_UNIT, e.Quiet(), "CPU node, no ioctl");
       }},
      {"hsaKmtSPMRelease", Kind::kReal,
       [](Env& e) {
         const uint32_t n = e.Gpu();
         REQUIRE(hsaKmtSPMAcquire(n) == HSAKMT_STATUS_SUCCESS);
         e.Mark();
         const HSAKMT_STATUS s = hsaKmtSPMRelease(n);
         return e.Ok(s, e.Saw("RLC_SPM") && hsaKmtSPMAcquire(n) == HSAKMT_STATUS_SUCCESS,
                     "RLC_SPM RELEASE; acquiring works again");
       },
       [](Env& e) {
         const uint32_t n = e.Gpu();
         const HSAKMT_STATUS s = hsaKmtSPMRelease(n);
         return e.Expect(s, HSAKMT_STATUS_INVALID_PARAMETER, e.DiagHas("EINVAL"),
                         "not acquired: the kernel's EINVAL");
       }},
      {"hsaKmtSPMSetDestBuffer", Kind::kReal,
       [](Env& e) {
         const uint32_t n = e.Gpu();
         REQUIRE(hsaKmtSPMAcquire(n) == HSAKMT_STATUS_SUCCESS);
         alignas(64) static uint8_t buf[256];
         HSAuint32 timeout = 10, copied = 0xA5A5A5A5u;
         bool loss = true;
         e.Mark();
         const HSAKMT_STATUS s = hsaKmtSPMSetDestBuffer(n, sizeof(buf), &timeout, &copied, buf, &loss);
         return e.Ok(s, e.Saw("RLC_SPM") && copied == 0 && !loss,
                     "RLC_SPM SET_DEST_BUF; nothing copied into the (absent) previous buffer");
       },
       [](Env& e) {
         const uint32_t n = e.Gpu();
         REQUIRE(hsaKmtSPMAcquire(n) == HSAKMT_STATUS_SUCCESS);
         alignas(64) static uint8_t buf[256];
         Poisoned<HSAuint32> timeout, copied;
         Poisoned<bool> loss;
         e.Mark();
         const HSAKMT_STATUS s = hsaKmtSPMSetDestBuffer(n, 100, &timeout.v, &copied.v, buf, &loss.v);
         return e.Expect(s, HSAKMT_STATUS_INVALID_PARAMETER,
                         e.Quiet() && timeout.untouched() && copied.untouched() && loss.untouched(),
                         "a size that is not a multiple of 32, outputs untouched, no ioctl");
       }},

      // -------------------------------------------------------- PC sampling
      {"hsaKmtPcSamplingSupport", Kind::kReal,
       [](Env& e) { return Query(e, hsaKmtPcSamplingSupport, "KFD 1.17 >= 1.16"); },
       [](Env& e) { return Closed(e, hsaKmtPcSamplingSupport); }},
      {"hsaKmtPcSamplingQueryCapabilities", Kind::kReal,
       [](Env& e) {
         const uint32_t n = e.Gpu();
         HsaPcSamplingInfo info[4];
         std::memset(info, 0, sizeof(info));
         HSAuint32 needed = 0;
         e.Mark();
         const HSAKMT_STATUS s = hsaKmtPcSamplingQueryCapabilities(n, info, 4, &needed);
         return e.Ok(s,
                     e.Saw("PC_SAMPLE") && needed == 1 &&
                         info[0].method == HSA_PC_SAMPLING_METHOD_KIND_HOSTTRAP_V1,
                     "PC_SAMPLE QUERY_CAPABILITIES; gfx90a's host-trap record");
       },
       [](Env& e) {
         const uint32_t cpu = e.Cpu();
         Poisoned<HSAuint32> needed;
         e.Mark();
         const HSAKMT_STATUS s = hsaKmtPcSamplingQueryCapabilities(cpu, nullptr, 0, &needed.v);
         return e.Expect(s, HSAKMT_STATUS_INVALID_NODE_UNIT, needed.untouched() && e.Quiet(),
                         "CPU node, size untouched, no ioctl");
       }},
      {"hsaKmtPcSamplingCreate", Kind::kReal,
       [](Env& e) {
         const uint32_t n = e.Gpu();
         HsaPcSamplingInfo info = HostTrap();
         HsaPcSamplingTraceId id = 0;
         e.Mark();
         const HSAKMT_STATUS s = hsaKmtPcSamplingCreate(n, &info, &id);
         return e.Ok(s, e.Saw("PC_SAMPLE") && id != 0, "PC_SAMPLE CREATE; a trace id");
       },
       [](Env& e) {
         const uint32_t n = e.Gpu();
         Poisoned<HsaPcSamplingTraceId> id;
         e.Mark();
         const HSAKMT_STATUS s = hsaKmtPcSamplingCreate(n, nullptr, &id.v);
         return e.Expect(s, HSAKMT_STATUS_INVALID_PARAMETER, id.untouched() && e.Quiet(),
                         "NULL info, id untouched, no ioctl");
       }},
      {"hsaKmtPcSamplingDestroy", Kind::kReal,
       [](Env& e) { return SessionCall(e, false, k::kPcsOpDestroy, hsaKmtPcSamplingDestroy); },
       [](Env& e) { return ForgedSession(e, 0, hsaKmtPcSamplingDestroy); }},
      {"hsaKmtPcSamplingStart", Kind::kReal,
       [](Env& e) { return SessionCall(e, false, k::kPcsOpStart, hsaKmtPcSamplingStart); },
       [](Env& e) { return ForgedSession(e, 0, hsaKmtPcSamplingStart); }},
      {"hsaKmtPcSamplingStop", Kind::kReal,
       [](Env& e) { return SessionCall(e, true, k::kPcsOpStop, hsaKmtPcSamplingStop); },
       // Another node's session.
       [](Env& e) { return ForgedSession(e, 1, hsaKmtPcSamplingStop); }},

      // --------------------------------------------------- PMC and traces
      {"hsaKmtPmcGetCounterProperties", Kind::kReal,
       [](Env& e) {
         HsaCounterProperties* p = nullptr;
         const HSAKMT_STATUS s = hsaKmtPmcGetCounterProperties(e.Gpu(), &p);
         HsaCounterProperties* again = nullptr;
         const bool same = s == HSAKMT_STATUS_SUCCESS && p != nullptr && p->NumBlocks > 0 &&
                           hsaKmtPmcGetCounterProperties(e.Gpu(), &again) ==
                               HSAKMT_STATUS_SUCCESS &&
                           again == p;
         return e.Ok(s, same, "a blob with blocks; the same (cached) blob again");
       },
       [](Env& e) {
         Poisoned<HsaCounterProperties*> out;
         const HSAKMT_STATUS s = hsaKmtPmcGetCounterProperties(e.Cpu(), &out.v);
         return e.Expect(s, HSAKMT_STATUS_INVALID_PARAMETER, out.untouched(), "CPU node, untouched");
       }},
      {"hsaKmtPmcRegisterTrace", Kind::kReal,
       [](Env& e) {
         HsaCounter c = IommuCounter(1);
         HsaPmcTraceRoot root{};
         const HSAKMT_STATUS s = hsaKmtPmcRegisterTrace(e.Gpu(), 1, &c, &root);
         return e.Ok(s, root.TraceId != 0 && root.NumberOfPasses >= 1, "a trace id");
       },
       [](Env& e) {
         HsaCounter c = IommuCounter(1);
         Poisoned<HsaPmcTraceRoot> root;
         const HSAKMT_STATUS s = hsaKmtPmcRegisterTrace(e.Gpu(), 0, &c, &root.v);
         return e.Expect(s, HSAKMT_STATUS_INVALID_PARAMETER, root.untouched(),
                         "no counters, root untouched");
       }},
      {"hsaKmtPmcUnregisterTrace", Kind::kReal,
       [](Env& e) {
         const HSATraceId id = IommuTrace(e, false, false);
         const HSAKMT_STATUS s = hsaKmtPmcUnregisterTrace(e.Gpu(), id);
         return e.Ok(s, hsaKmtPmcQueryTrace(id) == HSAKMT_STATUS_INVALID_HANDLE,
                     "the id is stale afterwards");
       },
       [](Env& e) {
         const HSATraceId id = IommuTrace(e, false, false);
         const HSAKMT_STATUS s = hsaKmtPmcUnregisterTrace(e.Gpu(), id ^ 0x10000u);
         return e.Expect(s, HSAKMT_STATUS_INVALID_HANDLE, true, "a forged id");
       }},
      {"hsaKmtPmcAcquireTraceAccess", Kind::kReal,
       [](Env& e) {
         const HSATraceId id = IommuTrace(e, false, false);
         const HSAKMT_STATUS s = hsaKmtPmcAcquireTraceAccess(e.Gpu(), id);
         return e.Ok(s, kfdsim_perf_open_count(e.sim()) == 1, "one perf counter opened");
       },
       [](Env& e) {
         const HSATraceId id = IommuTrace(e, false, false);
         const HSAKMT_STATUS s = hsaKmtPmcAcquireTraceAccess(e.Gpu2(), id);
         return e.Expect(s, HSAKMT_STATUS_INVALID_HANDLE, kfdsim_perf_open_count(e.sim()) == 0,
                         "another node's id, nothing opened");
       }},
      {"hsaKmtPmcReleaseTraceAccess", Kind::kReal,
       [](Env& e) {
         const HSATraceId id = IommuTrace(e, true, false);
         const HSAKMT_STATUS s = hsaKmtPmcReleaseTraceAccess(e.Gpu(), id);
         return e.Ok(s, kfdsim_perf_open_count(e.sim()) == 0, "the perf counter closed");
       },
       [](Env& e) {
         const HSATraceId id = IommuTrace(e, true, false);
         const HSAKMT_STATUS s = hsaKmtPmcReleaseTraceAccess(e.Gpu(), id ^ 0x10000u);
         return e.Expect(s, HSAKMT_STATUS_INVALID_HANDLE, kfdsim_perf_open_count(e.sim()) == 1,
                         "a forged id, the counter stays open");
       }},
      {"hsaKmtPmcStartTrace", Kind::kReal,
       [](Env& e) {
         const HSATraceId id = IommuTrace(e, true, false);
         const HSAKMT_STATUS s = hsaKmtPmcStartTrace(id, TraceBuffer(), 8);
         return e.Ok(s, hsaKmtPmcQueryTrace(id) == HSAKMT_STATUS_SUCCESS, "Query works after it");
       },
       [](Env& e) {
         const HSATraceId id = IommuTrace(e, true, false);
         const HSAKMT_STATUS s = hsaKmtPmcStartTrace(id, TraceBuffer(), 7);
         return e.Expect(s, HSAKMT_STATUS_INVALID_PARAMETER,
                         hsaKmtPmcQueryTrace(id) == HSAKMT_STATUS_UNAVAILABLE,
                         "7 bytes for one counter; not started");
       }},
      {"hsaKmtPmcQueryTrace", Kind::kReal,
       [](Env& e) {
         const HSATraceId id = IommuTrace(e, true, true);
         uint64_t* buf = TraceBuffer();
         buf[0] = 0;
         const HSAKMT_STATUS s = hsaKmtPmcQueryTrace(id);
         return e.Ok(s, buf[0] != 0, "the counter value is in the buffer");
       },
       [](Env& e) {
         const HSATraceId id = IommuTrace(e, true, false);
         uint64_t* buf = TraceBuffer();
         buf[0] = 0xA5A5;
         const HSAKMT_STATUS s = hsaKmtPmcQueryTrace(id);
         return e.Expect(s, HSAKMT_STATUS_UNAVAILABLE, buf[0] == 0xA5A5,
                         "not started, buffer untouched");
       }},
      {"hsaKmtPmcStopTrace", Kind::kReal,
       [](Env& e) {
         const HSATraceId id = IommuTrace(e, true, true);
         const HSAKMT_STATUS s = hsaKmtPmcStopTrace(id);
         return e.Ok(s, hsaKmtPmcQueryTrace(id) == HSAKMT_STATUS_UNAVAILABLE, "stopped");
       },
       [](Env& e) {
         const HSATraceId id = IommuTrace(e, true, true);
         const HSAKMT_STATUS s = hsaKmtPmcStopTrace(id ^ 0x10000u);
         return e.Expect(s, HSAKMT_STATUS_INVALID_HANDLE,
                         hsaKmtPmcQueryTrace(id) == HSAKMT_STATUS_SUCCESS,
                         "a forged id, the trace keeps running");
       }},
  };
  rows->insert(rows->end(), r.begin(), r.end());
}

}  // namespace covtest
