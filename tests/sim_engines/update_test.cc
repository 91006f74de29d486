// kfdsim UPDATE_QUEUE as the engines see it: a queue disabled by an update
// (no ring, or percentage 0: the kernel's QUEUE_IS_ACTIVE rule) ignores its
// doorbell, and runs what was announced meanwhile once an update enables it
// again; on SDMA, PM4 and AQL queues.
#include <doctest/doctest.h>

#include "tests/sim_engines/engine_fixture.h"

namespace {

using namespace engtest;

constexpr uint32_t kRing = 4096;

// One queue of `type` on GPU A with its ring and pointer words in GTT BOs,
// and a destination buffer its packets write to.
struct Queue {
  Buf ring, ctl, dst;
  QueueRef q;
  RingWriter w;
  uint32_t type;
  uint64_t aql_index = 0;

  Queue(Engines& e, uint32_t t) : type(t) {
    ring = e.Alloc(kGpuA, kRing);
    ctl = e.Alloc(kGpuA, 4096);
    dst = e.Alloc(kGpuA, 4096);
    if (type == k::kQueueTypeComputeAql) {
      for (uint64_t i = 0; i < kRing / 64; ++i) *ring.at<uint16_t>(i * 64) = 1;  // INVALID
    }
    q = e.CreateQueue(kGpuA, type, ring, kRing, ctl.va, ctl.va + 8);
    w.base = ring.cpu;
    w.size = kRing;
  }

  // One packet that writes `value` to dst (AQL: a barrier-AND without
  // dependencies decrementing the signal at dst), then the doorbell.
  void WriteAndRing(uint32_t value) {
    if (type == k::kQueueTypeSdma) {
      w.Put({5u, Lo(dst.va), Hi(dst.va), value});  // FENCE
      Engines::Ring(q, w.wptr);
    } else if (type == k::kQueueTypeCompute) {
      w.Put({3u << 30 | 3u << 16 | 0x37u << 8, 5u << 8, Lo(dst.va), Hi(dst.va), value});  // WRITE_DATA
      Engines::Ring(q, w.wptr / 4);
    } else {
      *dst.at<int64_t>(8) = 1;  // amd_signal_t.value
      uint8_t* p = ring.cpu + (aql_index % (kRing / 64)) * 64;
      std::memset(p + 2, 0, 62);
      const uint64_t completion = dst.va;
      std::memcpy(p + 56, &completion, 8);
      *ctl.at<uint64_t>(8) = aql_index + 1;  // write_dispatch_id
      __atomic_store_n(reinterpret_cast<uint16_t*>(p), uint16_t{3u | 1u << 8}, __ATOMIC_RELEASE);
      Engines::Ring(q, aql_index++);
    }
  }
  // The packet's effect is visible.
  bool Done(uint32_t value) const {
    if (type == k::kQueueTypeComputeAql) return *dst.at<int64_t>(8) == 0;
    return *dst.at<uint32_t>(0) == value;
  }
};

void DisableThenEnable(uint32_t type, bool by_percentage) {
  Engines e(simtest::TwoGpuBoard());
  Queue q(e, type);
  q.WriteAndRing(11);
  REQUIRE(e.Step() == 1);
  REQUIRE(q.Done(11));

  // Disabled: by a NULL ring of size 0 (at percentage 100), or by
  // percentage 0 with the ring (what the runtime's Suspend sends).
  if (by_percentage) {
    REQUIRE(e.UpdateQueue(q.q.id, q.ring.va, kRing, 0) == 0);
  } else {
    REQUIRE(e.UpdateQueue(q.q.id, 0, 0, 100) == 0);
  }
  CHECK(e.Status(q.q.id).state == KFDSIM_QUEUE_DISABLED);
  q.WriteAndRing(22);
  CHECK(e.Step() == 0);
  CHECK_FALSE(q.Done(22));
  CHECK(e.Status(q.q.id).state == KFDSIM_QUEUE_DISABLED);
  CHECK(e.Status(q.q.id).packets_done == 1);

  // Enabled again with the ring: what the doorbell announced runs.
  REQUIRE(e.UpdateQueue(q.q.id, q.ring.va, kRing, 100) == 0);
  CHECK(e.Status(q.q.id).state == KFDSIM_QUEUE_PENDING);
  CHECK(e.Step() == 1);
  CHECK(q.Done(22));
  CHECK(e.Status(q.q.id).state == KFDSIM_QUEUE_IDLE);
  CHECK(e.Status(q.q.id).packets_done == 2);
}

}  // namespace

TEST_CASE("a queue disabled by UPDATE_QUEUE with no ring ignores its doorbell and resumes when enabled") {
  for (uint32_t type : {k::kQueueTypeSdma, k::kQueueTypeCompute, k::kQueueTypeComputeAql}) {
    CAPTURE(type);
    DisableThenEnable(type, false);
  }
}

TEST_CASE("a queue disabled by UPDATE_QUEUE with percentage 0 ignores its doorbell and resumes at 100") {
  for (uint32_t type : {k::kQueueTypeSdma, k::kQueueTypeCompute, k::kQueueTypeComputeAql}) {
    CAPTURE(type);
    DisableThenEnable(type, true);
  }
}
