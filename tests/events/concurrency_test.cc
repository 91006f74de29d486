// Waits with other threads: auto-reset with two waiters, destroy while
// waiting, interrupted waits, no lock held while blocked, the wait pool.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>
#include <vector>

#include "lib/core/platform.h"
#include "tests/events/support.h"

using evtest::Create;
using evtest::Join;
using evtest::SimBoard;
using evtest::ThreadId;
using evtest::WaitUntilBlocked;
namespace k = hke::kfd;

namespace {

// A thread that waits on `events` and records its status.
struct Waiter {
  std::atomic<pid_t> tid{0};
  std::atomic<int> status{-1};
  std::thread thread;

  void Start(std::vector<HsaEvent*> events, bool all, uint32_t ms) {
    thread = std::thread([this, events, all, ms]() mutable {
      tid.store(ThreadId());
      status.store(hsaKmtWaitOnMultipleEvents(events.data(), static_cast<HSAuint32>(events.size()),
                                              all, ms));
    });
  }
  void Join() { thread.join(); }
};

}  // namespace

TEST_CASE("one set wakes both waiters blocked on an auto-reset event and leaves it unsignalled") {
  SimBoard b(nullptr, "apu-embedded");
  b.Open();
  HsaEvent* e = Create(/*manual_reset=*/false);
  Waiter w1, w2;
  w1.Start({e}, true, 60000);
  w2.Start({e}, true, 60000);
  WaitUntilBlocked(b, 2, {&w1.tid, &w2.tid});
  CHECK(hsaKmtSetEvent(e) == HSAKMT_STATUS_SUCCESS);
  w1.Join();
  w2.Join();
  CHECK(w1.status.load() == HSAKMT_STATUS_SUCCESS);
  CHECK(w2.status.load() == HSAKMT_STATUS_SUCCESS);
  // Both were woken, so the kernel did not keep the signal.
  CHECK(hsaKmtWaitOnEvent(e, 0) == HSAKMT_STATUS_WAIT_TIMEOUT);
  CHECK(hsaKmtDestroyEvent(e) == HSAKMT_STATUS_SUCCESS);
}

TEST_CASE("a manual-reset set wakes both waiters and stays signalled") {
  SimBoard b(nullptr, "datacenter-4gpu");
  b.Open();
  HsaEvent* e = Create(/*manual_reset=*/true);
  Waiter w1, w2;
  w1.Start({e}, true, 60000);
  w2.Start({e}, true, 60000);
  WaitUntilBlocked(b, 2, {&w1.tid, &w2.tid});
  CHECK(hsaKmtSetEvent(e) == HSAKMT_STATUS_SUCCESS);
  w1.Join();
  w2.Join();
  CHECK(w1.status.load() == HSAKMT_STATUS_SUCCESS);
  CHECK(w2.status.load() == HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtWaitOnEvent(e, 0) == HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtDestroyEvent(e) == HSAKMT_STATUS_SUCCESS);
}

TEST_CASE("an auto-reset signal set before two polling threads is taken by exactly one of them") {
  SimBoard b(nullptr, "apu-embedded");
  b.Open();
  HsaEvent* e = Create(false);
  for (int round = 0; round < 50; ++round) {
    REQUIRE(hsaKmtSetEvent(e) == HSAKMT_STATUS_SUCCESS);
    std::atomic<int> ok{0}, timeout{0};
    std::vector<std::thread> t;
    for (int i = 0; i < 2; ++i) {
      t.emplace_back([&] {
        const HSAKMT_STATUS s = hsaKmtWaitOnEvent(e, 0);
        if (s == HSAKMT_STATUS_SUCCESS) ok.fetch_add(1);
        if (s == HSAKMT_STATUS_WAIT_TIMEOUT) timeout.fetch_add(1);
      });
    }
    for (auto& x : t) x.join();
    CHECK(ok.load() == 1);
    CHECK(timeout.load() == 1);
  }
  CHECK(hsaKmtDestroyEvent(e) == HSAKMT_STATUS_SUCCESS);
}

TEST_CASE("an event destroyed while a thread waits on it fails that wait with WAIT_FAILURE") {
  SimBoard b(nullptr, "datacenter-4gpu");
  b.Open();
  HsaEvent* e = Create(true);
  HsaEvent* other = Create(true);
  Waiter single, any;
  single.Start({e}, true, HSA_EVENTTIMEOUT_INFINITE);
  any.Start({other, e}, false, HSA_EVENTTIMEOUT_INFINITE);  // wait-any: still fails
  WaitUntilBlocked(b, 2, {&single.tid, &any.tid});
  CHECK(hsaKmtDestroyEvent(e) == HSAKMT_STATUS_SUCCESS);
  single.Join();
  any.Join();
  CHECK(single.status.load() == HSAKMT_STATUS_WAIT_FAILURE);
  CHECK(any.status.load() == HSAKMT_STATUS_WAIT_FAILURE);
  CHECK(b.AllDiags().find("destroyed") != std::string::npos);
  // The other event is unharmed.
  CHECK(hsaKmtSetEvent(other) == HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtWaitOnEvent(other, 0) == HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtDestroyEvent(other) == HSAKMT_STATUS_SUCCESS);
}

TEST_CASE("closing the device while a thread waits fails the wait, not the process") {
  SimBoard b(nullptr, "apu-embedded");
  b.Open();
  HsaEvent* e = Create(true);
  Waiter w;
  w.Start({e}, true, HSA_EVENTTIMEOUT_INFINITE);
  WaitUntilBlocked(b, 1, {&w.tid});
  REQUIRE(hsaKmtCloseKFD() == HSAKMT_STATUS_SUCCESS);
  w.Join();
  CHECK(w.status.load() == HSAKMT_STATUS_WAIT_FAILURE);
}

TEST_CASE("an interrupted wait resumes with the time left, never more") {
  SimBoard b(nullptr, "apu-embedded");
  b.Open();
  HsaEvent* e = Create(true, true);
  for (uint32_t ms : {5000u, 0xFFFFFFFFu, 0u}) {
    CAPTURE(ms);
    b.ClearTrace();
    kfdsim_clear_faults(b.sim());
    kfdsim_add_fault(b.sim(), evtest::kWaitKey, EINTR, 1, 2);  // the next two calls
    CHECK(hsaKmtWaitOnEvent(e, ms) == HSAKMT_STATUS_SUCCESS);
    const auto calls = b.Ioctls();
    INFO(Join(calls));
    REQUIRE(calls.size() == 3);
    CHECK(calls[0] == "WAIT_EVENTS!");
    CHECK(calls[1] == "WAIT_EVENTS!");
    CHECK(calls[2] == "WAIT_EVENTS");
    const auto args = b.Args("WAIT_EVENTS");
    REQUIRE(args.size() == 3);
    const uint32_t t0 = SimBoard::As<k::WaitEventsArgs>(args[0]).timeout;
    const uint32_t t1 = SimBoard::As<k::WaitEventsArgs>(args[1]).timeout;
    const uint32_t t2 = SimBoard::As<k::WaitEventsArgs>(args[2]).timeout;
    CHECK(t0 == ms);
    CHECK(t1 <= t0);
    CHECK(t2 <= t1);
    if (ms == 0 || ms == HSA_EVENTTIMEOUT_INFINITE) {
      CHECK(t1 == ms);
      CHECK(t2 == ms);
    }
  }
}

TEST_CASE("interruptions that never let the wait block end the wait with an error, not a hang") {
  // Without a clock every interruption counts against the retry budget;
  // with one, only those that came back within a millisecond do.
  for (bool clock : {false, true}) {
    CAPTURE(clock);
    SimBoard b(nullptr, "apu-embedded", 0, clock);
    b.Open();
    HsaEvent* e = Create(true);
    for (uint32_t ms : {0xFFFFFFFFu, 60000u, 0u}) {
      CAPTURE(ms);
      b.ClearTrace();
      kfdsim_clear_faults(b.sim());
      kfdsim_add_fault(b.sim(), evtest::kWaitKey, EINTR, 1, 0);  // every call
      CHECK(hsaKmtWaitOnEvent(e, ms) == HSAKMT_STATUS_ERROR);
      if (clock) {
        CHECK(b.Count("WAIT_EVENTS!") >= hke::Platform::kDefaultIoctlRetries + 1);
      } else {
        CHECK(b.Count("WAIT_EVENTS!") == hke::Platform::kDefaultIoctlRetries + 1);
      }
      CHECK(b.Count("WAIT_EVENTS") == 0);
    }
    CHECK(b.AllDiags().find("interrupted") != std::string::npos);
    kfdsim_clear_faults(b.sim());
    CHECK(hsaKmtDestroyEvent(e) == HSAKMT_STATUS_SUCCESS);
  }
}

TEST_CASE("without a platform clock an interrupted wait resumes with the kernel's remainder") {
  SimBoard b(nullptr, "apu-embedded", 0, /*with_clock=*/false);
  b.Open();
  HsaEvent* e = Create(true, true);
  b.ClearTrace();
  kfdsim_add_fault(b.sim(), evtest::kWaitKey, EINTR, 1, 1);
  CHECK(hsaKmtWaitOnEvent(e, 3000) == HSAKMT_STATUS_SUCCESS);
  const auto args = b.Args("WAIT_EVENTS");
  REQUIRE(args.size() == 2);
  // The injected failure left the timeout as sent: the resume cannot grow it.
  CHECK(SimBoard::As<k::WaitEventsArgs>(args[1]).timeout <= 3000u);
}

TEST_CASE("a blocked wait holds no library lock: other threads create, set, destroy and allocate") {
  SimBoard b(nullptr, "datacenter-4gpu");
  b.Open();
  HsaEvent* e = Create(true);
  Waiter w;
  w.Start({e}, true, HSA_EVENTTIMEOUT_INFINITE);
  WaitUntilBlocked(b, 1, {&w.tid});
  for (int i = 0; i < 20; ++i) {
    HsaEvent* x = Create(false, true);
    CHECK(hsaKmtWaitOnEvent(x, 0) == HSAKMT_STATUS_SUCCESS);
    CHECK(hsaKmtDestroyEvent(x) == HSAKMT_STATUS_SUCCESS);
  }
  HsaMemFlags f;
  f.Value = 0;
  f.ui32.NonPaged = 1;
  f.ui32.HostAccess = 1;
  void* p = nullptr;
  CHECK(hsaKmtAllocMemory(0, 4096, f, &p) == HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtFreeMemory(p, 4096) == HSAKMT_STATUS_SUCCESS);
  CHECK(w.status.load() == -1);  // still waiting
  CHECK(hsaKmtSetEvent(e) == HSAKMT_STATUS_SUCCESS);
  w.Join();
  CHECK(w.status.load() == HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtDestroyEvent(e) == HSAKMT_STATUS_SUCCESS);
}

TEST_CASE("SetEvent and ResetEvent hold no library lock inside their ioctl: the same event is usable from inside it") {
  SimBoard b(nullptr, "datacenter-4gpu");
  b.Open();
  HsaEvent* e = Create(true);
  HsaEvent* other = Create(false);
  int inside = 0;
  // Before the fix these calls re-entered a held spin lock and hung.
  auto hook = [&] {
    ++inside;
    CHECK(hsaKmtQueryEventState(e) == HSAKMT_STATUS_SUCCESS);
    CHECK(hsaKmtSetEvent(other) == HSAKMT_STATUS_SUCCESS);
  };
  b.BeforeIoctl(k::kIocResetEvent, hook);
  CHECK(hsaKmtResetEvent(e) == HSAKMT_STATUS_SUCCESS);
  b.BeforeIoctl(k::kIocSetEvent, [&] {
    b.BeforeIoctl(0, nullptr);  // the nested SetEvent below runs unhooked
    hook();
  });
  CHECK(hsaKmtSetEvent(e) == HSAKMT_STATUS_SUCCESS);
  b.BeforeIoctl(0, nullptr);
  CHECK(inside == 2);
  CHECK(hsaKmtWaitOnEvent(other, 0) == HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtWaitOnEvent(e, 0) == HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtDestroyEvent(e) == HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtDestroyEvent(other) == HSAKMT_STATUS_SUCCESS);
}

TEST_CASE("a DestroyEvent racing a SetEvent refuses the handle at once but sends DESTROY_EVENT after SET_EVENT returned") {
  SimBoard b(nullptr, "datacenter-4gpu");
  b.Open();
  HsaEvent* e = Create(true);
  std::atomic<int> destroy_status{-1};
  std::thread destroyer;
  b.ClearTrace();
  b.BeforeIoctl(k::kIocSetEvent, [&] {
    b.BeforeIoctl(0, nullptr);
    destroyer = std::thread([&] { destroy_status.store(hsaKmtDestroyEvent(e)); });
    // Destroy marks the handle first: from then on calls on it are refused.
    const auto start = std::chrono::steady_clock::now();
    while (hsaKmtQueryEventState(e) == HSAKMT_STATUS_SUCCESS &&
           std::chrono::steady_clock::now() - start < std::chrono::seconds(10)) {
      std::this_thread::yield();
    }
    CHECK(hsaKmtQueryEventState(e) == HSAKMT_STATUS_INVALID_HANDLE);
    // ... but the kernel call waits for this SET_EVENT.
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    CHECK(b.Count("DESTROY_EVENT") == 0);
    CHECK(destroy_status.load() == -1);
  });
  CHECK(hsaKmtSetEvent(e) == HSAKMT_STATUS_SUCCESS);
  destroyer.join();
  CHECK(destroy_status.load() == HSAKMT_STATUS_SUCCESS);
  const auto calls = b.Ioctls();
  INFO(Join(calls));
  REQUIRE(calls.size() == 2);
  CHECK(calls[0] == "SET_EVENT");
  CHECK(calls[1] == "DESTROY_EVENT");
  CHECK(b.Stats().live == 0);
}

TEST_CASE("a refused DESTROY_EVENT keeps the event live and usable") {
  SimBoard b(nullptr, "datacenter-4gpu");
  b.Open();
  HsaEvent* e = Create(true);
  kfdsim_add_fault(b.sim(), k::kIocDestroyEvent & 0xFFFFu, EBUSY, 1, 1);
  CHECK(hsaKmtDestroyEvent(e) != HSAKMT_STATUS_SUCCESS);
  CHECK(b.Stats().live == 1);
  CHECK(hsaKmtSetEvent(e) == HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtWaitOnEvent(e, 0) == HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtDestroyEvent(e) == HSAKMT_STATUS_SUCCESS);
  CHECK(b.Stats().live == 0);
  CHECK(hsaKmtQueryEventState(e) == HSAKMT_STATUS_INVALID_HANDLE);
}

TEST_CASE("large waits take one pool buffer each; one more than the pool is OUT_OF_RESOURCES") {
  SimBoard b(nullptr, "apu-embedded");
  b.Open();
  constexpr uint32_t n = hke::events::kWaitStackEvents + 1;
  std::vector<HsaEvent*> ev;
  for (uint32_t i = 0; i < n; ++i) ev.push_back(Create(true));
  std::vector<Waiter> w(hke::events::kWaitPoolBuffers);
  std::vector<std::atomic<pid_t>*> tids;
  for (auto& x : w) {
    x.Start(ev, true, HSA_EVENTTIMEOUT_INFINITE);
    tids.push_back(&x.tid);
  }
  WaitUntilBlocked(b, static_cast<int>(w.size()), tids);
  CHECK(b.Stats().pool_in_use == hke::events::kWaitPoolBuffers);
  b.ClearTrace();
  CHECK(hsaKmtWaitOnMultipleEvents(ev.data(), n, true, 0) == HSAKMT_STATUS_OUT_OF_RESOURCES);
  CHECK(b.Ioctls().empty());
  // Small waits use the stack and still work.
  CHECK(hsaKmtWaitOnMultipleEvents(ev.data(), hke::events::kWaitStackEvents, true, 0) ==
        HSAKMT_STATUS_WAIT_TIMEOUT);
  for (HsaEvent* e : ev) CHECK(hsaKmtSetEvent(e) == HSAKMT_STATUS_SUCCESS);
  for (auto& x : w) {
    x.Join();
    CHECK(x.status.load() == HSAKMT_STATUS_SUCCESS);
  }
  CHECK(b.Stats().pool_in_use == 0);
  CHECK(b.Stats().pool_high_water == hke::events::kWaitPoolBuffers);
  for (HsaEvent* e : ev) CHECK(hsaKmtDestroyEvent(e) == HSAKMT_STATUS_SUCCESS);
}

TEST_CASE("an EBADF from a wait whose descriptor a close released during the wait does not mark the next open as a forked child's") {
  SimBoard b(nullptr, "datacenter-4gpu");
  b.Open();
  HsaEvent* e = Create(false);
  b.BeforeIoctl(k::kIocWaitEvents, [&] {
    b.BeforeIoctl(0, nullptr);
    // The wait has left the open gate while it is in the kernel: a close
    // and a reopen run meanwhile, and the kernel then refuses the released
    // descriptor.
    CHECK(hsaKmtCloseKFD() == HSAKMT_STATUS_SUCCESS);
    CHECK(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
    kfdsim_add_fault(b.sim(), evtest::kWaitKey, EBADF, 1, 1);
  });
  CHECK(hsaKmtWaitOnEvent(e, 0) != HSAKMT_STATUS_SUCCESS);
  b.BeforeIoctl(0, nullptr);
  // The open current now is this process's own: calls that need the
  // device still work on it (a forked child's would be refused with
  // KERNEL_IO_CHANNEL_NOT_OPENED).
  CHECK(b.AllDiags().find("the device was closed while WAIT_EVENTS was in the kernel") !=
        std::string::npos);
  HsaSystemProperties sys;
  CHECK(hsaKmtAcquireSystemProperties(&sys) == HSAKMT_STATUS_SUCCESS);
  HsaMemFlags f{};
  f.ui32.HostAccess = 1;
  void* p = nullptr;
  CHECK(hsaKmtAllocMemory(0, 4096, f, &p) == HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtFreeMemory(p, 4096) == HSAKMT_STATUS_SUCCESS);
}

TEST_CASE("an EBADF from a wait whose descriptor a close released during the wait is reported as that close, not as a fork") {
  SimBoard b(nullptr, "datacenter-4gpu");
  b.Open();
  HsaEvent* e = Create(false);
  b.BeforeIoctl(k::kIocWaitEvents, [&] {
    b.BeforeIoctl(0, nullptr);
    CHECK(hsaKmtCloseKFD() == HSAKMT_STATUS_SUCCESS);
    kfdsim_add_fault(b.sim(), evtest::kWaitKey, EBADF, 1, 1);
  });
  CHECK(hsaKmtWaitOnEvent(e, 0) != HSAKMT_STATUS_SUCCESS);
  b.BeforeIoctl(0, nullptr);
  const std::string diags = b.AllDiags();
  INFO(diags);
  CHECK(diags.find("the device was closed while WAIT_EVENTS was in the kernel") != std::string::npos);
  CHECK(diags.find("forked child") == std::string::npos);
  CHECK(diags.find("WAIT_EVENTS failed") == std::string::npos);  // reported once
}
