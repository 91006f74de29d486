// What stops a kernel, and how the KFD hears of it, through the library's
// API: a store to unmapped memory and to a read-only BO set the MEMORY
// event with the page and the failure kind and stop the queue with
// EC_QUEUE_WAVE_MEMORY_VIOLATION; an illegal encoding and s_trap 2 stop it
// with their queue exception codes in the queue's ErrorReason (runtime
// enabled); s_trap 3 without a debugger returns; s_sendmsg MSG_INTERRUPT
// sets the signal event whose id M0 carries.
#include <doctest/doctest.h>
#include <sys/mman.h>

#include <cstdint>
#include <string>

#include "lib/kfd/abi.h"
#include "tests/sim_shader/boards.h"
#include "tests/sim_shader/shader_rig.h"

namespace {

using shadertest::Launch;
using shadertest::ShaderRig;
using shadertest::Va;
namespace k = hke::kfd;

template <typename Args>
Launch WithArgs(const Args& a, uint8_t (&buf)[256]) {
  std::memset(buf, 0, sizeof(buf));
  std::memcpy(buf, &a, sizeof(a));
  Launch l;
  l.kernarg = buf;
  return l;
}

HsaEvent* MemoryEvent(uint32_t node) {
  HsaEventDescriptor d{};
  d.EventType = HSA_EVENTTYPE_MEMORY;
  d.NodeId = node;
  HsaEvent* e = nullptr;
  REQUIRE(hsaKmtCreateEvent(&d, true, false, &e) == HSAKMT_STATUS_SUCCESS);
  return e;
}

// A page-aligned address nothing is mapped at (reserved, then released).
uint64_t UnmappedAddress() {
  void* p = mmap(nullptr, 1 << 20, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(p != MAP_FAILED);
  munmap(p, 1 << 20);
  return Va(p) + 0x8000;
}

}  // namespace

TEST_CASE("a kernel storing to unmapped memory: the MEMORY event carries the page and NotPresent, the queue stops with EC_QUEUE_WAVE_MEMORY_VIOLATION, the packet never completes") {
  for (const shadertest::BoardRef& br : shadertest::Gfx9Boards()) {
    const std::string board_name = br.name;
    CAPTURE(board_name);
    ShaderRig rig(br.tree, br.board, /*runtime_enable=*/true);
    HsaEvent* mem = MemoryEvent(rig.node());
    const uint64_t bad = UnmappedAddress() + 0x124;
    struct {
      uint64_t addr;
    } args{bad};
    uint8_t ka[256];
    rig.Submit(rig.Load(shadertest::kExceptions, "fault_store"), WithArgs(args, ka));
    REQUIRE(hsaKmtWaitOnEvent(mem, 10000) == HSAKMT_STATUS_SUCCESS);
    const HsaMemoryAccessFault& f = mem->EventData.EventData.MemoryAccessFault;
    CHECK(f.VirtualAddress == (bad & ~uint64_t{4095}));
    CHECK(f.NodeId == rig.node());
    CHECK(f.Failure.NotPresent == 1);
    CHECK(f.Failure.ReadOnly == 0);
    REQUIRE(hsaKmtWaitOnEvent(rig.error_event(), 10000) == HSAKMT_STATUS_SUCCESS);
    CHECK(rig.error_reason() == static_cast<int64_t>(k::EcMask(k::kEcQueueWaveMemoryViolation)));
    std::string why;
    const kfdsim_queue_info info = rig.QueueStatus(&why);
    INFO(why);
    CHECK(info.state == KFDSIM_QUEUE_ERROR);
    CHECK(info.exception_code == k::kEcQueueWaveMemoryViolation);
    CHECK(info.fault_va == bad);
    CHECK(why.find("unmapped") != std::string::npos);
    CHECK(rig.signal_value() == 1);
    CHECK(hsaKmtDestroyEvent(mem) == HSAKMT_STATUS_SUCCESS);
  }
}

TEST_CASE("a kernel storing to a read-only BO: the MEMORY event says ReadOnly, the BO is unchanged, the queue stops") {
  for (const shadertest::BoardRef& br : shadertest::Gfx9Boards()) {
    const std::string board_name = br.name;
    CAPTURE(board_name);
    ShaderRig rig(br.tree, br.board, /*runtime_enable=*/true);
    HsaEvent* mem = MemoryEvent(rig.node());
    auto* ro = static_cast<uint32_t*>(rig.Vram(4096, /*read_only=*/true));
    struct {
      uint64_t addr;
    } args{Va(ro) + 64};
    uint8_t ka[256];
    rig.Submit(rig.Load(shadertest::kExceptions, "fault_store"), WithArgs(args, ka));
    REQUIRE(hsaKmtWaitOnEvent(mem, 10000) == HSAKMT_STATUS_SUCCESS);
    const HsaMemoryAccessFault& f = mem->EventData.EventData.MemoryAccessFault;
    CHECK(f.VirtualAddress == Va(ro));
    CHECK(f.Failure.ReadOnly == 1);
    CHECK(f.Failure.NotPresent == 0);
    CHECK(ro[16] != 0xdeadu);
    REQUIRE(hsaKmtWaitOnEvent(rig.error_event(), 10000) == HSAKMT_STATUS_SUCCESS);
    CHECK(rig.QueueStatus().exception_code == k::kEcQueueWaveMemoryViolation);
    CHECK(hsaKmtDestroyEvent(mem) == HSAKMT_STATUS_SUCCESS);
  }
}

TEST_CASE("an illegal encoding stops the queue with EC_QUEUE_WAVE_ILLEGAL_INSTRUCTION in ErrorReason and names the word") {
  for (const shadertest::BoardRef& br : shadertest::Gfx9Boards()) {
    const std::string board_name = br.name;
    CAPTURE(board_name);
    ShaderRig rig(br.tree, br.board, /*runtime_enable=*/true);
    Launch l;
    rig.Submit(rig.Load(shadertest::kExceptions, "illegal"), l);
    REQUIRE(hsaKmtWaitOnEvent(rig.error_event(), 10000) == HSAKMT_STATUS_SUCCESS);
    CHECK(rig.error_reason() == static_cast<int64_t>(k::EcMask(k::kEcQueueWaveIllegalInstruction)));
    std::string why;
    const kfdsim_queue_info info = rig.QueueStatus(&why);
    INFO(why);
    CHECK(info.exception_code == k::kEcQueueWaveIllegalInstruction);
    CHECK(why.find("illegal instruction 0xffffffff") != std::string::npos);
    CHECK(rig.signal_value() == 1);
  }
}

TEST_CASE("s_trap 2 aborts: EC_QUEUE_WAVE_ABORT; s_trap 3 without a debugger returns and the kernel completes") {
  for (const shadertest::BoardRef& br : shadertest::Gfx9Boards()) {
    const std::string board_name = br.name;
    CAPTURE(board_name);
    {
      ShaderRig rig(br.tree, br.board, /*runtime_enable=*/true);
      auto* flag = static_cast<uint32_t*>(rig.Gtt(4096));
      struct {
        uint64_t addr;
      } args{Va(flag)};
      uint8_t ka[256];
      REQUIRE(rig.Dispatch(rig.Load(shadertest::kExceptions, "debugtrap"), WithArgs(args, ka)));
      CHECK(flag[0] == 1u);
    }
    ShaderRig rig(br.tree, br.board, /*runtime_enable=*/true);
    Launch l;
    rig.Submit(rig.Load(shadertest::kExceptions, "trap_abort"), l);
    REQUIRE(hsaKmtWaitOnEvent(rig.error_event(), 10000) == HSAKMT_STATUS_SUCCESS);
    CHECK(rig.error_reason() == static_cast<int64_t>(k::EcMask(k::kEcQueueWaveAbort)));
    CHECK(rig.QueueStatus().exception_code == k::kEcQueueWaveAbort);
  }
}

TEST_CASE("s_sendmsg MSG_INTERRUPT with an event id in M0 sets that signal event before the kernel completes") {
  for (const shadertest::BoardRef& br : shadertest::Gfx9Boards()) {
    const std::string board_name = br.name;
    CAPTURE(board_name);
    ShaderRig rig(br.tree, br.board);
    HsaEventDescriptor d{};
    d.EventType = HSA_EVENTTYPE_SIGNAL;
    d.NodeId = rig.node();
    d.SyncVar.SyncVarSize = sizeof(HSAuint64);
    HsaEvent* ev = nullptr;
    REQUIRE(hsaKmtCreateEvent(&d, false, false, &ev) == HSAKMT_STATUS_SUCCESS);
    auto* flag = static_cast<uint32_t*>(rig.Gtt(4096));
    struct {
      uint64_t slot;
      uint32_t id, pad;
      uint64_t flag;
    } args{ev->EventData.HWData2, ev->EventId, 0, Va(flag)};
    uint8_t ka[256];
    CHECK(hsaKmtWaitOnEvent(ev, 0) == HSAKMT_STATUS_WAIT_TIMEOUT);
    REQUIRE(rig.Dispatch(rig.Load(shadertest::kExceptions, "sendmsg"), WithArgs(args, ka)));
    CHECK(flag[0] == 1u);
    CHECK(hsaKmtWaitOnEvent(ev, 0) == HSAKMT_STATUS_SUCCESS);
    CHECK(hsaKmtDestroyEvent(ev) == HSAKMT_STATUS_SUCCESS);
  }
}
