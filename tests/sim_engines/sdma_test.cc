// kfdsim SDMA engine: copies, writes, fills, fences, traps, polls, ring
// wraparound, read-pointer write-back and the errors that stop a queue.
#include <doctest/doctest.h>

#include <atomic>
#include <thread>

#include "platform/sim/core/gem_abi.h"
#include "tests/sim_engines/engine_fixture.h"

namespace {

using namespace engtest;

constexpr uint32_t kRing = 4096;

uint32_t SdmaNop(uint32_t count) { return count << 16; }
constexpr uint32_t kCopyLinear = 1;
constexpr uint32_t kWriteLinear = 2;
constexpr uint32_t kFence = 5;
constexpr uint32_t kTrap = 6;
uint32_t PollMem(uint32_t func) { return 8u | func << 28 | 1u << 31; }
uint32_t ConstFill(uint32_t fillsize) { return 11u | fillsize << 30; }
constexpr uint32_t kTimestampGet = 13u | 1u << 8;

// One SDMA queue on GPU A with its ring and rptr/wptr words in GTT BOs.
struct SdmaQueue {
  Buf ring, ctl;
  QueueRef q;
  RingWriter w;

  explicit SdmaQueue(Engines& e, uint32_t ring_size = kRing) {
    ring = e.Alloc(kGpuA, ring_size);
    ctl = e.Alloc(kGpuA, 4096);
    q = e.CreateQueue(kGpuA, k::kQueueTypeSdma, ring, ring_size, ctl.va, ctl.va + 8);
    w.base = ring.cpu;
    w.size = ring_size;
  }
  void Submit() { Engines::Ring(q, w.wptr); }
  uint64_t Rptr() const { return *ctl.at<uint64_t>(0); }
};

TEST_CASE("sdma COPY_LINEAR copies system memory into VRAM byte for byte") {
  Engines e(simtest::TwoGpuBoard());
  SdmaQueue s(e);
  Buf sys = e.Userptr(kGpuA, 3 * 65536);
  Buf vram = e.Alloc(kGpuA, 3 * 65536, k::kAllocMemVram);
  for (uint64_t i = 0; i < sys.size; ++i) sys.cpu[i] = static_cast<uint8_t>(i * 7 + 3);
  const uint64_t bytes = 2 * 65536 + 1000;  // more than one internal chunk, odd size
  s.w.Put({kCopyLinear, static_cast<uint32_t>(bytes - 1), 0, Lo(sys.va), Hi(sys.va),
           Lo(vram.va + 16), Hi(vram.va + 16)});
  s.Submit();
  CHECK(e.Step() == 1);
  CHECK(std::memcmp(vram.cpu + 16, sys.cpu, bytes) == 0);
  CHECK(vram.cpu[16 + bytes] == 0);  // count is bytes - 1: nothing beyond
  CHECK(s.Rptr() == s.w.wptr);       // read pointer written back (bytes)
  CHECK(e.Status(s.q.id).state == KFDSIM_QUEUE_IDLE);
  CHECK(e.Status(s.q.id).packets_done == 1);
}

TEST_CASE("sdma WRITE_LINEAR, CONSTANT_FILL, FENCE and NOP bodies do what they say") {
  Engines e(simtest::TwoGpuBoard());
  SdmaQueue s(e);
  Buf dst = e.Alloc(kGpuA, 8192);
  s.w.Put({SdmaNop(2), 0xDEAD0001u, 0xDEAD0002u});  // NOP skips its 2-dword body
  s.w.Put({kWriteLinear, Lo(dst.va), Hi(dst.va), 2, 0x11111111u, 0x22222222u, 0x33333333u});
  s.w.Put({ConstFill(2), Lo(dst.va + 64), Hi(dst.va + 64), 0xA1B2C3D4u, 16 - 1});
  s.w.Put({ConstFill(0), Lo(dst.va + 128), Hi(dst.va + 128), 0x5Au, 5 - 1});
  s.w.Put({kFence, Lo(dst.va + 256), Hi(dst.va + 256), 0xFEEDu});
  s.w.Put({kTimestampGet, Lo(dst.va + 512), Hi(dst.va + 512)});
  s.Submit();
  CHECK(e.Step() == 6);
  CHECK(*dst.at<uint32_t>(0) == 0x11111111u);
  CHECK(*dst.at<uint32_t>(8) == 0x33333333u);
  CHECK(*dst.at<uint32_t>(12) == 0);
  for (int i = 0; i < 4; ++i) CHECK(*dst.at<uint32_t>(64 + 4 * i) == 0xA1B2C3D4u);
  CHECK(*dst.at<uint32_t>(80) == 0);
  for (int i = 0; i < 5; ++i) CHECK(dst.cpu[128 + i] == 0x5A);
  CHECK(dst.cpu[133] == 0);
  CHECK(*dst.at<uint32_t>(256) == 0xFEEDu);
  CHECK(*dst.at<uint64_t>(512) != 0);
}

TEST_CASE("sdma packets straddling the ring end execute after wraparound") {
  Engines e(simtest::TwoGpuBoard());
  SdmaQueue s(e, 1024);
  Buf dst = e.Alloc(kGpuA, 4096);
  // Fill most of the ring with NOPs, run them, then write a WRITE_LINEAR
  // that starts 8 bytes before the end.
  s.w.Put(SdmaNop(1024 / 4 - 2 - 1));
  for (uint32_t i = 0; i < 1024 / 4 - 2 - 1; ++i) s.w.Put(0);
  s.Submit();
  CHECK(e.Step() == 1);
  REQUIRE(s.w.wptr % 1024 == 1016);
  for (uint32_t round = 0; round < 5; ++round) {
    s.w.Put({kWriteLinear, Lo(dst.va + 4 * round), Hi(dst.va + 4 * round), 0, 0xC0DE0000u + round});
    s.Submit();
    CHECK(e.Step() == 1);
    CHECK(*dst.at<uint32_t>(4 * round) == 0xC0DE0000u + round);
  }
  CHECK(s.Rptr() == s.w.wptr);
  CHECK(s.w.wptr > 1024);  // really wrapped
}

TEST_CASE("sdma POLL_REGMEM stalls the queue until the memory condition holds") {
  Engines e(simtest::TwoGpuBoard());
  SdmaQueue s(e);
  Buf flag = e.Alloc(kGpuA, 4096);
  *flag.at<uint32_t>(0) = 1;
  s.w.Put({PollMem(3), Lo(flag.va), Hi(flag.va), 7, 0xFF, 0x00100010u});  // (v & 0xFF) == 7
  s.w.Put({kFence, Lo(flag.va + 8), Hi(flag.va + 8), 99});
  s.Submit();
  CHECK(e.Step() == 0);
  std::string why;
  CHECK(e.Status(s.q.id, &why).state == KFDSIM_QUEUE_WAITING);
  CHECK(why.find("POLL_REGMEM") != std::string::npos);
  CHECK(*flag.at<uint32_t>(8) == 0);
  *flag.at<uint32_t>(0) = 0x307;  // masked: 7
  CHECK(e.Step() == 2);
  CHECK(*flag.at<uint32_t>(8) == 99);
  CHECK(e.Status(s.q.id).state == KFDSIM_QUEUE_IDLE);
}

TEST_CASE("sdma FENCE then TRAP wakes a WAIT_EVENTS blocked in another thread") {
  Engines e(simtest::TwoGpuBoard(), KFDSIM_ENGINES_THREAD);
  SdmaQueue s(e);
  const uint32_t ev = e.SignalEvent(kGpuA);
  std::atomic<uint32_t> result{99};
  std::thread waiter([&] { result = e.Wait(ev, k::kWaitInfinite); });
  // The runtime's pattern: FENCE the event id into the event's slot, then
  // TRAP with the id as interrupt context. No explicit step: the engine
  // thread runs it.
  s.w.Put({kFence, Lo(e.SlotVa(ev)), Hi(e.SlotVa(ev)), ev});
  s.w.Put({kTrap, ev});
  s.Submit();
  waiter.join();
  CHECK(result.load() == k::kWaitResultComplete);
  CHECK(e.Slot(ev) == ~0ull);  // acknowledged by the interrupt handler
  // The interrupt is delivered after the engine wrote its read pointer back:
  // the woken waiter sees the queue past the TRAP.
  CHECK(__atomic_load_n(s.ctl.at<uint64_t>(0), __ATOMIC_ACQUIRE) == s.w.wptr);
}

TEST_CASE("sdma TRAP without a signaled slot sets nothing") {
  Engines e(simtest::TwoGpuBoard());
  SdmaQueue s(e);
  const uint32_t ev = e.SignalEvent(kGpuA);
  s.w.Put({kTrap, ev});
  s.Submit();
  CHECK(e.Step() == 1);
  CHECK(e.Wait(ev, 0) == k::kWaitResultTimeout);
}

TEST_CASE("sdma unknown opcode stops the queue with an error and nothing after it runs") {
  Engines e(simtest::TwoGpuBoard());
  SdmaQueue s(e);
  Buf dst = e.Alloc(kGpuA, 4096);
  s.w.Put({kFence, Lo(dst.va), Hi(dst.va), 1});
  const uint64_t bad_at = s.w.wptr;
  s.w.Put(0x7Fu);  // no such op
  s.w.Put({kFence, Lo(dst.va + 4), Hi(dst.va + 4), 2});
  s.Submit();
  CHECK(e.Step() == 1);
  std::string why;
  kfdsim_queue_info info = e.Status(s.q.id, &why);
  CHECK(info.state == KFDSIM_QUEUE_ERROR);
  CHECK(info.exception_code == k::kEcQueuePacketUnsupported);
  CHECK(info.exception_mask == k::EcMask(k::kEcQueuePacketUnsupported));
  CHECK(info.read_index == bad_at);
  CHECK(why.find("op 127") != std::string::npos);
  CHECK(*dst.at<uint32_t>(4) == 0);
  s.Submit();
  CHECK(e.Step() == 0);  // a stopped queue never runs again
}

TEST_CASE("sdma copy from an unmapped address faults: memory event set, queue stopped") {
  Engines e(simtest::TwoGpuBoard());
  SdmaQueue s(e);
  Buf dst = e.Alloc(kGpuA, 4096);
  const uint32_t mem_ev = e.MemoryEvent();
  const uint64_t bad = 0x7ff000000000ull;
  s.w.Put({kCopyLinear, 63, 0, Lo(bad), Hi(bad), Lo(dst.va), Hi(dst.va)});
  s.Submit();
  CHECK(e.Step() == 0);
  kfdsim_queue_info info = e.Status(s.q.id);
  CHECK(info.state == KFDSIM_QUEUE_ERROR);
  CHECK(info.exception_code == k::kEcDeviceMemoryViolation);
  CHECK(info.fault_va == bad);
  k::EventData d{};
  REQUIRE(e.Wait(mem_ev, 0, &d) == k::kWaitResultComplete);
  CHECK(d.memory_exception_data.va == bad);
  CHECK(d.memory_exception_data.gpu_id == kGpuA);
  CHECK(d.memory_exception_data.failure.NotPresent == 1);
}

TEST_CASE("sdma copy running off the end of its BO faults instead of spilling") {
  Engines e(simtest::TwoGpuBoard());
  SdmaQueue s(e);
  Buf src = e.Alloc(kGpuA, 4096);
  Buf dst = e.Alloc(kGpuA, 4096);
  s.w.Put({kCopyLinear, 4096 + 16 - 1, 0, Lo(src.va), Hi(src.va), Lo(dst.va), Hi(dst.va)});
  s.Submit();
  e.Step();
  CHECK(e.Status(s.q.id).state == KFDSIM_QUEUE_ERROR);
  CHECK(e.Status(s.q.id).exception_code == k::kEcDeviceMemoryViolation);
}

TEST_CASE("sdma POLL_REGMEM on a register stops the queue") {
  Engines e(simtest::TwoGpuBoard());
  SdmaQueue s(e);
  s.w.Put({8u | 3u << 28, 0x1234, 0, 0, 0xFFFFFFFFu, 0});
  s.Submit();
  e.Step();
  std::string why;
  CHECK(e.Status(s.q.id, &why).state == KFDSIM_QUEUE_ERROR);
  CHECK(why.find("register") != std::string::npos);
}

TEST_CASE("sdma a write pointer more than a ring ahead stops the queue") {
  Engines e(simtest::TwoGpuBoard());
  SdmaQueue s(e);
  Engines::Ring(s.q, kRing + 4);
  e.Step();
  CHECK(e.Status(s.q.id).state == KFDSIM_QUEUE_ERROR);
}

TEST_CASE("sdma a packet not completely published waits for the rest") {
  Engines e(simtest::TwoGpuBoard());
  SdmaQueue s(e);
  Buf dst = e.Alloc(kGpuA, 4096);
  s.w.Put({kFence, Lo(dst.va), Hi(dst.va), 5});
  Engines::Ring(s.q, 8);  // half the packet
  CHECK(e.Step() == 0);
  CHECK(e.Status(s.q.id).state == KFDSIM_QUEUE_WAITING);
  s.Submit();
  CHECK(e.Step() == 1);
  CHECK(*dst.at<uint32_t>(0) == 5);
}

// ---- interop: render-node BOs and SVM memory as the GPU sees them ----

TEST_CASE("sdma reads a render-node BO imported through the KFD: what the CPU wrote through GEM_MMAP") {
  namespace gem = kfdsim::gem;
  Engines e(simtest::TwoGpuBoard());
  SdmaQueue s(e);
  int render = -1;
  REQUIRE(e.sim->Open("/dev/dri/renderD128", O_RDWR | O_CLOEXEC, &render) == 0);
  gem::GemCreate c{};
  c.in.bo_size = 8192;
  c.in.domains = gem::kDomainVram;
  c.in.domain_flags = gem::kCreateCpuAccessRequired;
  REQUIRE(e.sim->Ioctl(render, gem::kIocGemCreate, &c) == 0);
  const uint32_t handle = c.out.handle;
  gem::GemMmap m{};
  m.in.handle = handle;
  REQUIRE(e.sim->Ioctl(render, gem::kIocGemMmap, &m) == 0);
  void* cpu = nullptr;
  REQUIRE(e.sim->Mmap(nullptr, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, render, m.out.addr_ptr,
                      &cpu) == 0);
  for (int i = 0; i < 8192; ++i) static_cast<uint8_t*>(cpu)[i] = static_cast<uint8_t>(i * 13 + 1);
  gem::PrimeHandle p{handle, gem::kPrimeCloexec | gem::kPrimeRdwr, -1};
  REQUIRE(e.sim->Ioctl(render, gem::kIocPrimeHandleToFd, &p) == 0);
  k::ImportDmabufArgs im{};
  im.gpu_id = kGpuA;
  im.dmabuf_fd = static_cast<uint32_t>(p.fd);
  im.va_addr = 0x7f4000000000ull;
  REQUIRE(e.Io(k::kIocImportDmabuf, &im) == 0);
  e.Map(im.handle, kGpuA);
  Buf dst = e.Alloc(kGpuA, 8192);
  s.w.Put({kCopyLinear, 8192 - 1, 0, Lo(im.va_addr), Hi(im.va_addr), Lo(dst.va), Hi(dst.va)});
  s.Submit();
  CHECK(e.Step() == 1);
  CHECK(std::memcmp(dst.cpu, cpu, 8192) == 0);
  CHECK(e.Status(s.q.id).state == KFDSIM_QUEUE_IDLE);
  munmap(cpu, 8192);
  close(p.fd);
  e.sim->Close(render);
}

TEST_CASE("sdma reading host memory with XNACK on takes a retry fault: PAGE_FAULT records, the copy completes") {
  kfdsim::GpuDesc a = simtest::Gfx90a();
  kfdsim::GpuDesc c = simtest::Gfx90a();
  c.node_id = 2;
  c.gpu_id = 0xc0de;
  c.render_minor = 130;
  Engines e(simtest::MakeBoard({a, c}));
  k::SetXnackModeArgs x{};
  x.xnack_enabled = 1;
  REQUIRE(e.Io(k::kIocSetXnackMode, &x) == 0);  // before any queue
  k::SmiEventsArgs smi{};
  smi.gpuid = kGpuA;
  REQUIRE(e.Io(k::kIocSmiEvents, &smi) == 0);
  const uint64_t mask = k::SmiEventMask(k::kSmiEventPageFaultStart) |
                        k::SmiEventMask(k::kSmiEventPageFaultEnd);
  REQUIRE(write(static_cast<int>(smi.anon_fd), &mask, sizeof(mask)) == 8);
  SdmaQueue s(e);
  // Plain host memory: no BO, no SVM range.
  void* host = mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(host != MAP_FAILED);
  std::memset(host, 0x5A, 4096);
  const uint64_t src = reinterpret_cast<uintptr_t>(host);
  Buf dst = e.Alloc(kGpuA, 4096);
  s.w.Put({kCopyLinear, 4096 - 1, 0, Lo(src), Hi(src), Lo(dst.va), Hi(dst.va)});
  s.Submit();
  CHECK(e.Step() == 1);
  CHECK(dst.cpu[0] == 0x5A);
  CHECK(dst.cpu[4095] == 0x5A);
  char buf[512] = {};
  const ssize_t n = read(static_cast<int>(smi.anon_fd), buf, sizeof(buf) - 1);
  REQUIRE(n > 0);
  const std::string text(buf, static_cast<size_t>(n));
  CHECK(text.rfind("7 ", 0) == 0);  // PAGE_FAULT_START first
  CHECK(text.find("(d161) R\n") != std::string::npos);
  CHECK(text.find("\n8 ") != std::string::npos);  // then PAGE_FAULT_END
  close(static_cast<int>(smi.anon_fd));
  munmap(host, 4096);
}

}  // namespace
