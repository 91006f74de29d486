// kfdsim SDMA engine: the packets ROCR's copy path writes (amd_blit_sdma.cpp,
// sdma_registers.h) on the GFX9 (gfx90a) and GFX9.4 (gfx942) engines: HDP
// flush forms, ATOMIC add/sub with and without return, the whole copy
// submission ROCR builds around a COPY_LINEAR, COPY_LINEAR_SUB_WINDOW, and
// malformed packets stopping the queue through the exception path.
#include <doctest/doctest.h>

#include "tests/sim_engines/engine_fixture.h"

namespace {

using namespace engtest;

constexpr uint32_t kRing = 4096;
constexpr uint32_t kCopyLinear = 1;
constexpr uint32_t kFence = 5;
constexpr uint32_t kTrap = 6;
constexpr uint32_t kPollRegmem = 8;
uint32_t PollMem(uint32_t func) { return kPollRegmem | func << 28 | 1u << 31; }
// ATOMIC header: op 10, operation in bits 25-31, loop bit 16.
uint32_t Atomic(uint32_t operation, bool loop = false) {
  return 10u | operation << 25 | (loop ? 1u << 16 : 0u);
}
// TC_OP codes (add/sub, 32/64-bit, returning or not).
constexpr uint32_t kAddRtn32 = 15, kSubRtn32 = 16, kAdd32 = 79, kSub32 = 80;
constexpr uint32_t kAddRtn64 = 47, kSubRtn64 = 48, kAdd64 = 111, kSub64 = 112;
// ROCR's SDMA_PKT_HDP_FLUSH, dword for dword.
constexpr uint32_t kRocrHdpFlush[6] = {0x8, 0x0, 0x80000000u, 0x0, 0x0, 0x0};

kfdsim::GpuDesc Gfx942() {
  kfdsim::GpuDesc g = simtest::Gfx90a();
  g.gfx_target_version = 90402;
  g.device_id = 0x74a1;
  return g;
}

// The two SDMA generations ROCR drives with the same packets (BlitSdmaV4).
kfdsim::Board BoardFor(uint32_t gfx) {
  return gfx == 90402 ? simtest::MakeBoard({Gfx942()}) : simtest::MakeBoard({simtest::Gfx90a()});
}

struct SdmaQueue {
  Buf ring, ctl;
  QueueRef q;
  RingWriter w;

  explicit SdmaQueue(Engines& e, uint64_t ctx_save = 0) {
    ring = e.Alloc(kGpuA, kRing);
    ctl = e.Alloc(kGpuA, 4096);
    q = e.CreateQueue(kGpuA, k::kQueueTypeSdma, ring, kRing, ctl.va, ctl.va + 8, ctx_save);
    w.base = ring.cpu;
    w.size = kRing;
  }
  void Submit() { Engines::Ring(q, w.wptr); }
  uint64_t Rptr() const { return *ctl.at<uint64_t>(0); }
};

TEST_CASE("sdma HDP flush: ROCR's packet and the kernel's hdp_flush POLL_REGMEM retire at once") {
  for (uint32_t gfx : {90010u, 90402u}) {
    CAPTURE(gfx);
    Engines e(BoardFor(gfx));
    SdmaQueue s(e);
    Buf dst = e.Alloc(kGpuA, 4096);
    for (uint32_t d : kRocrHdpFlush) s.w.Put(d);
    // Kernel form: hdp_flush bit, function ==, done/request registers,
    // reference and mask of this engine's bit, retry/interval.
    s.w.Put({kPollRegmem | 1u << 26 | 3u << 28, 0x1234 << 2, 0x1235 << 2, 1u << 10, 1u << 10,
             0x0FFF000Au});
    s.w.Put({kFence, Lo(dst.va), Hi(dst.va), 0xF1u});
    s.Submit();
    CHECK(e.Step() == 3);
    CHECK(*dst.at<uint32_t>(0) == 0xF1u);
    CHECK(s.Rptr() == s.w.wptr);
    CHECK(e.Status(s.q.id).state == KFDSIM_QUEUE_IDLE);
  }
}

TEST_CASE("sdma register POLL_REGMEM other than the HDP flush forms still stops the queue") {
  Engines e(BoardFor(90010));
  SdmaQueue s(e);
  // ROCR's flush with one more field set is no longer the flush packet.
  s.w.Put({0x8, 0x0, 0x80000000u, 0x1, 0x0, 0x0});
  s.Submit();
  e.Step();
  std::string why;
  const kfdsim_queue_info info = e.Status(s.q.id, &why);
  CHECK(info.state == KFDSIM_QUEUE_ERROR);
  CHECK(info.exception_code == k::kEcQueuePacketUnsupported);
  CHECK(info.read_index == 0);
  CHECK(why.find("register") != std::string::npos);
}

TEST_CASE("sdma ATOMIC adds and subtracts 32- and 64-bit values, with and without return") {
  struct Case {
    uint32_t op;
    uint32_t width;
    uint64_t before, src, after;
  };
  const Case cases[] = {
      {kAddRtn64, 8, 5, ~0ull, 4},                  // ROCR's signal decrement: add -1
      {kAdd64, 8, 0xFFFFFFFFull, 1, 0x100000000ull},  // carry into the high word
      {kSubRtn64, 8, 0x100000000ull, 1, 0xFFFFFFFFull},
      {kSub64, 8, 0, 1, ~0ull},                     // wraps
      {kAddRtn32, 4, 7, 3, 10},
      {kAdd32, 4, 0xFFFFFFFFull, 1, 0},             // 32-bit wrap, high word untouched
      {kSubRtn32, 4, 10, 4, 6},
      {kSub32, 4, 1, 2, 0xFFFFFFFFull},
  };
  for (uint32_t gfx : {90010u, 90402u}) {
    for (const Case& c : cases) {
      CAPTURE(gfx);
      CAPTURE(c.op);
      Engines e(BoardFor(gfx));
      SdmaQueue s(e);
      Buf mem = e.Alloc(kGpuA, 4096);
      *mem.at<uint64_t>(8) = c.width == 8 ? c.before : (0xABCD000000000000ull | c.before);
      s.w.Put({Atomic(c.op), Lo(mem.va + 8), Hi(mem.va + 8), Lo(c.src), Hi(c.src), 0, 0, 0});
      s.Submit();
      CHECK(e.Step() == 1);
      if (c.width == 8) {
        CHECK(*mem.at<uint64_t>(8) == c.after);
      } else {
        CHECK(*mem.at<uint32_t>(8) == static_cast<uint32_t>(c.after));
        CHECK(*mem.at<uint32_t>(12) == 0xABCD0000u);
      }
      CHECK(*mem.at<uint64_t>(0) == 0);
      CHECK(*mem.at<uint64_t>(16) == 0);
      CHECK(e.Status(s.q.id).state == KFDSIM_QUEUE_IDLE);
    }
  }
}

TEST_CASE("sdma ROCR's copy submission completes its signal and wakes the waiter") {
  // What BlitSdma::SubmitCommand writes for one hsa_amd_memory_async_copy
  // with an interrupt signal and one dependency: POLL_REGMEM (== 0) on the
  // dependency's value, the HDP flush, COPY_LINEAR, ATOMIC ADD64 of -1 on
  // the completion signal's value, FENCE of the event id into the event
  // mailbox, TRAP with the event id, NOP padding.
  for (uint32_t gfx : {90010u, 90402u}) {
    CAPTURE(gfx);
    Engines e(BoardFor(gfx));
    SdmaQueue s(e);
    const uint32_t ev = e.SignalEvent(kGpuA);
    Buf sys = e.Userptr(kGpuA, 65536);
    Buf vram = e.Alloc(kGpuA, 65536, k::kAllocMemVram);
    Buf sig = e.Alloc(kGpuA, 4096);  // signal values: dependency at 0, completion at 64
    for (uint64_t i = 0; i < sys.size; ++i) sys.cpu[i] = static_cast<uint8_t>(i * 13 + 1);
    *sig.at<uint64_t>(0) = 1;
    *sig.at<int64_t>(64) = 1;
    const uint64_t bytes = 40000 + 3;
    s.w.Put({PollMem(3), Lo(sig.va), Hi(sig.va), 0, 0xFFFFFFFFu, 0x0FFF0004u});
    for (uint32_t d : kRocrHdpFlush) s.w.Put(d);
    s.w.Put({kCopyLinear, static_cast<uint32_t>(bytes - 1), 0, Lo(sys.va + 1), Hi(sys.va + 1),
             Lo(vram.va + 5), Hi(vram.va + 5)});
    s.w.Put({Atomic(kAddRtn64), Lo(sig.va + 64), Hi(sig.va + 64), 0xFFFFFFFFu, 0xFFFFFFFFu, 0, 0,
             0});
    s.w.Put({kFence, Lo(e.SlotVa(ev)), Hi(e.SlotVa(ev)), ev});
    s.w.Put({kTrap, ev});
    s.w.Put({3u << 16, 0, 0, 0});  // NOP padding
    s.Submit();
    CHECK(e.Step() == 0);  // held by the dependency
    CHECK(e.Status(s.q.id).state == KFDSIM_QUEUE_WAITING);
    CHECK(*sig.at<int64_t>(64) == 1);
    *sig.at<uint64_t>(0) = 0;
    CHECK(e.Step() == 7);
    CHECK(std::memcmp(vram.cpu + 5, sys.cpu + 1, bytes) == 0);
    CHECK(vram.cpu[5 + bytes] == 0);
    CHECK(*sig.at<int64_t>(64) == 0);
    CHECK(e.Wait(ev, 0) == k::kWaitResultComplete);
    CHECK(s.Rptr() == s.w.wptr);
  }
}

TEST_CASE("sdma COPY_LINEAR_SUB_WINDOW copies a rectangle between pitched surfaces") {
  Engines e(BoardFor(90402));
  SdmaQueue s(e);
  Buf src = e.Alloc(kGpuA, 65536);
  Buf dst = e.Alloc(kGpuA, 65536);
  for (uint64_t i = 0; i < src.size; ++i) src.cpu[i] = static_cast<uint8_t>(i * 7 + i / 251);
  // 4-byte elements; source pitch 64 elements, slice 64*16; destination
  // pitch 32, slice 32*8; rectangle 5 x 3 x 2 from (2,1,1) to (7,2,0).
  const uint32_t el = 2;
  const uint32_t spitch = 64, sslice = 64 * 16, dpitch = 32, dslice = 32 * 8;
  s.w.Put({kCopyLinear | 4u << 8 | el << 29, Lo(src.va), Hi(src.va), 2u | 1u << 16,
           1u | (spitch - 1) << 13, sslice - 1, Lo(dst.va), Hi(dst.va), 7u | 2u << 16,
           0u | (dpitch - 1) << 13, dslice - 1, (5u - 1) | (3u - 1) << 16, 2u - 1});
  s.Submit();
  CHECK(e.Step() == 1);
  CHECK(e.Status(s.q.id).state == KFDSIM_QUEUE_IDLE);
  uint64_t copied = 0;
  for (uint32_t z = 0; z < 2; ++z) {
    for (uint32_t y = 0; y < 3; ++y) {
      const uint64_t so = ((1 + z) * sslice + (1 + y) * spitch + 2) * 4;
      const uint64_t d = ((0 + z) * dslice + (2 + y) * dpitch + 7) * 4;
      CHECK(std::memcmp(dst.cpu + d, src.cpu + so, 5 * 4) == 0);
      CHECK(*dst.at<uint32_t>(d + 20) == 0);  // the row ends where the rectangle does
      copied += 20;
    }
  }
  uint64_t nonzero = 0;
  for (uint64_t i = 0; i < dst.size; ++i) nonzero += dst.cpu[i] != 0;
  CHECK(nonzero <= copied);  // nothing written outside the rectangle
  CHECK(nonzero > copied / 2);
}

TEST_CASE("sdma malformed ATOMIC packets stop the queue; the error reaches the CWSR header") {
  struct Case {
    uint32_t header;
    uint64_t offset;
    uint32_t code;
    const char* text;
  };
  const Case cases[] = {
      {Atomic(39), 8, k::kEcQueuePacketUnsupported, "operation 39"},         // SWAP_RTN_64
      {Atomic(kAddRtn64, true), 8, k::kEcQueuePacketUnsupported, "loop"},
      {Atomic(kAddRtn64), 12, k::kEcQueuePacketUnsupported, "aligned"},  // 64-bit at 4 mod 8
      {Atomic(kSub32), 2, k::kEcQueuePacketUnsupported, "aligned"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.text);
    Engines e(BoardFor(90010));
    k::RuntimeEnableArgs re{};
    re.mode_mask = k::kRuntimeEnableModeEnable;
    REQUIRE(e.Io(k::kIocRuntimeEnable, &re) == 0);
    const uint32_t err_ev = e.SignalEvent(kGpuA, false);
    Buf cwsr = e.Userptr(kGpuA, 8192);
    cwsr.at<k::ContextSaveAreaHeader>(0)->err_payload_addr = cwsr.va + 4096;
    cwsr.at<k::ContextSaveAreaHeader>(0)->err_event_id = err_ev;
    SdmaQueue s(e, cwsr.va);
    Buf mem = e.Alloc(kGpuA, 4096);
    *mem.at<uint64_t>(8) = 5;
    s.w.Put({c.header, Lo(mem.va + c.offset), Hi(mem.va + c.offset), 1, 0, 0, 0, 0});
    s.w.Put({kFence, Lo(mem.va + 64), Hi(mem.va + 64), 1});
    s.Submit();
    CHECK(e.Step() == 0);
    std::string why;
    const kfdsim_queue_info info = e.Status(s.q.id, &why);
    CHECK(info.state == KFDSIM_QUEUE_ERROR);
    CHECK(info.exception_code == c.code);
    CHECK(info.read_index == 0);
    CHECK(why.find(c.text) != std::string::npos);
    CHECK(*mem.at<uint64_t>(8) == 5);   // nothing changed
    CHECK(*mem.at<uint32_t>(64) == 0);  // nothing after it ran
    CHECK(*cwsr.at<uint64_t>(4096) == k::EcMask(c.code));
    CHECK(e.Wait(err_ev, 0) == k::kWaitResultComplete);
  }
}

TEST_CASE("sdma ATOMIC on an unmapped address is a GPU memory fault") {
  Engines e(BoardFor(90402));
  SdmaQueue s(e);
  const uint32_t mem_ev = e.MemoryEvent();
  const uint64_t bad = 0x7ff000000008ull;
  s.w.Put({Atomic(kAddRtn64), Lo(bad), Hi(bad), 0xFFFFFFFFu, 0xFFFFFFFFu, 0, 0, 0});
  s.Submit();
  e.Step();
  const kfdsim_queue_info info = e.Status(s.q.id);
  CHECK(info.exception_code == k::kEcDeviceMemoryViolation);
  CHECK(info.fault_va == bad);
  CHECK(e.Wait(mem_ev, 0) == k::kWaitResultComplete);
}

}  // namespace
