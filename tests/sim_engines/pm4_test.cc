// kfdsim PM4 CP engine: WRITE_DATA, RELEASE_MEM (data and interrupt),
// indirect buffers, fillers, wraparound, the rptr report and errors.
#include <doctest/doctest.h>

#include "tests/sim_engines/engine_fixture.h"

namespace {

using namespace engtest;

constexpr uint32_t kRing = 4096;
constexpr uint32_t kNop = 0x10;
constexpr uint32_t kWriteData = 0x37;
constexpr uint32_t kIndirectBuffer = 0x3F;
constexpr uint32_t kReleaseMem = 0x49;
constexpr uint32_t kType2 = 0x80000000u;

uint32_t P3(uint32_t op, uint32_t count) { return 3u << 30 | (count & 0x3FFF) << 16 | op << 8; }

struct Pm4Queue {
  Buf ring, ctl;
  QueueRef q;
  RingWriter w;

  explicit Pm4Queue(Engines& e, uint32_t ring_size = kRing) {
    ring = e.Alloc(kGpuA, ring_size);
    ctl = e.Alloc(kGpuA, 4096);
    q = e.CreateQueue(kGpuA, k::kQueueTypeCompute, ring, ring_size, ctl.va, ctl.va + 8);
    w.base = ring.cpu;
    w.size = ring_size;
  }
  void Submit() { Engines::Ring(q, w.wptr / 4); }  // the doorbell counts dwords
  uint32_t RptrReport() const { return *ctl.at<uint32_t>(0); }
};

void WriteData(RingWriter& w, uint64_t va, std::initializer_list<uint32_t> data) {
  w.Put(P3(kWriteData, static_cast<uint32_t>(data.size()) + 2));
  w.Put({5u << 8, Lo(va), Hi(va)});  // dst_sel 5: memory
  w.Put(data);
}

void ReleaseMem(RingWriter& w, uint32_t data_sel, uint32_t int_sel, uint64_t va, uint64_t data,
                uint32_t ctxid) {
  w.Put({P3(kReleaseMem, 6), 0x14 | 5u << 8, data_sel << 29 | int_sel << 24, Lo(va), Hi(va),
         Lo(data), Hi(data), ctxid});
}

TEST_CASE("pm4 WRITE_DATA writes memory and the rptr report is the wrapped dword offset") {
  Engines e(simtest::TwoGpuBoard());
  Pm4Queue p(e);
  Buf dst = e.Alloc(kGpuA, 4096);
  p.w.Put({P3(kNop, 1), 0xBAD0BAD0u, 0xBAD0BAD1u});  // NOP skips count + 1 dwords
  p.w.Put(P3(kNop, 0x3FFF));                           // the one-dword NOP
  p.w.Put(kType2);                                     // type-2 filler
  WriteData(p.w, dst.va + 8, {0xAAAA0001u, 0xAAAA0002u});
  p.Submit();
  CHECK(e.Step() == 4);
  CHECK(*dst.at<uint32_t>(8) == 0xAAAA0001u);
  CHECK(*dst.at<uint32_t>(12) == 0xAAAA0002u);
  CHECK(p.RptrReport() == p.w.wptr / 4);
}

TEST_CASE("pm4 WRITE_DATA with wr_one_addr leaves the last dword") {
  Engines e(simtest::TwoGpuBoard());
  Pm4Queue p(e);
  Buf dst = e.Alloc(kGpuA, 4096);
  p.w.Put({P3(kWriteData, 5), 5u << 8 | 1u << 16, Lo(dst.va), Hi(dst.va), 1, 2, 3});
  p.Submit();
  CHECK(e.Step() == 1);
  CHECK(*dst.at<uint32_t>(0) == 3);
  CHECK(*dst.at<uint32_t>(4) == 0);
}

TEST_CASE("pm4 RELEASE_MEM writes 32/64-bit data and its interrupt sets the event") {
  Engines e(simtest::TwoGpuBoard());
  Pm4Queue p(e);
  Buf dst = e.Alloc(kGpuA, 4096);
  const uint32_t ev = e.SignalEvent(kGpuA);
  const uint32_t other = e.SignalEvent(kGpuA);
  ReleaseMem(p.w, 1, 0, dst.va, 0x1122334455667788ull, 0);
  ReleaseMem(p.w, 2, 0, dst.va + 16, 0x1122334455667788ull, 0);
  ReleaseMem(p.w, 3, 0, dst.va + 32, 0, 0);
  // The runtime's signal: 64-bit data into the event's slot, interrupt with the id.
  ReleaseMem(p.w, 2, 2, e.SlotVa(ev), ev, ev);
  p.Submit();
  CHECK(e.Step() == 4);
  CHECK(*dst.at<uint32_t>(0) == 0x55667788u);
  CHECK(*dst.at<uint32_t>(4) == 0);
  CHECK(*dst.at<uint64_t>(16) == 0x1122334455667788ull);
  CHECK(*dst.at<uint64_t>(32) != 0);  // GPU clock
  CHECK(e.Wait(ev, 0) == k::kWaitResultComplete);
  CHECK(e.Wait(other, 0) == k::kWaitResultTimeout);
  CHECK(e.Slot(ev) == ~0ull);
}

TEST_CASE("pm4 interrupt with a wrong context id falls back to scanning the signaled slots") {
  Engines e(simtest::TwoGpuBoard());
  Pm4Queue p(e);
  const uint32_t ev = e.SignalEvent(kGpuA);
  ReleaseMem(p.w, 1, 2, e.SlotVa(ev), 0, 3000);  // slot written, ctxid names no event
  p.Submit();
  CHECK(e.Step() == 1);
  CHECK(e.Wait(ev, 0) == k::kWaitResultComplete);
}

TEST_CASE("pm4 INDIRECT_BUFFER runs the IB's packets from memory") {
  Engines e(simtest::TwoGpuBoard());
  Pm4Queue p(e);
  Buf dst = e.Alloc(kGpuA, 4096);
  Buf ib = e.Alloc(kGpuA, 4096);
  RingWriter iw{ib.cpu, ib.size, 0};
  WriteData(iw, dst.va, {0x1B1B0001u});
  iw.Put(kType2);
  WriteData(iw, dst.va + 4, {0x1B1B0002u});
  const uint32_t ib_dw = static_cast<uint32_t>(iw.wptr / 4);
  p.w.Put({P3(kIndirectBuffer, 2), Lo(ib.va), Hi(ib.va), ib_dw | 1u << 23});
  WriteData(p.w, dst.va + 8, {0xAF7Eu});
  p.Submit();
  CHECK(e.Step() == 2);
  CHECK(*dst.at<uint32_t>(0) == 0x1B1B0001u);
  CHECK(*dst.at<uint32_t>(4) == 0x1B1B0002u);
  CHECK(*dst.at<uint32_t>(8) == 0xAF7Eu);
}

TEST_CASE("pm4 an IB inside an IB stops the queue") {
  Engines e(simtest::TwoGpuBoard());
  Pm4Queue p(e);
  Buf ib = e.Alloc(kGpuA, 4096);
  RingWriter iw{ib.cpu, ib.size, 0};
  iw.Put({P3(kIndirectBuffer, 2), Lo(ib.va), Hi(ib.va), 4});
  p.w.Put({P3(kIndirectBuffer, 2), Lo(ib.va), Hi(ib.va), 4});
  p.Submit();
  CHECK(e.Step() == 0);
  std::string why;
  CHECK(e.Status(p.q.id, &why).state == KFDSIM_QUEUE_ERROR);
  CHECK(why.find("nested") != std::string::npos);
}

TEST_CASE("pm4 packets straddling the ring end execute after wraparound") {
  Engines e(simtest::TwoGpuBoard());
  Pm4Queue p(e, 1024);
  Buf dst = e.Alloc(kGpuA, 4096);
  p.w.Put(P3(kNop, 256 - 2 - 2));  // 254 dwords: the next packet starts 2 dwords before the end
  for (int i = 0; i < 253; ++i) p.w.Put(0);
  p.Submit();
  CHECK(e.Step() == 1);
  REQUIRE(p.w.wptr / 4 % 256 == 254);
  for (uint32_t round = 0; round < 3; ++round) {
    WriteData(p.w, dst.va + 4 * round, {0xAB000000u + round});
    p.Submit();
    CHECK(e.Step() == 1);
    CHECK(*dst.at<uint32_t>(4 * round) == 0xAB000000u + round);
  }
  CHECK(p.w.wptr > 1024);
  CHECK(p.RptrReport() == (p.w.wptr / 4) % 256);
}

TEST_CASE("pm4 unknown opcodes, register writes and type-0 packets stop the queue") {
  struct Case {
    std::vector<uint32_t> pkt;
    const char* text;
  };
  const Case cases[] = {
      {{P3(0x99, 0), 0}, "opcode 0x99"},
      {{P3(kWriteData, 3), 0u << 8, 0x1000, 0, 1}, "dst_sel 0"},
      {{0x00001234u}, "type 0"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.text);
    Engines e(simtest::TwoGpuBoard());
    Pm4Queue p(e);
    for (uint32_t d : c.pkt) p.w.Put(d);
    p.Submit();
    CHECK(e.Step() == 0);
    std::string why;
    kfdsim_queue_info info = e.Status(p.q.id, &why);
    CHECK(info.state == KFDSIM_QUEUE_ERROR);
    CHECK(info.exception_code == k::kEcQueuePacketUnsupported);
    CHECK(why.find(c.text) != std::string::npos);
    CHECK(info.read_index == 0);
  }
}

TEST_CASE("pm4 RELEASE_MEM to an unmapped address raises a GPU memory fault") {
  Engines e(simtest::TwoGpuBoard());
  Pm4Queue p(e);
  const uint32_t mem_ev = e.MemoryEvent();
  ReleaseMem(p.w, 2, 0, 0x1000, 1, 0);
  p.Submit();
  CHECK(e.Step() == 0);
  CHECK(e.Status(p.q.id).exception_code == k::kEcDeviceMemoryViolation);
  k::EventData d{};
  REQUIRE(e.Wait(mem_ev, 0, &d) == k::kWaitResultComplete);
  CHECK(d.memory_exception_data.va == 0x1000);
}

}  // namespace
