// Work submitted through queues made by the hsaKmt* API and executed by the
// in-process simulator's engines (its engine thread starts with the first
// queue): SDMA copies, PM4 RELEASE_MEM and AQL barriers that wake event
// waits, ring wraparound on every queue type, and an invalid kernel
// dispatch (null kernel_object) that raises the queue error event instead
// of completing.
#include <atomic>
#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

#include "lib/context/context.h"
#include "lib/kfd/abi.h"
#include "lib/queues/queues.h"
#include "tests/queues/support.h"

using hketest::SimBoard;
using queuetest::FirstGpuNode;
using queuetest::Gtt;
using queuetest::Vram;

namespace {

HsaEvent* SignalEvent(uint32_t node) {
  HsaEventDescriptor d{};
  d.EventType = HSA_EVENTTYPE_SIGNAL;
  d.NodeId = node;
  d.SyncVar.SyncVarSize = sizeof(HSAuint64);
  HsaEvent* e = nullptr;
  REQUIRE(hsaKmtCreateEvent(&d, false, false, &e) == HSAKMT_STATUS_SUCCESS);
  return e;
}

// A ring of dwords addressed by a monotonic write pointer in bytes.
struct Ring {
  volatile uint32_t* base;
  uint64_t size;
  uint64_t wptr = 0;
  void Put(uint32_t dw) {
    base[(wptr % size) / 4] = dw;
    wptr += 4;
  }
};

// ---- SDMA (SOC15 formats) ----
void SdmaCopy(Ring& r, uint64_t dst, uint64_t src, uint32_t bytes) {
  r.Put(1u);
  r.Put(bytes - 1u);
  r.Put(0u);
  r.Put(static_cast<uint32_t>(src));
  r.Put(static_cast<uint32_t>(src >> 32));
  r.Put(static_cast<uint32_t>(dst));
  r.Put(static_cast<uint32_t>(dst >> 32));
}
void SdmaFence(Ring& r, uint64_t addr, uint32_t data) {
  r.Put(5u);
  r.Put(static_cast<uint32_t>(addr));
  r.Put(static_cast<uint32_t>(addr >> 32));
  r.Put(data);
}
void SdmaTrap(Ring& r, uint32_t ctx) {
  r.Put(6u);
  r.Put(ctx & 0x0FFFFFFFu);
}
// FENCE of the event id into the event's slot, then TRAP: the event fires.
void SdmaSignal(Ring& r, const HsaEvent* ev) {
  SdmaFence(r, ev->EventData.HWData2, ev->EventId);
  SdmaTrap(r, ev->EventId);
}

// ---- PM4 type-3 (gfx9) ----
uint32_t Pm4Header(uint32_t opcode, uint32_t body_dwords) {
  return (3u << 30) | ((body_dwords - 1u) << 16) | (opcode << 8);
}
void Pm4WriteData(Ring& r, uint64_t addr, uint32_t value) {
  r.Put(Pm4Header(0x37, 4));
  r.Put((5u << 8) | (1u << 20));  // dst_sel memory, write confirm
  r.Put(static_cast<uint32_t>(addr));
  r.Put(static_cast<uint32_t>(addr >> 32));
  r.Put(value);
}
// RELEASE_MEM writing the event id (64-bit) into its slot, with the
// end-of-pipe interrupt carrying the event id.
void Pm4ReleaseMem(Ring& r, const HsaEvent* ev) {
  const uint64_t slot = ev->EventData.HWData2;
  r.Put(Pm4Header(0x49, 7));
  r.Put(0x14u | (5u << 8));                  // CACHE_FLUSH_AND_INV_TS_EVENT, EOP
  r.Put((2u << 29) | (2u << 24) | (0u << 16));  // data_sel 64-bit, int_sel on confirm, memory
  r.Put(static_cast<uint32_t>(slot));
  r.Put(static_cast<uint32_t>(slot >> 32));
  r.Put(ev->EventId);
  r.Put(0u);
  r.Put(ev->EventId);  // INT_CTXID
}
void Pm4Nop(Ring& r, uint32_t body) {
  r.Put(Pm4Header(0x10, body));
  for (uint32_t i = 0; i < body; ++i) r.Put(0xDEADBEEFu);
}

void Ring64(HsaQueueResource& q, uint64_t value) {
  __atomic_store_n(q.Queue_write_ptr_aql, value, __ATOMIC_RELEASE);
  __atomic_store_n(q.Queue_DoorBell_aql, value, __ATOMIC_RELEASE);
}

// ---- AQL ----
struct alignas(64) AqlPointers {
  uint64_t read_dispatch_id = 0;
  uint64_t pad0[7];
  uint64_t write_dispatch_id = 0;
};
struct alignas(64) AmdSignal {
  int64_t kind;
  int64_t value;
  uint64_t event_mailbox_ptr;
  uint32_t event_id;
  uint32_t reserved1;
  uint64_t start_ts, end_ts, reserved2;
  uint32_t reserved3[2];
};
static_assert(sizeof(AmdSignal) == 64, "amd_signal_t");
constexpr uint16_t kAqlInvalid = 1, kAqlDispatch = 2, kAqlBarrierAnd = 3, kAqlBarrierOr = 5;
constexpr uint16_t kAqlBarrierBit = 1u << 8;
constexpr uint16_t kAqlScopes = (2u << 9) | (2u << 11);

void AqlPacket(uint8_t* ring, uint64_t ring_size, uint64_t index, uint16_t type,
               const std::vector<uint64_t>& deps, uint64_t completion) {
  uint8_t* p = ring + (index * 64) % ring_size;
  std::memset(p + 2, 0, 62);
  for (size_t i = 0; i < deps.size() && i < 5; ++i) std::memcpy(p + 8 + 8 * i, &deps[i], 8);
  std::memcpy(p + 56, &completion, 8);
  const uint16_t header = static_cast<uint16_t>(type | kAqlBarrierBit | kAqlScopes);
  __atomic_store_n(reinterpret_cast<uint16_t*>(p), header, __ATOMIC_RELEASE);
}

}  // namespace

TEST_CASE("an SDMA copy from system memory to VRAM, then FENCE and TRAP, wakes an event wait with the right bytes") {
  SimBoard b(nullptr, "datacenter-4gpu");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  const uint32_t node = FirstGpuNode();
  constexpr uint64_t kBytes = 256 * 1024;
  auto* src = static_cast<uint8_t*>(Gtt(node, kBytes));
  auto* dst = static_cast<uint8_t*>(Vram(node, kBytes));
  for (uint64_t i = 0; i < kBytes; ++i) src[i] = static_cast<uint8_t>(i * 7 + 3);
  std::memset(dst, 0, kBytes);
  void* ring = Gtt(node, 4096);
  HsaEvent* ev = SignalEvent(node);
  HsaQueueResource q{};
  REQUIRE(hsaKmtCreateQueue(node, HSA_QUEUE_SDMA, 100, HSA_QUEUE_PRIORITY_NORMAL, ring, 4096,
                            nullptr, &q) == HSAKMT_STATUS_SUCCESS);
  Ring r{static_cast<volatile uint32_t*>(ring), 4096};
  SdmaCopy(r, reinterpret_cast<uintptr_t>(dst), reinterpret_cast<uintptr_t>(src), kBytes);
  SdmaSignal(r, ev);
  // A waiter blocked in another thread is woken by the engine's interrupt.
  std::atomic<int> wait_status{-1};
  std::thread waiter([&] { wait_status = hsaKmtWaitOnEvent(ev, 10000); });
  Ring64(q, r.wptr);
  waiter.join();
  CHECK(wait_status.load() == HSAKMT_STATUS_SUCCESS);
  CHECK(std::memcmp(src, dst, kBytes) == 0);
  CHECK(*q.Queue_read_ptr_aql == r.wptr);
  CHECK(hsaKmtDestroyQueue(q.QueueId) == HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtDestroyEvent(ev) == HSAKMT_STATUS_SUCCESS);
}

TEST_CASE("SDMA rings wrap: packets straddling the end of the ring run, round after round") {
  SimBoard b(nullptr, "apu-embedded");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  const uint32_t node = FirstGpuNode();
  auto* buf = static_cast<uint32_t*>(Gtt(node, 4096));
  void* ring = Gtt(node, 1024);
  HsaEvent* ev = SignalEvent(node);
  HsaQueueResource q{};
  REQUIRE(hsaKmtCreateQueue(node, HSA_QUEUE_SDMA, 100, HSA_QUEUE_PRIORITY_NORMAL, ring, 1024,
                            nullptr, &q) == HSAKMT_STATUS_SUCCESS);
  Ring r{static_cast<volatile uint32_t*>(ring), 1024};
  // 40 bytes per round against a 1 KiB ring: the packets cross its end
  // at every place a dword can.
  for (uint32_t round = 1; round <= 120; ++round) {
    CAPTURE(round);
    SdmaFence(r, reinterpret_cast<uintptr_t>(&buf[round % 1024]), round);
    SdmaSignal(r, ev);
    Ring64(q, r.wptr);
    REQUIRE(hsaKmtWaitOnEvent(ev, 10000) == HSAKMT_STATUS_SUCCESS);
    CHECK(__atomic_load_n(&buf[round % 1024], __ATOMIC_ACQUIRE) == round);
  }
  CHECK(r.wptr > 3 * 1024);
  CHECK(*q.Queue_read_ptr_aql == r.wptr);
  CHECK(hsaKmtDestroyQueue(q.QueueId) == HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtDestroyEvent(ev) == HSAKMT_STATUS_SUCCESS);
}

TEST_CASE("a PM4 RELEASE_MEM with interrupt signals an event; WRITE_DATA lands; the PM4 ring wraps") {
  SimBoard b(nullptr, "datacenter-4gpu");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  const uint32_t node = FirstGpuNode();
  auto* buf = static_cast<uint32_t*>(Gtt(node, 4096));
  void* ring = Gtt(node, 1024);
  HsaEvent* ev = SignalEvent(node);
  HsaQueueResource q{};
  REQUIRE(hsaKmtCreateQueue(node, HSA_QUEUE_COMPUTE, 100, HSA_QUEUE_PRIORITY_NORMAL, ring, 1024,
                            nullptr, &q) == HSAKMT_STATUS_SUCCESS);
  Ring r{static_cast<volatile uint32_t*>(ring), 1024};
  for (uint32_t round = 1; round <= 60; ++round) {
    CAPTURE(round);
    if (round % 7 == 0) Pm4Nop(r, round);  // odd sizes move the packets across the end
    Pm4WriteData(r, reinterpret_cast<uintptr_t>(&buf[round]), 0xA0000000u + round);
    Pm4ReleaseMem(r, ev);
    Ring64(q, r.wptr / 4);  // PM4 pointers count dwords
    REQUIRE(hsaKmtWaitOnEvent(ev, 10000) == HSAKMT_STATUS_SUCCESS);
    CHECK(__atomic_load_n(&buf[round], __ATOMIC_ACQUIRE) == 0xA0000000u + round);
  }
  CHECK(r.wptr > 2 * 1024);
  // The CP reports its read pointer as the ring offset (dwords, wrapped).
  CHECK(*q.Queue_read_ptr_aql == (r.wptr / 4) % (1024 / 4));
  CHECK(hsaKmtDestroyQueue(q.QueueId) == HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtDestroyEvent(ev) == HSAKMT_STATUS_SUCCESS);
}

TEST_CASE("AQL barrier-AND and barrier-OR packets wait for their dependencies and decrement their completion signal, which wakes its event; the ring wraps") {
  SimBoard b(nullptr, "datacenter-4gpu");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  const uint32_t node = FirstGpuNode();
  constexpr uint64_t kRing = 4096;  // 64 packets
  auto* ring = static_cast<uint8_t*>(Gtt(node, kRing));
  for (uint64_t i = 0; i < kRing; i += 64) {
    __atomic_store_n(reinterpret_cast<uint16_t*>(ring + i), kAqlInvalid, __ATOMIC_RELAXED);
  }
  auto* ptrs = static_cast<AqlPointers*>(Gtt(node, 4096));
  auto* sig = static_cast<AmdSignal*>(Gtt(node, 4096));  // [0] completion, [1], [2] deps
  HsaEvent* ev = SignalEvent(node);
  sig[0].kind = 1;
  sig[0].event_mailbox_ptr = ev->EventData.HWData2;
  sig[0].event_id = ev->EventId;
  HsaQueueResource q{};
  q.Queue_read_ptr_aql = &ptrs->read_dispatch_id;
  q.Queue_write_ptr_aql = &ptrs->write_dispatch_id;
  REQUIRE(hsaKmtCreateQueue(node, HSA_QUEUE_COMPUTE_AQL, 100, HSA_QUEUE_PRIORITY_NORMAL, ring,
                            kRing, nullptr, &q) == HSAKMT_STATUS_SUCCESS);
  const uint64_t completion = reinterpret_cast<uintptr_t>(&sig[0]);
  const uint64_t dep1 = reinterpret_cast<uintptr_t>(&sig[1]);
  const uint64_t dep2 = reinterpret_cast<uintptr_t>(&sig[2]);
  uint64_t index = 0;
  auto submit = [&](uint16_t type, std::vector<uint64_t> deps) {
    AqlPacket(ring, kRing, index, type, deps, completion);
    ++index;
    __atomic_store_n(&ptrs->write_dispatch_id, index, __ATOMIC_RELEASE);
    __atomic_store_n(q.Queue_DoorBell_aql, index - 1, __ATOMIC_RELEASE);
  };

  // Barrier-AND on two unsatisfied dependencies: nothing completes until both are 0.
  __atomic_store_n(&sig[0].value, int64_t{1}, __ATOMIC_RELEASE);
  __atomic_store_n(&sig[1].value, int64_t{1}, __ATOMIC_RELEASE);
  __atomic_store_n(&sig[2].value, int64_t{1}, __ATOMIC_RELEASE);
  submit(kAqlBarrierAnd, {dep1, dep2});
  CHECK(hsaKmtWaitOnEvent(ev, 50) == HSAKMT_STATUS_WAIT_TIMEOUT);
  __atomic_store_n(&sig[1].value, int64_t{0}, __ATOMIC_RELEASE);
  CHECK(hsaKmtWaitOnEvent(ev, 50) == HSAKMT_STATUS_WAIT_TIMEOUT);
  CHECK(__atomic_load_n(&sig[0].value, __ATOMIC_ACQUIRE) == 1);
  __atomic_store_n(&sig[2].value, int64_t{0}, __ATOMIC_RELEASE);
  REQUIRE(hsaKmtWaitOnEvent(ev, 10000) == HSAKMT_STATUS_SUCCESS);
  CHECK(__atomic_load_n(&sig[0].value, __ATOMIC_ACQUIRE) == 0);
  CHECK(__atomic_load_n(&ptrs->read_dispatch_id, __ATOMIC_ACQUIRE) == 1);

  // Barrier-OR: one satisfied dependency is enough.
  __atomic_store_n(&sig[0].value, int64_t{1}, __ATOMIC_RELEASE);
  __atomic_store_n(&sig[1].value, int64_t{1}, __ATOMIC_RELEASE);
  __atomic_store_n(&sig[2].value, int64_t{1}, __ATOMIC_RELEASE);
  submit(kAqlBarrierOr, {dep1, dep2});
  CHECK(hsaKmtWaitOnEvent(ev, 50) == HSAKMT_STATUS_WAIT_TIMEOUT);
  __atomic_store_n(&sig[2].value, int64_t{0}, __ATOMIC_RELEASE);
  REQUIRE(hsaKmtWaitOnEvent(ev, 10000) == HSAKMT_STATUS_SUCCESS);
  CHECK(__atomic_load_n(&sig[0].value, __ATOMIC_ACQUIRE) == 0);

  // 100 more barriers without dependencies, 10 per doorbell: the 64-packet
  // ring wraps; the completion signal counts them down.
  __atomic_store_n(&sig[0].value, int64_t{100}, __ATOMIC_RELEASE);
  for (int batch = 0; batch < 10; ++batch) {
    for (int i = 0; i < 10; ++i) submit(kAqlBarrierAnd, {});
    for (int spin = 0; spin < 100000 &&
                       __atomic_load_n(&ptrs->read_dispatch_id, __ATOMIC_ACQUIRE) != index;
         ++spin) {
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
    REQUIRE(__atomic_load_n(&ptrs->read_dispatch_id, __ATOMIC_ACQUIRE) == index);
  }
  CHECK(index == 102);
  CHECK(__atomic_load_n(&sig[0].value, __ATOMIC_ACQUIRE) == 0);
  // Processed packets are handed back as INVALID.
  CHECK((__atomic_load_n(reinterpret_cast<uint16_t*>(ring), __ATOMIC_ACQUIRE) & 0xFF) == kAqlInvalid);
  CHECK(hsaKmtDestroyQueue(q.QueueId) == HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtDestroyEvent(ev) == HSAKMT_STATUS_SUCCESS);
}

// The kernel reports queue errors to the runtime only after RUNTIME_ENABLE
// (kfd_set_dbg_ev_from_interrupt); hsaKmtRuntimeEnable belongs to the
// debug API (issue 8), so the test enables it with the raw ioctl.
void RuntimeEnable(SimBoard& b) {
  hke::kfd::RuntimeEnableArgs a{};
  a.mode_mask = hke::kfd::kRuntimeEnableModeEnable;
  REQUIRE(kfdsim_ioctl(b.sim(), hke_default_context()->impl.device().kfd_fd,
                       hke::kfd::kIocRuntimeEnable, &a) == 0);
}

TEST_CASE("a kernel dispatch with a null kernel_object: the queue stops with a reason, the error event fires with the exception in ErrorReason, the packet never completes") {
  SimBoard b(nullptr, "datacenter-4gpu");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  const uint32_t node = FirstGpuNode();
  RuntimeEnable(b);
  constexpr uint64_t kRing = 4096;
  auto* ring = static_cast<uint8_t*>(Gtt(node, kRing));
  for (uint64_t i = 0; i < kRing; i += 64) {
    __atomic_store_n(reinterpret_cast<uint16_t*>(ring + i), kAqlInvalid, __ATOMIC_RELAXED);
  }
  auto* ptrs = static_cast<AqlPointers*>(Gtt(node, 4096));
  auto* sig = static_cast<AmdSignal*>(Gtt(node, 4096));
  auto* error_reason = static_cast<int64_t*>(Gtt(node, 4096));
  HsaEvent* error_event = SignalEvent(node);
  HsaQueueResource q{};
  q.Queue_read_ptr_aql = &ptrs->read_dispatch_id;
  q.Queue_write_ptr_aql = &ptrs->write_dispatch_id;
  q.ErrorReason = error_reason;
  REQUIRE(hsaKmtCreateQueue(node, HSA_QUEUE_COMPUTE_AQL, 100, HSA_QUEUE_PRIORITY_NORMAL, ring,
                            kRing, error_event, &q) == HSAKMT_STATUS_SUCCESS);
  __atomic_store_n(&sig[0].value, int64_t{1}, __ATOMIC_RELEASE);
  AqlPacket(ring, kRing, 0, kAqlDispatch, {}, reinterpret_cast<uintptr_t>(&sig[0]));
  __atomic_store_n(&ptrs->write_dispatch_id, uint64_t{1}, __ATOMIC_RELEASE);
  __atomic_store_n(q.Queue_DoorBell_aql, uint64_t{0}, __ATOMIC_RELEASE);
  REQUIRE(hsaKmtWaitOnEvent(error_event, 10000) == HSAKMT_STATUS_SUCCESS);
  // EC_QUEUE_PACKET_DISPATCH_CODE_INVALID (18): bit 17 of the mask.
  CHECK(__atomic_load_n(error_reason, __ATOMIC_ACQUIRE) == int64_t{1} << 17);
  CHECK(__atomic_load_n(&sig[0].value, __ATOMIC_ACQUIRE) == 1);  // never completed
  CHECK(__atomic_load_n(&ptrs->read_dispatch_id, __ATOMIC_ACQUIRE) == 0);
  uint32_t kid = 0;
  REQUIRE(hke::queues::KernelQueueId(hke_default_context()->impl, q.QueueId, &kid).ok());
  kfdsim_queue_info info{};
  info.struct_size = sizeof(info);
  char reason[256] = {};
  REQUIRE(kfdsim_queue_status(b.sim(), kid, &info, reason, sizeof(reason)) == 0);
  CHECK(info.state == KFDSIM_QUEUE_ERROR);
  CHECK(info.exception_code == 18);
  INFO(reason);
  CHECK(std::string(reason).find("dispatch") != std::string::npos);
  CHECK(hsaKmtDestroyQueue(q.QueueId) == HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtDestroyEvent(error_event) == HSAKMT_STATUS_SUCCESS);
}

TEST_CASE("a queue disabled by UpdateQueue(NULL, 0) runs nothing its doorbell announces until UpdateQueue gives its ring back") {
  SimBoard b(nullptr, "datacenter-4gpu");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  const uint32_t node = FirstGpuNode();
  // Manual stepping: "nothing ran" is a fact, not a timeout.
  REQUIRE(kfdsim_set_engine_mode(b.sim(), KFDSIM_ENGINES_MANUAL) == 0);
  auto step = [&] {
    uint64_t n = 0;
    REQUIRE(kfdsim_step_queues(b.sim(), &n) == 0);
    return n;
  };
  for (HSA_QUEUE_TYPE type : {HSA_QUEUE_SDMA, HSA_QUEUE_COMPUTE}) {
    CAPTURE(type);
    auto* buf = static_cast<uint32_t*>(Gtt(node, 4096));
    void* ring = Gtt(node, 4096);
    HsaQueueResource q{};
    REQUIRE(hsaKmtCreateQueue(node, type, 100, HSA_QUEUE_PRIORITY_NORMAL, ring, 4096, nullptr,
                              &q) == HSAKMT_STATUS_SUCCESS);
    Ring r{static_cast<volatile uint32_t*>(ring), 4096};
    auto submit = [&](uint32_t value) {
      if (type == HSA_QUEUE_SDMA) {
        SdmaFence(r, reinterpret_cast<uintptr_t>(buf), value);
        Ring64(q, r.wptr);
      } else {
        Pm4WriteData(r, reinterpret_cast<uintptr_t>(buf), value);
        Ring64(q, r.wptr / 4);
      }
    };
    submit(1);
    CHECK(step() == 1);
    CHECK(__atomic_load_n(buf, __ATOMIC_ACQUIRE) == 1u);

    REQUIRE(hsaKmtUpdateQueue(q.QueueId, 100, HSA_QUEUE_PRIORITY_NORMAL, nullptr, 0, nullptr) ==
            HSAKMT_STATUS_SUCCESS);
    submit(2);
    CHECK(step() == 0);
    CHECK(__atomic_load_n(buf, __ATOMIC_ACQUIRE) == 1u);

    REQUIRE(hsaKmtUpdateQueue(q.QueueId, 100, HSA_QUEUE_PRIORITY_NORMAL, ring, 4096, nullptr) ==
            HSAKMT_STATUS_SUCCESS);
    CHECK(step() == 1);
    CHECK(__atomic_load_n(buf, __ATOMIC_ACQUIRE) == 2u);
    CHECK(hsaKmtDestroyQueue(q.QueueId) == HSAKMT_STATUS_SUCCESS);
  }
}
