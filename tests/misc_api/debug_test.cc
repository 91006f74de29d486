// The debugger entry points on the in-process simulator: runtime
// enable/disable and capabilities, debug trapping, device and queue
// snapshots, the raw DBG_TRAP pass-through. Each test names the contract
// it checks; refusals leave outputs untouched and explain themselves.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "doctest/doctest.h"
#include "lib/context/context.h"
#include "lib/kfd/abi.h"
#include "lib/queues/queues.h"
#include "tests/misc_api/support.h"
#include "tests/support/event_fifo.h"
#include "tests/queues/support.h"

using hketest::SimBoard;
using misctest::Count;
using misctest::GpuId;
using misctest::Join;
using misctest::Poisoned;
namespace k = hke::kfd;

namespace {

int KfdFd() {
  hke::Context& c = hke_default_context()->impl;
  return c.device().kfd_fd;
}

// An SDMA queue on `node` with a 4 KiB ring in GTT.
HSA_QUEUEID SdmaQueue(uint32_t node) {
  void* ring = queuetest::Gtt(node, 4096);
  HsaQueueResource r{};
  REQUIRE(hsaKmtCreateQueue(node, HSA_QUEUE_SDMA, 100, HSA_QUEUE_PRIORITY_NORMAL, ring, 4096,
                            nullptr, &r) == HSAKMT_STATUS_SUCCESS);
  return r.QueueId;
}

uint32_t KernelId(HSA_QUEUEID q) {
  uint32_t id = 0;
  REQUIRE(hke::queues::KernelQueueId(hke_default_context()->impl, q, &id).ok());
  return id;
}

// Replies RUNTIME_ENABLE with the core-dump capability, as newer kernels do.
int CapsTamper(void*, uint32_t request, void* reply, size_t size, int result) {
  if (request == k::kIocRuntimeEnable && size == sizeof(k::RuntimeEnableArgs) && result == 0) {
    static_cast<k::RuntimeEnableArgs*>(reply)->capabilities_mask =
        k::kRuntimeEnableCapsSupportsCoreDump;
  }
  return result;
}

}  // namespace

// ------------------------------------------------------ runtime support

TEST_CASE(
    "CheckRuntimeDebugSupport succeeds when every GPU has debug firmware and the KFD is 1.13 or "
    "later") {
  SimBoard b(nullptr, "datacenter-4gpu");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtCheckRuntimeDebugSupport() == HSAKMT_STATUS_SUCCESS);
}

TEST_CASE(
    "CheckRuntimeDebugSupport is NOT_SUPPORTED on a GPU without debug firmware and names the "
    "node") {
  SimBoard b(nullptr, "apu-embedded");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtCheckRuntimeDebugSupport() == HSAKMT_STATUS_NOT_SUPPORTED);
  CHECK(b.LastDiag().find("DebugSupportedFirmware") != std::string::npos);
}

TEST_CASE(
    "CheckRuntimeDebugSupport is NOT_SUPPORTED below KFD 1.13 and KERNEL_IO_CHANNEL_NOT_OPENED "
    "when closed") {
  SimBoard b(nullptr, "datacenter-4gpu", 0, 12);
  CHECK(hsaKmtCheckRuntimeDebugSupport() == HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED);
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtCheckRuntimeDebugSupport() == HSAKMT_STATUS_NOT_SUPPORTED);
  CHECK(b.LastDiag().find("KFD 1.13") != std::string::npos);
}

// ------------------------------------------------------ runtime enable

TEST_CASE(
    "RuntimeEnable sends ENABLE and TTMP_SAVE with r_debug and keeps the kernel's capabilities for "
    "GetRuntimeCapabilities") {
  SimBoard b(nullptr, "datacenter-4gpu");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  (void)misctest::NumNodes();
  HSAuint32 caps = 0xA5A5A5A5u;
  REQUIRE(hsaKmtGetRuntimeCapabilities(&caps) == HSAKMT_STATUS_SUCCESS);
  CHECK(caps == 0);
  kfdsim_set_tamper(b.sim(), &CapsTamper, nullptr);
  b.ClearTrace();
  int r_debug = 0;
  REQUIRE(hsaKmtRuntimeEnable(&r_debug, true) == HSAKMT_STATUS_SUCCESS);
  kfdsim_set_tamper(b.sim(), nullptr, nullptr);
  const auto args = b.Args("RUNTIME_ENABLE");
  REQUIRE(args.size() == 1);
  const auto sent = SimBoard::As<k::RuntimeEnableArgs>(args[0]);
  CHECK(sent.r_debug == reinterpret_cast<uintptr_t>(&r_debug));
  CHECK(sent.mode_mask == (k::kRuntimeEnableModeEnable | k::kRuntimeEnableModeTtmpSave));
  REQUIRE(hsaKmtGetRuntimeCapabilities(&caps) == HSAKMT_STATUS_SUCCESS);
  CHECK(caps == HSA_RUNTIME_ENABLE_CAPS_SUPPORTS_CORE_DUMP_MASK);
}

TEST_CASE("RuntimeEnable twice is UNAVAILABLE (EBUSY) and keeps the first capabilities") {
  SimBoard b(nullptr, "datacenter-4gpu");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  kfdsim_set_tamper(b.sim(), &CapsTamper, nullptr);
  REQUIRE(hsaKmtRuntimeEnable(nullptr, false) == HSAKMT_STATUS_SUCCESS);
  kfdsim_set_tamper(b.sim(), nullptr, nullptr);
  CHECK(hsaKmtRuntimeEnable(nullptr, false) == HSAKMT_STATUS_UNAVAILABLE);
  CHECK(b.LastDiag().find("EBUSY") != std::string::npos);
  HSAuint32 caps = 0;
  REQUIRE(hsaKmtGetRuntimeCapabilities(&caps) == HSAKMT_STATUS_SUCCESS);
  CHECK(caps == HSA_RUNTIME_ENABLE_CAPS_SUPPORTS_CORE_DUMP_MASK);
}

TEST_CASE("RuntimeEnable after a queue was created is ERROR (EEXIST) with advice") {
  SimBoard b(nullptr, "datacenter-4gpu");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  const uint32_t node = misctest::FirstGpuNode();
  const HSA_QUEUEID q = SdmaQueue(node);
  CHECK(hsaKmtRuntimeEnable(nullptr, false) == HSAKMT_STATUS_ERROR);
  CHECK(b.LastDiag().find("EEXIST") != std::string::npos);
  HSAuint32 caps = 0xA5A5A5A5u;
  REQUIRE(hsaKmtGetRuntimeCapabilities(&caps) == HSAKMT_STATUS_SUCCESS);
  CHECK(caps == 0);
  REQUIRE(hsaKmtDestroyQueue(q) == HSAKMT_STATUS_SUCCESS);
}

TEST_CASE(
    "RuntimeEnable and RuntimeDisable are NOT_SUPPORTED without an ioctl where the firmware cannot "
    "debug") {
  SimBoard b(nullptr, "apu-embedded");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  (void)misctest::NumNodes();
  b.ClearTrace();
  CHECK(hsaKmtRuntimeEnable(nullptr, true) == HSAKMT_STATUS_NOT_SUPPORTED);
  CHECK(hsaKmtRuntimeDisable() == HSAKMT_STATUS_NOT_SUPPORTED);
  CHECK(Count(b.Ioctls(), "RUNTIME_ENABLE") == 0);
}

TEST_CASE("RuntimeDisable sends mode 0 and forgets the capabilities; a refusal is ERROR") {
  SimBoard b(nullptr, "datacenter-4gpu");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  kfdsim_set_tamper(b.sim(), &CapsTamper, nullptr);
  REQUIRE(hsaKmtRuntimeEnable(nullptr, false) == HSAKMT_STATUS_SUCCESS);
  kfdsim_set_tamper(b.sim(), nullptr, nullptr);
  b.ClearTrace();
  REQUIRE(hsaKmtRuntimeDisable() == HSAKMT_STATUS_SUCCESS);
  const auto args = b.Args("RUNTIME_ENABLE");
  REQUIRE(args.size() == 1);
  CHECK(SimBoard::As<k::RuntimeEnableArgs>(args[0]).mode_mask == 0);
  HSAuint32 caps = 0xA5A5A5A5u;
  REQUIRE(hsaKmtGetRuntimeCapabilities(&caps) == HSAKMT_STATUS_SUCCESS);
  CHECK(caps == 0);
  kfdsim_add_fault(b.sim(), k::kIocRuntimeEnable & 0xFFFF, EINTR, 1, 0);
  CHECK(hsaKmtRuntimeDisable() == HSAKMT_STATUS_ERROR);
  CHECK(b.LastDiag().find("RUNTIME_ENABLE (disable) failed") != std::string::npos);
}

TEST_CASE(
    "GetRuntimeCapabilities: NULL is INVALID_PARAMETER, closed is KERNEL_IO_CHANNEL_NOT_OPENED, a "
    "reopen forgets the capabilities") {
  SimBoard b(nullptr, "datacenter-4gpu");
  Poisoned<HSAuint32> caps;
  CHECK(hsaKmtGetRuntimeCapabilities(nullptr) == HSAKMT_STATUS_INVALID_PARAMETER);
  CHECK(hsaKmtGetRuntimeCapabilities(&caps.v) == HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED);
  CHECK(caps.untouched());
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  kfdsim_set_tamper(b.sim(), &CapsTamper, nullptr);
  REQUIRE(hsaKmtRuntimeEnable(nullptr, false) == HSAKMT_STATUS_SUCCESS);
  kfdsim_set_tamper(b.sim(), nullptr, nullptr);
  REQUIRE(hsaKmtCloseKFD() == HSAKMT_STATUS_SUCCESS);
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  HSAuint32 now = 0xA5A5A5A5u;
  REQUIRE(hsaKmtGetRuntimeCapabilities(&now) == HSAKMT_STATUS_SUCCESS);
  CHECK(now == 0);
}

TEST_CASE(
    "a RUNTIME_ENABLE reply that changes r_debug is a protocol error and stores no capabilities") {
  SimBoard b(nullptr, "datacenter-4gpu");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  struct Tamper {
    static int Fn(void*, uint32_t request, void* reply, size_t size, int result) {
      if (request == k::kIocRuntimeEnable && size == sizeof(k::RuntimeEnableArgs)) {
        auto* a = static_cast<k::RuntimeEnableArgs*>(reply);
        a->r_debug ^= 0x1000;
        a->capabilities_mask = 0xffffffffu;
      }
      return result;
    }
  };
  kfdsim_set_tamper(b.sim(), &Tamper::Fn, nullptr);
  CHECK(hsaKmtRuntimeEnable(nullptr, false) == HSAKMT_STATUS_KERNEL_COMMUNICATION_ERROR);
  kfdsim_set_tamper(b.sim(), nullptr, nullptr);
  HSAuint32 caps = 0xA5A5A5A5u;
  REQUIRE(hsaKmtGetRuntimeCapabilities(&caps) == HSAKMT_STATUS_SUCCESS);
  CHECK(caps == 0);
  CHECK(b.LastDiag().find("changed its request") != std::string::npos);
}

// ------------------------------------------------------ debug trapping

TEST_CASE(
    "DbgEnable sends DBG_TRAP ENABLE for this process with the KFD descriptor and hands out the "
    "context's runtime info") {
  SimBoard b(nullptr, "datacenter-4gpu");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  int r_debug = 0;
  REQUIRE(hsaKmtRuntimeEnable(&r_debug, true) == HSAKMT_STATUS_SUCCESS);
  b.ClearTrace();
  void* info = nullptr;
  HSAuint32 size = 0;
  REQUIRE(hsaKmtDbgEnable(&info, &size) == HSAKMT_STATUS_SUCCESS);
  const auto args = b.Args("DBG_TRAP");
  REQUIRE(args.size() == 1);
  const auto trap = SimBoard::As<k::DbgTrapArgs>(args[0]);
  CHECK(trap.pid == static_cast<uint32_t>(getpid()));
  CHECK(trap.op == k::kDbgTrapEnable);
  CHECK(trap.enable.rinfo_size == sizeof(k::RuntimeInfo));
  CHECK(trap.enable.dbg_fd == static_cast<uint32_t>(KfdFd()));
  REQUIRE(info != nullptr);
  CHECK(info == &hke_default_context()->impl.debug().runtime_info);
  CHECK(size == sizeof(k::RuntimeInfo));
  k::RuntimeInfo ri{};
  std::memcpy(&ri, info, sizeof(ri));
  CHECK(ri.r_debug == reinterpret_cast<uintptr_t>(&r_debug));
  CHECK(ri.runtime_state == k::kRuntimeStateEnabled);
  CHECK(ri.ttmp_setup == 1);
  REQUIRE(hsaKmtDbgDisable() == HSAKMT_STATUS_SUCCESS);
}

TEST_CASE(
    "DbgEnable twice is ERROR (EALREADY) with untouched outputs; DbgDisable makes it possible "
    "again") {
  SimBoard b(nullptr, "datacenter-4gpu");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  void* info = nullptr;
  HSAuint32 size = 0;
  REQUIRE(hsaKmtDbgEnable(&info, &size) == HSAKMT_STATUS_SUCCESS);
  Poisoned<void*> info2;
  Poisoned<HSAuint32> size2;
  CHECK(hsaKmtDbgEnable(&info2.v, &size2.v) == HSAKMT_STATUS_ERROR);
  CHECK(info2.untouched());
  CHECK(size2.untouched());
  CHECK(b.LastDiag().find("EALREADY") != std::string::npos);
  REQUIRE(hsaKmtDbgDisable() == HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtDbgEnable(&info, &size) == HSAKMT_STATUS_SUCCESS);
}

TEST_CASE(
    "DbgEnable, DbgDisable and the snapshots are NOT_SUPPORTED below KFD 1.13 without an ioctl; "
    "NULL outputs are INVALID_PARAMETER") {
  SimBoard b(nullptr, "datacenter-4gpu", 0, 12);
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  b.ClearTrace();
  Poisoned<void*> info;
  Poisoned<HSAuint32> size;
  Poisoned<HSAuint32> n;
  CHECK(hsaKmtDbgEnable(&info.v, &size.v) == HSAKMT_STATUS_NOT_SUPPORTED);
  CHECK(b.LastDiag().find("KFD 1.13") != std::string::npos);
  CHECK(hsaKmtDbgDisable() == HSAKMT_STATUS_NOT_SUPPORTED);
  CHECK(hsaKmtDbgGetDeviceData(&info.v, &n.v, &size.v) == HSAKMT_STATUS_NOT_SUPPORTED);
  CHECK(hsaKmtDbgGetQueueData(&info.v, &n.v, &size.v, false) == HSAKMT_STATUS_NOT_SUPPORTED);
  CHECK(info.untouched());
  CHECK(size.untouched());
  CHECK(n.untouched());
  CHECK(b.Ioctls().empty());
  CHECK(hsaKmtDbgEnable(nullptr, &size.v) == HSAKMT_STATUS_INVALID_PARAMETER);
  CHECK(hsaKmtDbgEnable(&info.v, nullptr) == HSAKMT_STATUS_INVALID_PARAMETER);
  CHECK(hsaKmtDbgGetDeviceData(&info.v, nullptr, &size.v) == HSAKMT_STATUS_INVALID_PARAMETER);
  CHECK(hsaKmtDbgGetQueueData(nullptr, &n.v, &size.v, true) == HSAKMT_STATUS_INVALID_PARAMETER);
}

TEST_CASE(
    "a DBG_TRAP ENABLE reply with no runtime-info size is a protocol error and publishes nothing") {
  SimBoard b(nullptr, "datacenter-4gpu");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  struct Tamper {
    static int Fn(void*, uint32_t request, void* reply, size_t size, int result) {
      if (request == k::kIocDbgTrap && size == sizeof(k::DbgTrapArgs)) {
        auto* a = static_cast<k::DbgTrapArgs*>(reply);
        if (a->op == k::kDbgTrapEnable) a->enable.rinfo_size = 0;
      }
      return result;
    }
  };
  kfdsim_set_tamper(b.sim(), &Tamper::Fn, nullptr);
  Poisoned<void*> info;
  Poisoned<HSAuint32> size;
  CHECK(hsaKmtDbgEnable(&info.v, &size.v) == HSAKMT_STATUS_KERNEL_COMMUNICATION_ERROR);
  kfdsim_set_tamper(b.sim(), nullptr, nullptr);
  CHECK(info.untouched());
  CHECK(size.untouched());
}

// ------------------------------------------------------------ snapshots

TEST_CASE(
    "DbgGetDeviceData returns one 120-byte entry per GPU with the topology's gpu_ids, in the "
    "context's block") {
  SimBoard b(nullptr, "datacenter-4gpu");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  const uint32_t node = misctest::FirstGpuNode();
  void* info = nullptr;
  HSAuint32 size = 0;
  REQUIRE(hsaKmtDbgEnable(&info, &size) == HSAKMT_STATUS_SUCCESS);
  b.ClearTrace();
  void* data = nullptr;
  HSAuint32 n = 0;
  HSAuint32 entry = 0;
  REQUIRE(hsaKmtDbgGetDeviceData(&data, &n, &entry) == HSAKMT_STATUS_SUCCESS);
  const auto args = b.Args("DBG_TRAP");
  REQUIRE(args.size() == 1);
  const auto trap = SimBoard::As<k::DbgTrapArgs>(args[0]);
  CHECK(trap.op == k::kDbgTrapGetDeviceSnapshot);
  CHECK(trap.device_snapshot.num_devices == hke::config::kMaxGpus);  // asked
  CHECK(trap.device_snapshot.entry_size == sizeof(k::DbgDeviceInfoEntry));
  CHECK(n == 4);
  CHECK(entry == 120);
  CHECK(data == hke_default_context()->impl.debug().devices);
  const auto* e = static_cast<const k::DbgDeviceInfoEntry*>(data);
  CHECK(e[0].gpu_id == GpuId(node));
  CHECK(e[0].gfx_target_version != 0);
  CHECK(e[0].vendor_id == 0x1002);
}

TEST_CASE(
    "DbgGetDeviceData before DbgEnable is ERROR (the kernel's EINVAL) with untouched outputs") {
  SimBoard b(nullptr, "datacenter-4gpu");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  Poisoned<void*> data;
  Poisoned<HSAuint32> n;
  Poisoned<HSAuint32> entry;
  CHECK(hsaKmtDbgGetDeviceData(&data.v, &n.v, &entry.v) == HSAKMT_STATUS_ERROR);
  CHECK(data.untouched());
  CHECK(n.untouched());
  CHECK(entry.untouched());
  CHECK(b.LastDiag().find("GET_DEVICE_SNAPSHOT failed: EINVAL") != std::string::npos);
}

TEST_CASE(
    "a device snapshot larger than the context holds is OUT_OF_RESOURCES, not a wrapped buffer") {
  SimBoard b(nullptr, "datacenter-4gpu");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  void* info = nullptr;
  HSAuint32 size = 0;
  REQUIRE(hsaKmtDbgEnable(&info, &size) == HSAKMT_STATUS_SUCCESS);
  struct Tamper {
    static int Fn(void*, uint32_t request, void* reply, size_t size, int result) {
      if (request == k::kIocDbgTrap && size == sizeof(k::DbgTrapArgs)) {
        auto* a = static_cast<k::DbgTrapArgs*>(reply);
        if (a->op == k::kDbgTrapGetDeviceSnapshot) a->device_snapshot.num_devices = 0xFFFFFFFFu;
      }
      return result;
    }
  };
  kfdsim_set_tamper(b.sim(), &Tamper::Fn, nullptr);
  Poisoned<void*> data;
  Poisoned<HSAuint32> n;
  Poisoned<HSAuint32> entry;
  CHECK(hsaKmtDbgGetDeviceData(&data.v, &n.v, &entry.v) == HSAKMT_STATUS_OUT_OF_RESOURCES);
  kfdsim_set_tamper(b.sim(), nullptr, nullptr);
  CHECK(data.untouched());
  CHECK(n.untouched());
  CHECK(b.LastDiag().find("kMaxGpus") != std::string::npos);
}

TEST_CASE(
    "DbgGetQueueData without queues is an empty snapshot after one count query (upstream fails "
    "here)") {
  SimBoard b(nullptr, "datacenter-4gpu");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  void* info = nullptr;
  HSAuint32 size = 0;
  REQUIRE(hsaKmtDbgEnable(&info, &size) == HSAKMT_STATUS_SUCCESS);
  b.ClearTrace();
  void* data = nullptr;
  HSAuint32 n = 99;
  HSAuint32 entry = 0;
  REQUIRE(hsaKmtDbgGetQueueData(&data, &n, &entry, true) == HSAKMT_STATUS_SUCCESS);
  CHECK(n == 0);
  CHECK(entry == 64);
  CHECK(data == hke_default_context()->impl.debug().queues);
  const auto args = b.Args("DBG_TRAP");
  REQUIRE(args.size() == 1);
  const auto trap = SimBoard::As<k::DbgTrapArgs>(args[0]);
  CHECK(trap.op == k::kDbgTrapGetQueueSnapshot);
  CHECK(trap.queue_snapshot.snapshot_buf_ptr == 0);  // count only
  CHECK(trap.queue_snapshot.num_queues == 0);
  CHECK(trap.queue_snapshot.entry_size == 64);  // must be nonzero
}

TEST_CASE(
    "DbgGetQueueData lists the queues; with suspend_queues it suspends them by their KFD ids and "
    "snapshots again") {
  SimBoard b(nullptr, "datacenter-4gpu");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  const uint32_t node = misctest::FirstGpuNode();
  REQUIRE(hsaKmtRuntimeEnable(nullptr, false) == HSAKMT_STATUS_SUCCESS);  // before any queue
  const HSA_QUEUEID q1 = SdmaQueue(node);
  const HSA_QUEUEID q2 = SdmaQueue(node);
  void* info = nullptr;
  HSAuint32 size = 0;
  REQUIRE(hsaKmtDbgEnable(&info, &size) == HSAKMT_STATUS_SUCCESS);
  void* data = nullptr;
  HSAuint32 n = 0;
  HSAuint32 entry = 0;
  REQUIRE(hsaKmtDbgGetQueueData(&data, &n, &entry, false) == HSAKMT_STATUS_SUCCESS);
  REQUIRE(n == 2);
  const auto* e = static_cast<const k::QueueSnapshotEntry*>(data);
  CHECK(e[0].queue_id == KernelId(q1));
  CHECK(e[1].queue_id == KernelId(q2));
  CHECK(e[0].gpu_id == GpuId(node));
  CHECK(e[0].queue_type == k::kQueueTypeSdma);
  CHECK(e[0].ring_size == 4096);
  b.ClearTrace();
  REQUIRE(hsaKmtDbgGetQueueData(&data, &n, &entry, true) == HSAKMT_STATUS_SUCCESS);
  CHECK(n == 2);
  const auto args = b.Args("DBG_TRAP");
  INFO(Join(b.Ioctls()));
  REQUIRE(args.size() == 4);
  const auto count = SimBoard::As<k::DbgTrapArgs>(args[0]);
  const auto list = SimBoard::As<k::DbgTrapArgs>(args[1]);
  const auto suspend = SimBoard::As<k::DbgTrapArgs>(args[2]);
  const auto again = SimBoard::As<k::DbgTrapArgs>(args[3]);
  CHECK(count.op == k::kDbgTrapGetQueueSnapshot);
  CHECK(list.op == k::kDbgTrapGetQueueSnapshot);
  CHECK(list.queue_snapshot.num_queues == 2);
  CHECK(suspend.op == k::kDbgTrapSuspendQueues);
  CHECK(suspend.suspend_queues.num_queues == 2);
  CHECK(suspend.suspend_queues.exception_mask == k::EcMask(k::kEcQueueNew));
  CHECK(again.op == k::kDbgTrapGetQueueSnapshot);
  const uint32_t* ids = hke_default_context()->impl.debug().queue_ids;
  CHECK(ids[0] == KernelId(q1));  // the kernel set no status bit: both suspended
  CHECK(ids[1] == KernelId(q2));
  REQUIRE(hsaKmtDestroyQueue(q1) == HSAKMT_STATUS_SUCCESS);
  REQUIRE(hsaKmtDestroyQueue(q2) == HSAKMT_STATUS_SUCCESS);
}

TEST_CASE(
    "DbgGetQueueData with suspend_queues but no runtime enabled is ERROR (the kernel's EPERM) with "
    "untouched outputs") {
  SimBoard b(nullptr, "datacenter-4gpu");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  const uint32_t node = misctest::FirstGpuNode();
  const HSA_QUEUEID q = SdmaQueue(node);
  void* info = nullptr;
  HSAuint32 size = 0;
  REQUIRE(hsaKmtDbgEnable(&info, &size) == HSAKMT_STATUS_SUCCESS);
  Poisoned<void*> data;
  Poisoned<HSAuint32> n;
  Poisoned<HSAuint32> entry;
  CHECK(hsaKmtDbgGetQueueData(&data.v, &n.v, &entry.v, true) == HSAKMT_STATUS_ERROR);
  CHECK(data.untouched());
  CHECK(n.untouched());
  CHECK(entry.untouched());
  CHECK(b.LastDiag().find("SUSPEND_QUEUES failed: EPERM") != std::string::npos);
  REQUIRE(hsaKmtDestroyQueue(q) == HSAKMT_STATUS_SUCCESS);
}

TEST_CASE("a queue count above config::kMaxQueues is OUT_OF_RESOURCES before any buffer is named") {
  SimBoard b(nullptr, "datacenter-4gpu");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  void* info = nullptr;
  HSAuint32 size = 0;
  REQUIRE(hsaKmtDbgEnable(&info, &size) == HSAKMT_STATUS_SUCCESS);
  struct Tamper {
    static int Fn(void*, uint32_t request, void* reply, size_t size, int result) {
      if (request == k::kIocDbgTrap && size == sizeof(k::DbgTrapArgs)) {
        auto* a = static_cast<k::DbgTrapArgs*>(reply);
        if (a->op == k::kDbgTrapGetQueueSnapshot) a->queue_snapshot.num_queues = 0xFFFFFFFFu;
      }
      return result;
    }
  };
  kfdsim_set_tamper(b.sim(), &Tamper::Fn, nullptr);
  b.ClearTrace();
  Poisoned<void*> data;
  Poisoned<HSAuint32> n;
  Poisoned<HSAuint32> entry;
  CHECK(hsaKmtDbgGetQueueData(&data.v, &n.v, &entry.v, false) == HSAKMT_STATUS_OUT_OF_RESOURCES);
  kfdsim_set_tamper(b.sim(), nullptr, nullptr);
  CHECK(data.untouched());
  CHECK(Count(b.Ioctls(), "DBG_TRAP") == 1);
  CHECK(b.LastDiag().find("kMaxQueues") != std::string::npos);
}

// ------------------------------------------------------- raw DBG_TRAP

TEST_CASE(
    "DebugTrapIoctl writes the KFD ids of the given HSA_QUEUEIDs into the op's array and copies "
    "the reply back") {
  SimBoard b(nullptr, "datacenter-4gpu");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  const uint32_t node = misctest::FirstGpuNode();
  REQUIRE(hsaKmtRuntimeEnable(nullptr, false) == HSAKMT_STATUS_SUCCESS);
  const HSA_QUEUEID q = SdmaQueue(node);
  void* info = nullptr;
  HSAuint32 size = 0;
  REQUIRE(hsaKmtDbgEnable(&info, &size) == HSAKMT_STATUS_SUCCESS);
  uint32_t ids[1] = {0xA5A5A5A5u};
  k::DbgTrapArgs a{};
  a.pid = static_cast<uint32_t>(getpid());
  a.op = k::kDbgTrapSuspendQueues;
  a.suspend_queues.queue_array_ptr = reinterpret_cast<uintptr_t>(ids);
  a.suspend_queues.num_queues = 1;
  HSA_QUEUEID handles[1] = {q};
  HSAuint64 ret = 0xA5A5A5A5u;
  b.ClearTrace();
  REQUIRE(hsaKmtDebugTrapIoctl(reinterpret_cast<kfd_ioctl_dbg_trap_args*>(&a), handles, &ret) ==
          HSAKMT_STATUS_SUCCESS);
  CHECK(ret == 0);
  CHECK(ids[0] == KernelId(q));
  CHECK(Count(b.Ioctls(), "DBG_TRAP") == 1);
  // Suspending it again: the kernel marks the entry with its error bit.
  a.op = k::kDbgTrapSuspendQueues;
  REQUIRE(hsaKmtDebugTrapIoctl(reinterpret_cast<kfd_ioctl_dbg_trap_args*>(&a), handles, &ret) ==
          HSAKMT_STATUS_SUCCESS);
  CHECK(ids[0] == (KernelId(q) | 0x80000000u));
  // Resume through the resume member.
  k::DbgTrapArgs r{};
  r.pid = static_cast<uint32_t>(getpid());
  r.op = k::kDbgTrapResumeQueues;
  r.resume_queues.queue_array_ptr = reinterpret_cast<uintptr_t>(ids);
  r.resume_queues.num_queues = 1;
  REQUIRE(hsaKmtDebugTrapIoctl(reinterpret_cast<kfd_ioctl_dbg_trap_args*>(&r), handles, nullptr) ==
          HSAKMT_STATUS_SUCCESS);
  CHECK(ids[0] == KernelId(q));
  REQUIRE(hsaKmtDestroyQueue(q) == HSAKMT_STATUS_SUCCESS);
}

TEST_CASE(
    "DebugTrapIoctl refuses stale handles (INVALID_HANDLE), handles with other ops and NULL args, "
    "writing nothing") {
  SimBoard b(nullptr, "datacenter-4gpu");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  const uint32_t node = misctest::FirstGpuNode();
  const HSA_QUEUEID q = SdmaQueue(node);
  REQUIRE(hsaKmtDestroyQueue(q) == HSAKMT_STATUS_SUCCESS);
  uint32_t ids[1] = {0xA5A5A5A5u};
  k::DbgTrapArgs a{};
  a.pid = static_cast<uint32_t>(getpid());
  a.op = k::kDbgTrapSuspendQueues;
  a.suspend_queues.queue_array_ptr = reinterpret_cast<uintptr_t>(ids);
  a.suspend_queues.num_queues = 1;
  const k::DbgTrapArgs before = a;
  HSA_QUEUEID handles[1] = {q};
  Poisoned<HSAuint64> ret;
  b.ClearTrace();
  CHECK(hsaKmtDebugTrapIoctl(reinterpret_cast<kfd_ioctl_dbg_trap_args*>(&a), handles, &ret.v) ==
        HSAKMT_STATUS_INVALID_HANDLE);
  CHECK(ids[0] == 0xA5A5A5A5u);
  CHECK(ret.untouched());
  CHECK(std::memcmp(&a, &before, sizeof(a)) == 0);
  CHECK(b.LastDiag().find("not a live queue") != std::string::npos);
  a.op = k::kDbgTrapGetDeviceSnapshot;
  CHECK(hsaKmtDebugTrapIoctl(reinterpret_cast<kfd_ioctl_dbg_trap_args*>(&a), handles, &ret.v) ==
        HSAKMT_STATUS_INVALID_PARAMETER);
  CHECK(hsaKmtDebugTrapIoctl(nullptr, nullptr, &ret.v) == HSAKMT_STATUS_INVALID_PARAMETER);
  CHECK(b.Ioctls().empty());
}

TEST_CASE(
    "DebugTrapIoctl passes other ops through; a refusal is ERROR and leaves the caller's args and "
    "return value untouched") {
  SimBoard b(nullptr, "datacenter-4gpu");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  k::DbgTrapArgs a{};
  a.pid = static_cast<uint32_t>(getpid());
  a.op = k::kDbgTrapSetFlags;  // debug trapping is not enabled: EINVAL
  a.set_flags.flags = 1;
  const k::DbgTrapArgs before = a;
  Poisoned<HSAuint64> ret;
  CHECK(hsaKmtDebugTrapIoctl(reinterpret_cast<kfd_ioctl_dbg_trap_args*>(&a), nullptr, &ret.v) ==
        HSAKMT_STATUS_ERROR);
  CHECK(std::memcmp(&a, &before, sizeof(a)) == 0);
  CHECK(ret.untouched());
  CHECK(b.LastDiag().find("DBG_TRAP failed: EINVAL") != std::string::npos);
  const auto args = b.Args("DBG_TRAP");
  REQUIRE(args.size() == 1);
  CHECK(SimBoard::As<k::DbgTrapArgs>(args[0]).op == k::kDbgTrapSetFlags);
  // A pid the simulator does not serve: ESRCH.
  a.pid = 0x7fffffff;
  CHECK(hsaKmtDebugTrapIoctl(reinterpret_cast<kfd_ioctl_dbg_trap_args*>(&a), nullptr, nullptr) ==
        HSAKMT_STATUS_ERROR);
  CHECK(b.LastDiag().find("ESRCH") != std::string::npos);
}

// ------------------------------------------------------ debug events

namespace {

HSAKMT_STATUS Trap(k::DbgTrapArgs* a) {
  a->pid = static_cast<uint32_t>(getpid());
  HSAuint64 ret = 0;
  return hsaKmtDebugTrapIoctl(reinterpret_cast<kfd_ioctl_dbg_trap_args*>(a), nullptr, &ret);
}

}  // namespace

TEST_CASE(
    "DebugTrapIoctl ENABLE takes a FIFO as the debugger's event file: RuntimeEnable and "
    "CreateQueue each write one byte, QUERY_DEBUG_EVENT names the queue") {
  SimBoard b(nullptr, "datacenter-4gpu");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  const uint32_t node = hketest::FirstGpuNode();
  hketest::EventFifo fifo;
  k::RuntimeInfo info{};
  k::DbgTrapArgs a{};
  a.op = k::kDbgTrapEnable;
  a.enable.rinfo_ptr = reinterpret_cast<uintptr_t>(&info);
  a.enable.rinfo_size = sizeof(info);
  a.enable.dbg_fd = static_cast<uint32_t>(fifo.fd);
  a.enable.exception_mask = k::EcMask(k::kEcQueueNew) | k::EcMask(k::kEcProcessRuntime);
  REQUIRE(Trap(&a) == HSAKMT_STATUS_SUCCESS);
  CHECK(fifo.Drain() == 0);
  int r_debug = 0;
  REQUIRE(hsaKmtRuntimeEnable(&r_debug, true) == HSAKMT_STATUS_SUCCESS);
  CHECK(fifo.Drain() == 1);
  k::DbgTrapArgs q{};
  q.op = k::kDbgTrapQueryDebugEvent;
  q.query_debug_event.exception_mask = k::EcMask(k::kEcProcessRuntime);
  REQUIRE(Trap(&q) == HSAKMT_STATUS_SUCCESS);
  CHECK(q.query_debug_event.exception_mask == k::EcMask(k::kEcProcessRuntime));
  const HSA_QUEUEID queue = SdmaQueue(node);
  CHECK(fifo.Drain() == 1);
  q = k::DbgTrapArgs{};
  q.op = k::kDbgTrapQueryDebugEvent;
  q.query_debug_event.exception_mask = k::EcMask(k::kEcQueueNew);
  REQUIRE(Trap(&q) == HSAKMT_STATUS_SUCCESS);
  CHECK(q.query_debug_event.exception_mask == k::EcMask(k::kEcQueueNew));
  CHECK(q.query_debug_event.queue_id == KernelId(queue));
  CHECK(q.query_debug_event.gpu_id == GpuId(node));
  // Nothing else is pending: the kernel's EAGAIN.
  q = k::DbgTrapArgs{};
  q.op = k::kDbgTrapQueryDebugEvent;
  CHECK(Trap(&q) == HSAKMT_STATUS_ERROR);
  CHECK(b.LastDiag().find("EAGAIN") != std::string::npos);
  REQUIRE(hsaKmtDestroyQueue(queue) == HSAKMT_STATUS_SUCCESS);
  k::DbgTrapArgs d{};
  d.op = k::kDbgTrapDisable;
  REQUIRE(Trap(&d) == HSAKMT_STATUS_SUCCESS);
}

TEST_CASE(
    "DbgEnable's event file is the KFD descriptor: queues still work and the simulated /dev/kfd "
    "is never written") {
  SimBoard b(nullptr, "datacenter-4gpu");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  int r_debug = 0;
  REQUIRE(hsaKmtRuntimeEnable(&r_debug, true) == HSAKMT_STATUS_SUCCESS);
  struct stat before{};
  REQUIRE(fstat(KfdFd(), &before) == 0);
  void* info = nullptr;
  HSAuint32 size = 0;
  REQUIRE(hsaKmtDbgEnable(&info, &size) == HSAKMT_STATUS_SUCCESS);
  const HSA_QUEUEID q = SdmaQueue(hketest::FirstGpuNode());
  struct stat after{};
  REQUIRE(fstat(KfdFd(), &after) == 0);
  CHECK(after.st_size == before.st_size);
  REQUIRE(hsaKmtDestroyQueue(q) == HSAKMT_STATUS_SUCCESS);
  REQUIRE(hsaKmtDbgDisable() == HSAKMT_STATUS_SUCCESS);
}
