// Doorbells rung by the GPU: an engine write that lands in a DOORBELL BO
// (the process doorbell slice mapped to the GPU) rings that queue, as a
// write to the doorbell aperture does on hardware: PM4 WRITE_DATA, SDMA
// WRITE_LINEAR, FENCE and COPY_LINEAR, on the same GPU and from another GPU.
#include <doctest/doctest.h>

#include <atomic>
#include <thread>

#include "tests/sim_engines/engine_fixture.h"

namespace {

using namespace engtest;

constexpr uint32_t kRing = 4096;
constexpr uint32_t kWriteLinear = 2;
constexpr uint32_t kCopyLinear = 1;
constexpr uint32_t kFence = 5;
constexpr uint32_t kPm4WriteData = 0x37;

uint32_t P3(uint32_t op, uint32_t count) { return 3u << 30 | (count & 0x3FFF) << 16 | op << 8; }

struct Queue {
  Buf ring, ctl;
  QueueRef q;
  RingWriter w;

  Queue(Engines& e, uint32_t gpu_id, uint32_t type) {
    ring = e.Alloc(gpu_id, kRing);
    ctl = e.Alloc(gpu_id, 4096);
    q = e.CreateQueue(gpu_id, type, ring, kRing, ctl.va, ctl.va + 8);
    w.base = ring.cpu;
    w.size = kRing;
  }
};

// Queue B holds a FENCE it was never rung for: it runs only when its
// doorbell reaches the write pointer.
struct Target {
  Queue b;
  Buf out;
  Target(Engines& e, uint32_t gpu_id) : b(e, gpu_id, k::kQueueTypeSdma) {
    out = e.Alloc(gpu_id, 4096);
    b.w.Put({kFence, Lo(out.va), Hi(out.va), 0xB0B0CAFEu});
  }
  uint32_t fenced() const { return __atomic_load_n(out.at<uint32_t>(0), __ATOMIC_ACQUIRE); }
  uint64_t doorbell() const { return __atomic_load_n(b.q.doorbell, __ATOMIC_ACQUIRE); }
};

}  // namespace

TEST_CASE("an SDMA WRITE_LINEAR into another queue's doorbell makes that queue run") {
  Engines e(simtest::TwoGpuBoard());
  Target t(e, kGpuA);
  Queue a(e, kGpuA, k::kQueueTypeSdma);
  const Buf doorbells = e.DoorbellBo(kGpuA, kGpuA);
  const uint64_t db_va = doorbells.va + t.b.q.doorbell_offset;
  a.w.Put({kWriteLinear, Lo(db_va), Hi(db_va), 1, Lo(t.b.w.wptr), Hi(t.b.w.wptr)});
  Engines::Ring(a.q, a.w.wptr);
  e.Step();
  CHECK(e.Status(a.q.id).state == KFDSIM_QUEUE_IDLE);  // no fault: a doorbell is writable
  CHECK(t.doorbell() == t.b.w.wptr);                     // the CPU's view of the doorbell
  CHECK(t.fenced() == 0xB0B0CAFEu);                      // and queue B ran
  CHECK(e.Status(t.b.q.id).packets_done == 1);
}

TEST_CASE("an SDMA FENCE into another queue's doorbell rings it with the 32-bit value") {
  Engines e(simtest::TwoGpuBoard());
  Target t(e, kGpuA);
  Queue a(e, kGpuA, k::kQueueTypeSdma);
  const Buf doorbells = e.DoorbellBo(kGpuA, kGpuA);
  const uint64_t db_va = doorbells.va + t.b.q.doorbell_offset;
  a.w.Put({kFence, Lo(db_va), Hi(db_va), static_cast<uint32_t>(t.b.w.wptr)});
  Engines::Ring(a.q, a.w.wptr);
  e.Step();
  CHECK(t.fenced() == 0xB0B0CAFEu);
}

TEST_CASE("a PM4 WRITE_DATA into an SDMA queue's doorbell makes that queue run") {
  Engines e(simtest::TwoGpuBoard());
  Target t(e, kGpuA);
  Queue p(e, kGpuA, k::kQueueTypeCompute);
  const Buf doorbells = e.DoorbellBo(kGpuA, kGpuA);
  const uint64_t db_va = doorbells.va + t.b.q.doorbell_offset;
  p.w.Put({P3(kPm4WriteData, 4), 5u << 8, Lo(db_va), Hi(db_va), Lo(t.b.w.wptr), Hi(t.b.w.wptr)});
  Engines::Ring(p.q, p.w.wptr / 4);
  e.Step();
  CHECK(e.Status(p.q.id).state == KFDSIM_QUEUE_IDLE);
  CHECK(t.fenced() == 0xB0B0CAFEu);
}

TEST_CASE("an SDMA COPY_LINEAR into a doorbell rings it; one out of the slice reads it") {
  Engines e(simtest::TwoGpuBoard());
  Target t(e, kGpuA);
  Queue a(e, kGpuA, k::kQueueTypeSdma);
  const Buf doorbells = e.DoorbellBo(kGpuA, kGpuA);
  const uint64_t db_va = doorbells.va + t.b.q.doorbell_offset;
  Buf src = e.Alloc(kGpuA, 4096);
  *src.at<uint64_t>(0) = t.b.w.wptr;
  a.w.Put({kCopyLinear, 8 - 1, 0, Lo(src.va), Hi(src.va), Lo(db_va), Hi(db_va)});
  // Then read the doorbell back into memory.
  a.w.Put({kCopyLinear, 8 - 1, 0, Lo(db_va), Hi(db_va), Lo(src.va + 64), Hi(src.va + 64)});
  Engines::Ring(a.q, a.w.wptr);
  e.Step();
  CHECK(t.fenced() == 0xB0B0CAFEu);
  CHECK(*src.at<uint64_t>(64) == t.b.w.wptr);
}

TEST_CASE("a queue on one GPU rings a queue on another through the peer's doorbell BO") {
  Engines e(simtest::TwoGpuBoard());
  Target t(e, kGpuB);
  Queue a(e, kGpuA, k::kQueueTypeSdma);
  // GPU B's doorbell slice, mapped into GPU A's VM.
  const Buf doorbells = e.DoorbellBo(kGpuB, kGpuA);
  const uint64_t db_va = doorbells.va + t.b.q.doorbell_offset;
  a.w.Put({kWriteLinear, Lo(db_va), Hi(db_va), 1, Lo(t.b.w.wptr), Hi(t.b.w.wptr)});
  Engines::Ring(a.q, a.w.wptr);
  e.Step();
  CHECK(t.fenced() == 0xB0B0CAFEu);
}

TEST_CASE("a doorbell BO not mapped to the writing GPU is a memory fault, and rings nothing") {
  Engines e(simtest::TwoGpuBoard());
  Target t(e, kGpuA);
  Queue a(e, kGpuA, k::kQueueTypeSdma);
  const Buf doorbells = e.DoorbellBo(kGpuA, kGpuB);  // mapped to B only
  const uint64_t db_va = doorbells.va + t.b.q.doorbell_offset;
  a.w.Put({kWriteLinear, Lo(db_va), Hi(db_va), 1, Lo(t.b.w.wptr), Hi(t.b.w.wptr)});
  Engines::Ring(a.q, a.w.wptr);
  e.Step();
  CHECK(e.Status(a.q.id).state == KFDSIM_QUEUE_ERROR);
  CHECK(t.doorbell() == 0);
  CHECK(t.fenced() == 0);
}

TEST_CASE("with the engine thread, a GPU-rung queue runs without any CPU doorbell write") {
  Engines e(simtest::TwoGpuBoard(), KFDSIM_ENGINES_THREAD);
  Target t(e, kGpuA);
  Queue a(e, kGpuA, k::kQueueTypeSdma);
  const Buf doorbells = e.DoorbellBo(kGpuA, kGpuA);
  const uint64_t db_va = doorbells.va + t.b.q.doorbell_offset;
  a.w.Put({kWriteLinear, Lo(db_va), Hi(db_va), 1, Lo(t.b.w.wptr), Hi(t.b.w.wptr)});
  Engines::Ring(a.q, a.w.wptr);
  // Completion, not time, is what is checked: wait (bounded) for B's fence.
  for (int i = 0; i < 20000 && t.fenced() == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::microseconds(500));
  }
  CHECK(t.fenced() == 0xB0B0CAFEu);
}
