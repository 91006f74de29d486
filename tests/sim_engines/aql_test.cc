// kfdsim AQL packet processor: barrier-AND/OR, BARRIER_VALUE, completion
// signals and their event mailbox, invalid kernel dispatch, agent dispatch
// and vendor errors reported through the CWSR header, publication rules and
// wraparound.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <unistd.h>

#include "platform/sim/core/util.h"
#include "tests/sim_engines/engine_fixture.h"

namespace {

using namespace engtest;

constexpr uint16_t kVendor = 0, kInvalid = 1, kDispatch = 2, kBarrierAnd = 3, kAgent = 4,
                   kBarrierOr = 5;
constexpr uint16_t kBarrierBit = 1u << 8;

// amd_signal_t prefix.
struct AmdSignal {
  int64_t kind;
  int64_t value;
  uint64_t event_mailbox_ptr;
  uint32_t event_id;
  uint32_t reserved;
};

struct AqlQueue {
  Buf ring, ctl, signals;
  QueueRef q;
  uint64_t packets = 0;  // ring capacity in packets
  uint64_t next = 0;     // write index

  AqlQueue(Engines& e, uint32_t ring_size = 4096, uint64_t ctx_save = 0) {
    ring = e.Alloc(kGpuA, ring_size);
    ctl = e.Alloc(kGpuA, 4096);
    signals = e.Alloc(kGpuA, 4096);
    packets = ring_size / 64;
    for (uint64_t i = 0; i < packets; ++i) *ring.at<uint16_t>(i * 64) = kInvalid;
    // read_dispatch_id at 0, write_dispatch_id at 8 (the amd_queue_t fields)
    q = e.CreateQueue(kGpuA, k::kQueueTypeComputeAql, ring, ring_size, ctl.va, ctl.va + 8,
                      ctx_save);
  }
  uint64_t ReadIndex() const { return *ctl.at<uint64_t>(0); }
  AmdSignal* Signal(int i) const { return signals.at<AmdSignal>(64ull * i); }
  uint64_t SignalVa(int i) const { return signals.va + 64ull * i; }
  uint8_t* Slot(uint64_t index) const { return ring.cpu + (index % packets) * 64; }

  // Writes a packet body, then publishes its header last (release), bumps
  // write_dispatch_id and rings the doorbell with the packet's index.
  uint64_t Submit(uint16_t header, const uint8_t (&body)[64], bool ring_doorbell = true) {
    const uint64_t index = next++;
    uint8_t* p = Slot(index);
    std::memcpy(p + 2, body + 2, 62);
    *ctl.at<uint64_t>(8) = next;
    __atomic_store_n(reinterpret_cast<uint16_t*>(p), header, __ATOMIC_RELEASE);
    if (ring_doorbell) Engines::Ring(q, index);
    return index;
  }
  uint64_t Barrier(uint16_t type, std::initializer_list<uint64_t> deps, uint64_t completion) {
    uint8_t body[64] = {};
    size_t i = 0;
    for (uint64_t d : deps) std::memcpy(body + 8 + 8 * i++, &d, 8);
    std::memcpy(body + 56, &completion, 8);
    return Submit(static_cast<uint16_t>(type | kBarrierBit), body);
  }
  uint64_t BarrierValue(uint64_t signal, int64_t value, int64_t mask, uint32_t cond,
                        uint64_t completion, uint8_t format = 2) {
    uint8_t body[64] = {};
    body[2] = format;
    std::memcpy(body + 8, &signal, 8);
    std::memcpy(body + 16, &value, 8);
    std::memcpy(body + 24, &mask, 8);
    std::memcpy(body + 32, &cond, 4);
    std::memcpy(body + 56, &completion, 8);
    return Submit(kVendor, body);
  }
};

uint16_t HeaderType(const AqlQueue& a, uint64_t index) {
  return *reinterpret_cast<const uint16_t*>(a.Slot(index)) & 0xFF;
}

TEST_CASE("aql barrier-AND waits for every dependency, then decrements its completion signal") {
  Engines e(simtest::TwoGpuBoard());
  AqlQueue a(e);
  a.Signal(0)->value = 1;  // dependency 0
  a.Signal(1)->value = 0;  // dependency 1 (already satisfied)
  a.Signal(2)->value = 1;  // completion
  const uint64_t idx = a.Barrier(kBarrierAnd, {a.SignalVa(0), 0, a.SignalVa(1)}, a.SignalVa(2));
  CHECK(e.Step() == 0);
  std::string why;
  CHECK(e.Status(a.q.id, &why).state == KFDSIM_QUEUE_WAITING);
  CHECK(why.find(kfdsim::HexU64(a.SignalVa(0))) != std::string::npos);
  CHECK(a.Signal(2)->value == 1);
  CHECK(HeaderType(a, idx) == kBarrierAnd);
  a.Signal(0)->value = 0;
  CHECK(e.Step() == 1);
  CHECK(a.Signal(2)->value == 0);
  CHECK(HeaderType(a, idx) == kInvalid);  // retired
  CHECK(a.ReadIndex() == 1);
  CHECK(e.Status(a.q.id).state == KFDSIM_QUEUE_IDLE);
}

TEST_CASE("aql barrier-OR completes when any dependency reaches zero") {
  Engines e(simtest::TwoGpuBoard());
  AqlQueue a(e);
  a.Signal(0)->value = 3;
  a.Signal(1)->value = 2;
  a.Signal(2)->value = 5;
  a.Barrier(kBarrierOr, {a.SignalVa(0), a.SignalVa(1)}, a.SignalVa(2));
  CHECK(e.Step() == 0);
  CHECK(a.Signal(2)->value == 5);
  a.Signal(1)->value = 0;
  CHECK(e.Step() == 1);
  CHECK(a.Signal(2)->value == 4);
  // No dependency at all: satisfied at once; a null completion signal is fine.
  a.Barrier(kBarrierOr, {}, 0);
  a.Barrier(kBarrierAnd, {}, a.SignalVa(2));
  CHECK(e.Step() == 2);
  CHECK(a.Signal(2)->value == 3);
  CHECK(a.ReadIndex() == 3);
}

TEST_CASE("aql BARRIER_VALUE compares the masked signal value with each condition") {
  Engines e(simtest::TwoGpuBoard());
  AqlQueue a(e);
  a.Signal(0)->value = 0x1F5;
  a.Signal(1)->value = 100;  // completion
  a.BarrierValue(a.SignalVa(0), 0xF5, 0xFF, 0 /*EQ*/, a.SignalVa(1));
  a.BarrierValue(a.SignalVa(0), 0, 0xFF, 1 /*NE*/, a.SignalVa(1));
  a.BarrierValue(a.SignalVa(0), 0x1F6, -1, 2 /*LT*/, a.SignalVa(1));
  a.BarrierValue(a.SignalVa(0), 0x1F5, -1, 3 /*GTE*/, a.SignalVa(1));
  CHECK(e.Step() == 4);
  CHECK(a.Signal(1)->value == 96);
  a.BarrierValue(a.SignalVa(0), 0x1F6, -1, 3 /*GTE*/, a.SignalVa(1));
  CHECK(e.Step() == 0);
  CHECK(e.Status(a.q.id).state == KFDSIM_QUEUE_WAITING);
  a.Signal(0)->value = 0x1F6;
  CHECK(e.Step() == 1);
  CHECK(a.Signal(1)->value == 95);
}

TEST_CASE("aql completion signal with an event mailbox writes the id and sets the event") {
  Engines e(simtest::TwoGpuBoard());
  AqlQueue a(e);
  const uint32_t ev = e.SignalEvent(kGpuA);
  const uint32_t other = e.SignalEvent(kGpuA);
  AmdSignal* s = a.Signal(0);
  s->kind = 1;
  s->value = 1;
  s->event_mailbox_ptr = e.SlotVa(ev);
  s->event_id = ev;
  a.Barrier(kBarrierAnd, {}, a.SignalVa(0));
  CHECK(e.Step() == 1);
  CHECK(s->value == 0);
  CHECK(e.Wait(ev, 0) == k::kWaitResultComplete);
  CHECK(e.Wait(other, 0) == k::kWaitResultTimeout);
  CHECK(e.Slot(ev) == ~0ull);
}

TEST_CASE("aql kernel dispatch with a null kernel_object stops the queue with DISPATCH_CODE_INVALID, reported through the CWSR header") {
  Engines e(simtest::TwoGpuBoard());
  k::RuntimeEnableArgs re{};
  re.mode_mask = k::kRuntimeEnableModeEnable;
  REQUIRE(e.Io(k::kIocRuntimeEnable, &re) == 0);
  const uint32_t err_ev = e.SignalEvent(kGpuA, false);
  Buf cwsr = e.CwsrArea(kGpuA);
  auto* header = cwsr.at<k::ContextSaveAreaHeader>(0);
  header->err_payload_addr = cwsr.va + 4096;
  header->err_event_id = err_ev;
  *cwsr.at<uint64_t>(4096) = k::EcMask(k::kEcQueueWaveTrap);  // an earlier error is kept
  AqlQueue a(e, 4096, cwsr.va);
  a.Signal(0)->value = 1;
  a.Barrier(kBarrierAnd, {}, 0);
  uint8_t body[64] = {};
  const uint64_t completion = a.SignalVa(0);
  std::memcpy(body + 56, &completion, 8);
  const uint64_t idx = a.Submit(kDispatch | kBarrierBit, body);
  a.Barrier(kBarrierAnd, {}, a.SignalVa(0));  // behind the dispatch: never runs
  CHECK(e.Step() == 1);
  std::string why;
  kfdsim_queue_info info = e.Status(a.q.id, &why);
  CHECK(info.state == KFDSIM_QUEUE_ERROR);
  CHECK(info.exception_code == k::kEcQueuePacketDispatchCodeInvalid);
  CHECK(info.read_index == idx);
  CHECK(why.find("kernel dispatch") != std::string::npos);
  CHECK(*cwsr.at<uint64_t>(4096) ==
        (k::EcMask(k::kEcQueueWaveTrap) | k::EcMask(k::kEcQueuePacketDispatchCodeInvalid)));
  CHECK(e.Wait(err_ev, 0) == k::kWaitResultComplete);
  CHECK(a.Signal(0)->value == 1);  // completion untouched
  CHECK(HeaderType(a, idx) == kDispatch);
  CHECK(a.ReadIndex() == idx);
}

TEST_CASE("aql queue errors are not reported through the CWSR header without RUNTIME_ENABLE") {
  Engines e(simtest::TwoGpuBoard());
  const uint32_t err_ev = e.SignalEvent(kGpuA, false);
  Buf cwsr = e.CwsrArea(kGpuA);
  cwsr.at<k::ContextSaveAreaHeader>(0)->err_payload_addr = cwsr.va + 4096;
  cwsr.at<k::ContextSaveAreaHeader>(0)->err_event_id = err_ev;
  AqlQueue a(e, 4096, cwsr.va);
  uint8_t body[64] = {};
  a.Submit(kDispatch, body);
  e.Step();
  CHECK(e.Status(a.q.id).state == KFDSIM_QUEUE_ERROR);
  CHECK(*cwsr.at<uint64_t>(4096) == 0);
  CHECK(e.Wait(err_ev, 0) == k::kWaitResultTimeout);
}

TEST_CASE("aql queue errors go to a subscribed debugger's event file instead of the runtime") {
  Engines e(simtest::TwoGpuBoard());
  k::RuntimeEnableArgs re{};
  re.mode_mask = k::kRuntimeEnableModeEnable;
  REQUIRE(e.Io(k::kIocRuntimeEnable, &re) == 0);
  int events[2];
  REQUIRE(pipe2(events, O_CLOEXEC | O_NONBLOCK) == 0);
  k::RuntimeInfo info{};
  k::DbgTrapArgs d{};
  d.pid = static_cast<uint32_t>(getpid());
  d.op = k::kDbgTrapEnable;
  d.enable.rinfo_ptr = reinterpret_cast<uintptr_t>(&info);
  d.enable.rinfo_size = sizeof(info);
  d.enable.dbg_fd = static_cast<uint32_t>(events[1]);
  d.enable.exception_mask = k::EcMask(k::kEcQueuePacketDispatchCodeInvalid);
  REQUIRE(e.Io(k::kIocDbgTrap, &d) == 0);
  const uint32_t err_ev = e.SignalEvent(kGpuA, false);
  Buf cwsr = e.CwsrArea(kGpuA);
  cwsr.at<k::ContextSaveAreaHeader>(0)->err_payload_addr = cwsr.va + 4096;
  cwsr.at<k::ContextSaveAreaHeader>(0)->err_event_id = err_ev;
  AqlQueue a(e, 4096, cwsr.va);
  uint8_t body[64] = {};
  a.Submit(kDispatch, body);
  e.Step();
  CHECK(e.Status(a.q.id).state == KFDSIM_QUEUE_ERROR);
  char c = 0;
  CHECK(read(events[0], &c, 1) == 1);  // the debugger was told
  CHECK(c == '.');
  CHECK(*cwsr.at<uint64_t>(4096) == 0);  // and the runtime was not
  CHECK(e.Wait(err_ev, 0) == k::kWaitResultTimeout);
  k::DbgTrapArgs q{};
  q.pid = static_cast<uint32_t>(getpid());
  q.op = k::kDbgTrapQueryDebugEvent;
  REQUIRE(e.Io(k::kIocDbgTrap, &q) == 0);
  CHECK(q.query_debug_event.queue_id == a.q.id);
  CHECK(q.query_debug_event.exception_mask ==
        (k::EcMask(k::kEcQueueNew) | k::EcMask(k::kEcQueuePacketDispatchCodeInvalid)));
  close(events[0]);
  close(events[1]);
}

TEST_CASE("aql agent dispatch, unknown vendor formats and reserved types have their own codes") {
  struct Case {
    uint16_t header;
    uint8_t format;
    uint32_t code;
    const char* text;
  };
  const Case cases[] = {
      {kAgent, 0, k::kEcQueuePacketUnsupported, "agent dispatch"},
      {kVendor, 7, k::kEcQueuePacketVendorUnsupported, "vendor packet format 7"},
      {9, 0, k::kEcQueuePacketReserved, "type 9"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.text);
    Engines e(simtest::TwoGpuBoard());
    AqlQueue a(e);
    uint8_t body[64] = {};
    body[2] = c.format;
    a.Submit(c.header, body);
    CHECK(e.Step() == 0);
    std::string why;
    kfdsim_queue_info info = e.Status(a.q.id, &why);
    CHECK(info.state == KFDSIM_QUEUE_ERROR);
    CHECK(info.exception_code == c.code);
    CHECK(why.find(c.text) != std::string::npos);
  }
}

TEST_CASE("aql packets run only once published: header valid and index within the doorbell") {
  Engines e(simtest::TwoGpuBoard());
  AqlQueue a(e);
  a.Signal(0)->value = 10;
  uint8_t body[64] = {};
  const uint64_t c = a.SignalVa(0);
  std::memcpy(body + 56, &c, 8);
  a.Submit(kBarrierAnd, body, /*ring_doorbell=*/false);  // index 0: doorbell still 0 -> runs
  a.Submit(kBarrierAnd, body, /*ring_doorbell=*/false);  // index 1: not announced
  CHECK(e.Step() == 1);
  CHECK(a.Signal(0)->value == 9);
  Engines::Ring(a.q, 1);
  CHECK(e.Step() == 1);
  CHECK(a.Signal(0)->value == 8);
  // Announced but its header still INVALID: nothing runs.
  *a.ctl.at<uint64_t>(8) = 3;
  Engines::Ring(a.q, 2);
  CHECK(e.Step() == 0);
  CHECK(a.ReadIndex() == 2);
}

TEST_CASE("aql ring wraparound: more packets than the ring holds, in batches") {
  Engines e(simtest::TwoGpuBoard());
  AqlQueue a(e, 1024);  // 16 packets
  a.Signal(0)->value = 1000;
  uint64_t total = 0;
  for (int batch = 0; batch < 5; ++batch) {
    for (int i = 0; i < 10; ++i) a.Barrier(kBarrierAnd, {}, a.SignalVa(0));
    total += e.Step();
    CHECK(a.ReadIndex() == a.next);
  }
  CHECK(total == 50);
  CHECK(a.Signal(0)->value == 950);
  CHECK(a.next > a.packets * 3);
}

TEST_CASE("aql a completion signal in unmapped memory faults the queue") {
  Engines e(simtest::TwoGpuBoard());
  AqlQueue a(e);
  const uint32_t mem_ev = e.MemoryEvent();
  a.Barrier(kBarrierAnd, {}, 0x7ff100000000ull);
  CHECK(e.Step() == 0);
  CHECK(e.Status(a.q.id).exception_code == k::kEcDeviceMemoryViolation);
  CHECK(e.Wait(mem_ev, 0) == k::kWaitResultComplete);
}

}  // namespace
