// The legacy entry points: the deprecated debugger calls still issue their
// ioctls (current kernels answer EPERM, so they are ERROR, as upstream),
// and the functions upstream answers with a fixed status.
#include <cerrno>
#include <cstring>

#include "doctest/doctest.h"
#include "lib/kfd/abi.h"
#include "lib/kfd/encode.h"
#include "tests/misc_api/support.h"

using hketest::SimBoard;
using misctest::Count;
using misctest::GpuId;
using misctest::Poisoned;
namespace k = hke::kfd;

TEST_CASE(
    "DbgRegister and DbgUnregister send the node's gpu_id in the deprecated ioctls and report the "
    "kernel's EPERM as ERROR") {
  SimBoard b(nullptr, "datacenter-4gpu");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  const uint32_t node = misctest::FirstGpuNode();
  b.ClearTrace();
  CHECK(hsaKmtDbgRegister(node) == HSAKMT_STATUS_ERROR);
  CHECK(b.LastDiag().find("EPERM") != std::string::npos);
  CHECK(hsaKmtDbgUnregister(node) == HSAKMT_STATUS_ERROR);
  const auto reg = b.Args("DBG_REGISTER_DEPRECATED");
  const auto unreg = b.Args("DBG_UNREGISTER_DEPRECATED");
  REQUIRE(reg.size() == 1);
  REQUIRE(unreg.size() == 1);
  CHECK(SimBoard::As<k::DbgRegisterArgs>(reg[0]).gpu_id == GpuId(node));
  CHECK(SimBoard::As<k::DbgUnregisterArgs>(unreg[0]).gpu_id == GpuId(node));
}

TEST_CASE("DbgRegister refuses a node outside the topology and a closed device before any ioctl") {
  SimBoard b(nullptr, "datacenter-4gpu");
  CHECK(hsaKmtDbgRegister(0) == HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED);
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  const uint32_t n = misctest::NumNodes();
  b.ClearTrace();
  CHECK(hsaKmtDbgRegister(n) == HSAKMT_STATUS_INVALID_NODE_UNIT);
  CHECK(hsaKmtDbgUnregister(n) == HSAKMT_STATUS_INVALID_NODE_UNIT);
  CHECK(b.Ioctls().empty());
}

TEST_CASE("DbgRegister succeeds when a kernel accepts the deprecated ioctl") {
  SimBoard b(nullptr, "datacenter-4gpu");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  const uint32_t node = misctest::FirstGpuNode();
  struct Tamper {
    static int Fn(void*, uint32_t request, void*, size_t, int result) {
      return request == k::kIocDbgRegisterDeprecated ? 0 : result;
    }
  };
  kfdsim_set_tamper(b.sim(), &Tamper::Fn, nullptr);
  CHECK(hsaKmtDbgRegister(node) == HSAKMT_STATUS_SUCCESS);
  kfdsim_set_tamper(b.sim(), nullptr, nullptr);
}

TEST_CASE(
    "DbgWavefrontControl sends upstream's 44-byte packed buffer; the kernel's EPERM is ERROR") {
  SimBoard b(nullptr, "datacenter-4gpu");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  const uint32_t node = misctest::FirstGpuNode();
  HsaDbgWaveMessage msg{};
  msg.MemoryVA = reinterpret_cast<void*>(uintptr_t{0x1000});
  msg.DbgWaveMsg.WaveMsgInfoGen2.Value = 0x1234;
  b.ClearTrace();
  CHECK(hsaKmtDbgWavefrontControl(node, HSA_DBG_WAVEOP_HALT, HSA_DBG_WAVEMODE_BROADCAST_PROCESS, 7,
                                  &msg) == HSAKMT_STATUS_ERROR);
  const auto args = b.Args("DBG_WAVE_CONTROL_DEPRECATED");
  REQUIRE(args.size() == 1);
  const auto wave = SimBoard::As<k::DbgWaveControlArgs>(args[0]);
  CHECK(wave.content_ptr != 0);
  CHECK(wave.gpu_id == GpuId(node));
  CHECK(wave.buf_size_in_bytes == k::kLegacyWaveControlBytes);
  CHECK(k::kLegacyWaveControlBytes == 44);
}

TEST_CASE(
    "DbgWavefrontControl refuses a NULL message, an unknown operand or mode before any ioctl") {
  SimBoard b(nullptr, "datacenter-4gpu");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  const uint32_t node = misctest::FirstGpuNode();
  HsaDbgWaveMessage msg{};
  b.ClearTrace();
  CHECK(hsaKmtDbgWavefrontControl(node, HSA_DBG_WAVEOP_HALT, HSA_DBG_WAVEMODE_SINGLE, 0, nullptr) ==
        HSAKMT_STATUS_INVALID_PARAMETER);
  CHECK(hsaKmtDbgWavefrontControl(node, static_cast<HSA_DBG_WAVEOP>(9), HSA_DBG_WAVEMODE_SINGLE, 0,
                                  &msg) == HSAKMT_STATUS_INVALID_PARAMETER);
  CHECK(b.LastDiag().find("unknown operand or mode") != std::string::npos);
  CHECK(hsaKmtDbgWavefrontControl(node, HSA_DBG_WAVEOP_KILL, static_cast<HSA_DBG_WAVEMODE>(1), 0,
                                  &msg) == HSAKMT_STATUS_INVALID_PARAMETER);
  CHECK(b.Ioctls().empty());
}

TEST_CASE(
    "DbgAddressWatch packs per-point masks and events like upstream: 16 + 4 + 12n + 8n + 8n "
    "bytes") {
  SimBoard b(nullptr, "datacenter-4gpu");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  const uint32_t node = misctest::FirstGpuNode();
  HSA_DBG_WATCH_MODE modes[2] = {HSA_DBG_WATCH_READ, HSA_DBG_WATCH_ALL};
  void* addrs[2] = {reinterpret_cast<void*>(uintptr_t{0x1000}),
                    reinterpret_cast<void*>(uintptr_t{0x2000})};
  HSAuint64 masks[2] = {0xfff, 0xff};
  HsaEvent* events[2] = {nullptr, nullptr};
  b.ClearTrace();
  CHECK(hsaKmtDbgAddressWatch(node, 2, modes, addrs, masks, events) == HSAKMT_STATUS_ERROR);
  HSAuint64 one_mask[1] = {0};  // masks[0] == 0: one mask for all points, as upstream reads it
  CHECK(hsaKmtDbgAddressWatch(node, 2, modes, addrs, one_mask, nullptr) == HSAKMT_STATUS_ERROR);
  const auto args = b.Args("DBG_ADDRESS_WATCH_DEPRECATED");
  REQUIRE(args.size() == 2);
  const auto each_mask = SimBoard::As<k::DbgAddressWatchArgs>(args[0]);
  CHECK(each_mask.gpu_id == GpuId(node));
  CHECK(each_mask.buf_size_in_bytes == 16 + 4 + 2 * 12 + 2 * 8 + 2 * 8);
  CHECK(SimBoard::As<k::DbgAddressWatchArgs>(args[1]).buf_size_in_bytes == 16 + 4 + 2 * 12 + 8);
}

TEST_CASE(
    "DbgAddressWatch refuses no points, more than 100, NULL arrays and unknown modes before any "
    "ioctl") {
  SimBoard b(nullptr, "datacenter-4gpu");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  const uint32_t node = misctest::FirstGpuNode();
  HSA_DBG_WATCH_MODE modes[101] = {};
  void* addrs[101] = {};
  HSAuint64 masks[101] = {};
  b.ClearTrace();
  CHECK(hsaKmtDbgAddressWatch(node, 0, modes, addrs, masks, nullptr) ==
        HSAKMT_STATUS_INVALID_PARAMETER);
  CHECK(hsaKmtDbgAddressWatch(node, 101, modes, addrs, masks, nullptr) ==
        HSAKMT_STATUS_INVALID_PARAMETER);
  CHECK(hsaKmtDbgAddressWatch(node, 1, nullptr, addrs, masks, nullptr) ==
        HSAKMT_STATUS_INVALID_PARAMETER);
  CHECK(hsaKmtDbgAddressWatch(node, 1, modes, addrs, nullptr, nullptr) ==
        HSAKMT_STATUS_INVALID_PARAMETER);
  modes[0] = static_cast<HSA_DBG_WATCH_MODE>(4);
  CHECK(hsaKmtDbgAddressWatch(node, 1, modes, addrs, masks, nullptr) ==
        HSAKMT_STATUS_INVALID_PARAMETER);
  CHECK(b.LastDiag().find("watch mode") != std::string::npos);
  CHECK(b.Ioctls().empty());
}

TEST_CASE(
    "ProcessVMRead, ProcessVMWrite and MapGraphicHandle return upstream's NOT_IMPLEMENTED and "
    "write nothing") {
  SimBoard b(nullptr, "datacenter-4gpu");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  HsaMemoryRange local{};
  HsaMemoryRange remote{};
  Poisoned<HSAuint64> copied;
  CHECK(hsaKmtProcessVMRead(1, &local, 1, &remote, 1, &copied.v) == HSAKMT_STATUS_NOT_IMPLEMENTED);
  CHECK(hsaKmtProcessVMWrite(1, &local, 1, &remote, 1, &copied.v) == HSAKMT_STATUS_NOT_IMPLEMENTED);
  Poisoned<HSAuint64> flat;
  CHECK(hsaKmtMapGraphicHandle(0, 1, 2, 0, 4096, &flat.v) == HSAKMT_STATUS_NOT_IMPLEMENTED);
  CHECK(copied.untouched());
  CHECK(flat.untouched());
}

TEST_CASE("ReportQueue is NOT_SUPPORTED (Southern Islands only) and writes nothing") {
  SimBoard b(nullptr, "datacenter-4gpu");
  Poisoned<HsaQueueReport> rep;
  CHECK(hsaKmtReportQueue(1, &rep.v) == HSAKMT_STATUS_NOT_SUPPORTED);
  CHECK(rep.untouched());
}

TEST_CASE(
    "ModelEnabled reports false (the simulator emulates the driver, not a GPU model); NULL is "
    "INVALID_PARAMETER") {
  SimBoard b(nullptr, "datacenter-4gpu");
  bool enabled = true;
  CHECK(hsaKmtModelEnabled(&enabled) == HSAKMT_STATUS_SUCCESS);
  CHECK_FALSE(enabled);
  CHECK(hsaKmtModelEnabled(nullptr) == HSAKMT_STATUS_INVALID_PARAMETER);
}
