// kfdsim events: the event page (user BO and kernel page), ids and ENOSPC,
// set/reset/auto-reset, blocking waits woken from another thread, timeouts,
// wait-all, event age, destroyed-while-waiting, exceptions, the interrupt.
#include <doctest/doctest.h>
#include <sys/mman.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "tests/sim_core/sim_fixture.h"

namespace {

using namespace simtest;

constexpr uint64_t kPageBytes = 4096 * 8;

// A dGPU process with the thunk's 32 KiB event page BO registered.
struct EventSim : Sim {
  k::AllocMemoryOfGpuArgs page{};
  volatile uint64_t* slots = nullptr;

  EventSim() : Sim(TwoGpuBoard()) {
    AcquireAll();
    REQUIRE(Alloc(kGpuA, kPageBytes, 0xd6000002u, &page) == 0);
    void* p = nullptr;
    REQUIRE(sim->Mmap(nullptr, kPageBytes, PROT_READ | PROT_WRITE, MAP_SHARED, render[128],
                      page.mmap_offset, &p) == 0);
    slots = static_cast<volatile uint64_t*>(p);
  }
  ~EventSim() { munmap(const_cast<uint64_t*>(slots), kPageBytes); }

  int Create(uint32_t type, bool auto_reset, k::CreateEventArgs* out, uint64_t page_handle = 0) {
    std::memset(out, 0, sizeof(*out));
    out->event_page_offset = page_handle;
    out->event_type = type;
    out->auto_reset = auto_reset ? 1 : 0;
    out->node_id = 1;
    return Io(k::kIocCreateEvent, out);
  }
  uint32_t Signal(bool auto_reset) {
    k::CreateEventArgs c;
    REQUIRE(Create(k::kEventSignal, auto_reset, &c, page_set ? 0 : page.handle) == 0);
    page_set = true;
    return c.event_id;
  }
  int Set(uint32_t id) {
    k::SetEventArgs a{};
    a.event_id = id;
    return Io(k::kIocSetEvent, &a);
  }
  int Reset(uint32_t id) {
    k::ResetEventArgs a{};
    a.event_id = id;
    return Io(k::kIocResetEvent, &a);
  }
  int Destroy(uint32_t id) {
    k::DestroyEventArgs a{};
    a.event_id = id;
    return Io(k::kIocDestroyEvent, &a);
  }
  // Returns the ioctl result; *result gets wait_result.
  int Wait(std::vector<k::EventData>& ev, bool all, uint32_t timeout, uint32_t* result) {
    k::WaitEventsArgs w{};
    w.events_ptr = reinterpret_cast<uintptr_t>(ev.data());
    w.num_events = static_cast<uint32_t>(ev.size());
    w.wait_for_all = all ? 1 : 0;
    w.timeout = timeout;
    w.wait_result = 0xA5;
    const int r = Io(k::kIocWaitEvents, &w);
    *result = w.wait_result;
    return r;
  }
  int WaitOne(uint32_t id, uint32_t timeout, uint32_t* result, uint64_t last_age = 0,
              uint64_t* age_out = nullptr) {
    std::vector<k::EventData> ev(1);
    std::memset(ev.data(), 0, sizeof(k::EventData));
    ev[0].event_id = id;
    ev[0].signal_event_data.last_event_age = last_age;
    const int r = Wait(ev, true, timeout, result);
    if (age_out != nullptr) *age_out = ev[0].signal_event_data.last_event_age;
    return r;
  }
  bool page_set = false;
};

TEST_CASE("sim CREATE_EVENT adopts the thunk's event page BO and returns slot ids") {
  EventSim s;
  k::CreateEventArgs c;
  REQUIRE(s.Create(k::kEventSignal, true, &c, s.page.handle) == 0);
  CHECK(c.event_id == 0);
  CHECK(c.event_slot_index == 0);
  CHECK(c.event_trigger_data == 0);
  CHECK(c.event_page_offset == (2ull << 62));
  CHECK(s.slots[0] == ~0ull);  // the page was initialised to "unsignaled"
  CHECK(s.slots[4095] == ~0ull);
  k::CreateEventArgs c2;
  REQUIRE(s.Create(k::kEventSignal, true, &c2) == 0);
  CHECK(c2.event_id == 1);
  // The page is set once; the page BO can no longer be freed.
  CHECK(s.Create(k::kEventSignal, true, &c2, s.page.handle) == EINVAL);
  CHECK(s.Free(s.page.handle) == EPERM);
}

TEST_CASE("sim CREATE_EVENT rejects an event page handle that is not a large enough GTT BO") {
  Sim s(TwoGpuBoard());
  s.AcquireAll();
  k::AllocMemoryOfGpuArgs vram, small;
  REQUIRE(s.Alloc(kGpuA, kPageBytes, kVramFlags, &vram) == 0);
  REQUIRE(s.Alloc(kGpuA, 4096, kGttFlags, &small) == 0);
  k::CreateEventArgs c{};
  c.event_page_offset = vram.handle;
  CHECK(s.Io(k::kIocCreateEvent, &c) == EINVAL);
  c.event_page_offset = small.handle;
  CHECK(s.Io(k::kIocCreateEvent, &c) == EINVAL);
  c.event_page_offset = small.handle + 40;
  CHECK(s.Io(k::kIocCreateEvent, &c) == EINVAL);
}

TEST_CASE("sim signal events stop at the 4096-slot limit with ENOSPC") {
  EventSim s;
  s.Signal(false);
  for (uint32_t i = 1; i < 4096; ++i) {
    k::CreateEventArgs c;
    REQUIRE(s.Create(k::kEventSignal, false, &c) == 0);
    REQUIRE(c.event_id == i);
  }
  k::CreateEventArgs c;
  CHECK(s.Create(k::kEventSignal, false, &c) == ENOSPC);
  // Non-signal events have no slot and take ids from 0x40000000.
  REQUIRE(s.Create(k::kEventMemory, false, &c) == 0);
  CHECK(c.event_id == 0x40000000u);
  // Destroying one frees its slot for the next.
  REQUIRE(s.Destroy(17) == 0);
  REQUIRE(s.Create(k::kEventSignal, false, &c) == 0);
  CHECK(c.event_id == 17);
}

TEST_CASE("sim without a user page allocates 256 slots until the EVENTS page is mapped") {
  Sim s(ApuBoard());
  s.AcquireAll();
  k::CreateEventArgs c{};
  REQUIRE(s.Io(k::kIocCreateEvent, &c) == 0);
  CHECK(c.event_page_offset == (2ull << 62));
  for (int i = 1; i < 256; ++i) {
    k::CreateEventArgs x{};
    REQUIRE(s.Io(k::kIocCreateEvent, &x) == 0);
  }
  k::CreateEventArgs x{};
  CHECK(s.Io(k::kIocCreateEvent, &x) == ENOSPC);
  void* page = nullptr;
  CHECK(s.sim->Mmap(nullptr, kPageBytes * 2, PROT_READ | PROT_WRITE, MAP_SHARED, s.kfd,
                    c.event_page_offset, &page) == EINVAL);
  REQUIRE(s.sim->Mmap(nullptr, kPageBytes, PROT_READ | PROT_WRITE, MAP_SHARED, s.kfd,
                      c.event_page_offset, &page) == 0);
  x = {};
  REQUIRE(s.Io(k::kIocCreateEvent, &x) == 0);
  CHECK(x.event_id == 256);
  CHECK(static_cast<volatile uint64_t*>(page)[256] == ~0ull);
  munmap(page, kPageBytes);
}

TEST_CASE("sim SET/RESET_EVENT accept only known signal events") {
  EventSim s;
  const uint32_t id = s.Signal(false);
  k::CreateEventArgs mem;
  REQUIRE(s.Create(k::kEventMemory, false, &mem) == 0);
  CHECK(s.Set(id) == 0);
  CHECK(s.Reset(id) == 0);
  CHECK(s.Set(mem.event_id) == EINVAL);
  CHECK(s.Reset(mem.event_id) == EINVAL);
  CHECK(s.Set(4000) == EINVAL);
  CHECK(s.Destroy(4000) == EINVAL);
  CHECK(s.Destroy(id) == 0);
  CHECK(s.Set(id) == EINVAL);
}

TEST_CASE("sim WAIT_EVENTS with timeout 0 polls") {
  EventSim s;
  const uint32_t id = s.Signal(false);
  uint32_t result = 0;
  CHECK(s.WaitOne(id, 0, &result) == 0);
  CHECK(result == k::kWaitResultTimeout);
  REQUIRE(s.Set(id) == 0);
  CHECK(s.WaitOne(id, 0, &result) == 0);
  CHECK(result == k::kWaitResultComplete);
  CHECK(s.WaitOne(id, 0, &result) == 0);  // manual reset: still signaled
  CHECK(result == k::kWaitResultComplete);
  REQUIRE(s.Reset(id) == 0);
  CHECK(s.WaitOne(id, 0, &result) == 0);
  CHECK(result == k::kWaitResultTimeout);
}

TEST_CASE("sim auto-reset events are consumed by the wait that sees them") {
  EventSim s;
  const uint32_t id = s.Signal(true);
  REQUIRE(s.Set(id) == 0);
  uint32_t result = 0;
  CHECK(s.WaitOne(id, 0, &result) == 0);
  CHECK(result == k::kWaitResultComplete);
  CHECK(s.WaitOne(id, 0, &result) == 0);
  CHECK(result == k::kWaitResultTimeout);
}

TEST_CASE("sim WAIT_EVENTS returns TIMEOUT after a short timeout") {
  EventSim s;
  const uint32_t id = s.Signal(false);
  uint32_t result = 0;
  const auto start = std::chrono::steady_clock::now();
  CHECK(s.WaitOne(id, 20, &result) == 0);
  CHECK(result == k::kWaitResultTimeout);
  CHECK(std::chrono::steady_clock::now() - start >= std::chrono::milliseconds(20));
}

TEST_CASE("sim WAIT_EVENTS blocks until another thread sets the event") {
  EventSim s;
  const uint32_t id = s.Signal(true);
  uint32_t result = 0xFF;
  int r = -1;
  std::thread waiter([&] { r = s.WaitOne(id, k::kWaitInfinite, &result); });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  REQUIRE(s.Set(id) == 0);
  waiter.join();
  CHECK(r == 0);
  CHECK(result == k::kWaitResultComplete);
  // The blocked waiter consumed the auto-reset signal.
  CHECK(s.WaitOne(id, 0, &result) == 0);
  CHECK(result == k::kWaitResultTimeout);
}

TEST_CASE("sim wait-all with one event never signalled times out; wait-any completes") {
  EventSim s;
  const uint32_t a = s.Signal(false);
  const uint32_t b = s.Signal(false);
  REQUIRE(s.Set(a) == 0);
  std::vector<k::EventData> ev(2);
  std::memset(ev.data(), 0, ev.size() * sizeof(k::EventData));
  ev[0].event_id = a;
  ev[1].event_id = b;
  uint32_t result = 0;
  CHECK(s.Wait(ev, true, 10, &result) == 0);
  CHECK(result == k::kWaitResultTimeout);
  CHECK(s.Wait(ev, false, 10, &result) == 0);
  CHECK(result == k::kWaitResultComplete);
  ev[1].event_id = 3999;
  CHECK(s.Wait(ev, false, 0, &result) == EINVAL);
}

TEST_CASE("sim WAIT_EVENTS fails with EIO when an awaited event is destroyed") {
  EventSim s;
  const uint32_t id = s.Signal(false);
  uint32_t result = 0;
  int r = -1;
  std::thread waiter([&] { r = s.WaitOne(id, k::kWaitInfinite, &result); });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  REQUIRE(s.Destroy(id) == 0);
  waiter.join();
  // Either the waiter was blocked (FAIL/EIO) or it started after the destroy (EINVAL).
  if (r == EIO) {
    CHECK(result == k::kWaitResultFail);
  } else {
    CHECK(r == EINVAL);
  }
}

TEST_CASE("sim WAIT_EVENTS fails with EIO when the process is reset under a waiter") {
  EventSim s;
  const uint32_t id = s.Signal(false);
  uint32_t result = 0;
  int r = -1;
  std::atomic<bool> started{false};
  std::thread waiter([&] {
    started = true;
    r = s.WaitOne(id, k::kWaitInfinite, &result);
  });
  while (!started) std::this_thread::yield();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  s.sim->ResetProcess();
  waiter.join();
  CHECK((r == EIO || r == EINVAL));
  CHECK(s.sim->BoCount() == 0);
}

TEST_CASE("sim event age starts at 1, fires on a differing age and wraps to 2") {
  EventSim s;
  const uint32_t id = s.Signal(false);
  uint32_t result = 0;
  uint64_t age = 0;
  CHECK(s.WaitOne(id, 0, &result, 1, &age) == 0);
  CHECK(result == k::kWaitResultTimeout);
  REQUIRE(s.Set(id) == 0);
  REQUIRE(s.Reset(id) == 0);  // not signaled any more, but the age moved on
  CHECK(s.WaitOne(id, 0, &result, 1, &age) == 0);
  CHECK(result == k::kWaitResultComplete);
  CHECK(age == 2);
  REQUIRE(s.sim->SetEventAge(id, ~0ull) == 0);
  REQUIRE(s.Set(id) == 0);
  CHECK(s.WaitOne(id, 0, &result, 5, &age) == 0);
  CHECK(result == k::kWaitResultComplete);
  CHECK(age == 2);
}

TEST_CASE("sim injected memory and HW exceptions set their events with data") {
  EventSim s;
  k::CreateEventArgs mem, hw;
  REQUIRE(s.Create(k::kEventMemory, false, &mem) == 0);
  REQUIRE(s.Create(k::kEventHwException, false, &hw) == 0);
  k::MemoryExceptionFailure f{};
  f.NotPresent = 1;
  CHECK(s.sim->InjectMemoryException(77, 0x1000, f, 0) == EINVAL);
  REQUIRE(s.sim->InjectMemoryException(kGpuA, 0x7f0000001000ull, f, k::kMemErrSramEcc) == 0);
  std::vector<k::EventData> ev(1);
  std::memset(ev.data(), 0, sizeof(k::EventData));
  ev[0].event_id = mem.event_id;
  uint32_t result = 0;
  REQUIRE(s.Wait(ev, true, 0, &result) == 0);
  CHECK(result == k::kWaitResultComplete);
  CHECK(ev[0].memory_exception_data.va == 0x7f0000001000ull);
  CHECK(ev[0].memory_exception_data.gpu_id == kGpuA);
  CHECK(ev[0].memory_exception_data.failure.NotPresent == 1);
  CHECK(ev[0].memory_exception_data.ErrorType == k::kMemErrSramEcc);
  REQUIRE(s.sim->InjectHwException(kGpuB, 0, k::kHwExceptionEcc, 1) == 0);
  std::memset(ev.data(), 0, sizeof(k::EventData));
  ev[0].event_id = hw.event_id;
  REQUIRE(s.Wait(ev, true, 0, &result) == 0);
  CHECK(result == k::kWaitResultComplete);
  CHECK(ev[0].hw_exception_data.gpu_id == kGpuB);
  CHECK(ev[0].hw_exception_data.reset_cause == k::kHwExceptionEcc);
  CHECK(ev[0].hw_exception_data.memory_lost == 1);
}

TEST_CASE("sim event interrupt sets the events whose slots the GPU wrote") {
  EventSim s;
  const uint32_t a = s.Signal(false);
  const uint32_t b = s.Signal(false);
  CHECK(s.sim->SignalInterrupt() == 0);
  s.slots[b] = b;  // what a GPU end-of-kernel write looks like
  CHECK(s.sim->SignalInterrupt() == 1);
  CHECK(s.slots[b] == ~0ull);  // acknowledged
  uint32_t result = 0;
  CHECK(s.WaitOne(b, 0, &result) == 0);
  CHECK(result == k::kWaitResultComplete);
  CHECK(s.WaitOne(a, 0, &result) == 0);
  CHECK(result == k::kWaitResultTimeout);
}

}  // namespace
