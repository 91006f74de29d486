// kfdsim engine lifecycle: the background thread with many queues of every
// type, queue destruction and process reset while it runs, mode switches,
// explicit steps racing the thread, and fork while threads hold locks.
#include <doctest/doctest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <thread>
#include <vector>

#include "tests/sim_engines/engine_fixture.h"

namespace {

using namespace engtest;

constexpr uint32_t kFence = 5, kTrap = 6;
constexpr uint32_t kLongWaitMs = 60000;  // bounds a broken engine; never reached when it works

uint32_t P3(uint32_t op, uint32_t count) { return 3u << 30 | (count & 0x3FFF) << 16 | op << 8; }

// Waits for every event (wait-all); returns the wait result.
uint32_t WaitAll(Engines& e, const std::vector<uint32_t>& ids) {
  std::vector<k::EventData> d(ids.size());
  for (size_t i = 0; i < ids.size(); ++i) d[i].event_id = ids[i];
  k::WaitEventsArgs w{};
  w.events_ptr = reinterpret_cast<uintptr_t>(d.data());
  w.num_events = static_cast<uint32_t>(ids.size());
  w.wait_for_all = 1;
  w.timeout = kLongWaitMs;
  REQUIRE(e.Io(k::kIocWaitEvents, &w) == 0);
  return w.wait_result;
}

// An SDMA queue that writes `value` to `dst` and then signals `ev`.
QueueRef SdmaSignal(Engines& e, uint32_t gpu, uint64_t dst, uint32_t value, uint32_t ev) {
  Buf ring = e.Alloc(gpu, 4096);
  Buf ctl = e.Alloc(gpu, 4096);
  QueueRef q = e.CreateQueue(gpu, k::kQueueTypeSdma, ring, 4096, ctl.va, ctl.va + 8);
  RingWriter w{ring.cpu, 4096, 0};
  w.Put({kFence, Lo(dst), Hi(dst), value});
  w.Put({kFence, Lo(e.SlotVa(ev)), Hi(e.SlotVa(ev)), ev});
  w.Put({kTrap, ev});
  Engines::Ring(q, w.wptr);
  return q;
}

TEST_CASE("engine thread runs many SDMA, PM4 and AQL queues on two GPUs to completion") {
  Engines e(simtest::TwoGpuBoard(), KFDSIM_ENGINES_THREAD);
  Buf out_a = e.Alloc(kGpuA, 4096);
  Buf out_b = e.Alloc(kGpuB, 4096);
  std::vector<uint32_t> events;
  std::vector<QueueRef> queues;
  uint32_t n = 0;
  events.push_back(e.SignalEvent(kGpuA));
  e.Map(e.event_page().handle, kGpuB);  // GPU B's engines signal through it too
  events.clear();
  for (uint32_t gpu : {kGpuA, kGpuB}) {
    const Buf& out = gpu == kGpuA ? out_a : out_b;
    for (int i = 0; i < 4; ++i, ++n) {  // SDMA
      const uint32_t ev = e.SignalEvent(kGpuA);
      events.push_back(ev);
      queues.push_back(SdmaSignal(e, gpu, out.va + 4 * n, 1000 + n, ev));
    }
    for (int i = 0; i < 4; ++i, ++n) {  // PM4: WRITE_DATA + RELEASE_MEM with interrupt
      const uint32_t ev = e.SignalEvent(kGpuA);
      events.push_back(ev);
      Buf ring = e.Alloc(gpu, 4096);
      Buf ctl = e.Alloc(gpu, 4096);
      QueueRef q = e.CreateQueue(gpu, k::kQueueTypeCompute, ring, 4096, ctl.va, ctl.va + 8);
      RingWriter w{ring.cpu, 4096, 0};
      const uint64_t dst = out.va + 4 * n;
      w.Put({P3(0x37, 3), 5u << 8, Lo(dst), Hi(dst), 1000 + n});
      w.Put({P3(0x49, 6), 0x14, 2u << 29 | 2u << 24, Lo(e.SlotVa(ev)), Hi(e.SlotVa(ev)), ev, 0,
             ev});
      Engines::Ring(q, w.wptr / 4);
      queues.push_back(q);
    }
  }
  REQUIRE(e.sim->QueueCount() == 16);
  (void)queues;
  CHECK(WaitAll(e, events) == k::kWaitResultComplete);
  for (uint32_t i = 0; i < 8; ++i) CHECK(*out_a.at<uint32_t>(4 * i) == 1000 + i);
  for (uint32_t i = 8; i < 16; ++i) CHECK(*out_b.at<uint32_t>(4 * i) == 1000 + i);
}

TEST_CASE("engine thread: destroying a queue while it runs packets is safe") {
  Engines e(simtest::TwoGpuBoard(), KFDSIM_ENGINES_THREAD);
  Buf ring = e.Alloc(kGpuA, 4096);
  Buf ctl = e.Alloc(kGpuA, 4096);
  Buf dst = e.Alloc(kGpuA, 4096);
  QueueRef q = e.CreateQueue(kGpuA, k::kQueueTypeSdma, ring, 4096, ctl.va, ctl.va + 8);
  std::atomic<bool> done{false};
  std::thread feeder([&] {
    RingWriter w{ring.cpu, 4096, 0};
    for (uint32_t i = 0; !done.load(); ++i) {
      // Keep at most half a ring in flight.
      while (!done.load() && w.wptr - __atomic_load_n(ctl.at<uint64_t>(0), __ATOMIC_ACQUIRE) > 2048) {
        std::this_thread::yield();
      }
      w.Put({kFence, Lo(dst.va), Hi(dst.va), i});
      Engines::Ring(q, w.wptr);
    }
  });
  // Let some packets run, then destroy the queue under the engine's feet.
  while (__atomic_load_n(ctl.at<uint64_t>(0), __ATOMIC_ACQUIRE) < 4096) std::this_thread::yield();
  CHECK(e.DestroyQueue(q.id) == 0);
  done = true;
  feeder.join();
  CHECK(e.sim->QueueCount() == 0);
  // The thread carries on with new queues.
  const uint32_t ev = e.SignalEvent(kGpuA);
  SdmaSignal(e, kGpuA, dst.va + 64, 77, ev);
  CHECK(WaitAll(e, {ev}) == k::kWaitResultComplete);
  CHECK(*dst.at<uint32_t>(64) == 77);
}

TEST_CASE("engine thread: a process reset stops it and the next CREATE_QUEUE restarts it") {
  Engines e(simtest::TwoGpuBoard(), KFDSIM_ENGINES_THREAD);
  Buf dst = e.Alloc(kGpuA, 4096);
  const uint32_t ev = e.SignalEvent(kGpuA);
  SdmaSignal(e, kGpuA, dst.va, 1, ev);
  CHECK(WaitAll(e, {ev}) == k::kWaitResultComplete);

  kfdsim_reset_process(e.handle());
  CHECK(e.sim->QueueCount() == 0);
  CHECK(e.sim->BoCount() == 0);
  e.AcquireAll();
  Buf dst2 = e.Alloc(kGpuA, 4096);
  const uint32_t ev2 = e.SignalEvent(kGpuA);
  SdmaSignal(e, kGpuA, dst2.va, 2, ev2);
  CHECK(WaitAll(e, {ev2}) == k::kWaitResultComplete);
  CHECK(*dst2.at<uint32_t>(0) == 2);

  // The C++ reset (no explicit stop): the running thread finds no queues.
  e.sim->ResetProcess();
  e.AcquireAll();
  Buf dst3 = e.Alloc(kGpuA, 4096);
  const uint32_t ev3 = e.SignalEvent(kGpuA);
  SdmaSignal(e, kGpuA, dst3.va, 3, ev3);
  CHECK(WaitAll(e, {ev3}) == k::kWaitResultComplete);
  CHECK(*dst3.at<uint32_t>(0) == 3);
}

TEST_CASE("engine mode switches: manual runs nothing until a step, thread runs by itself") {
  Engines e(simtest::TwoGpuBoard(), KFDSIM_ENGINES_MANUAL);
  CHECK(kfdsim_set_engine_mode(e.handle(), 7) == EINVAL);
  Buf dst = e.Alloc(kGpuA, 4096);
  const uint32_t ev = e.SignalEvent(kGpuA);
  QueueRef q = SdmaSignal(e, kGpuA, dst.va, 5, ev);
  CHECK(e.Wait(ev, 0) == k::kWaitResultTimeout);
  CHECK(e.Status(q.id).state == KFDSIM_QUEUE_PENDING);
  REQUIRE(kfdsim_set_engine_mode(e.handle(), KFDSIM_ENGINES_THREAD) == 0);
  CHECK(WaitAll(e, {ev}) == k::kWaitResultComplete);
  CHECK(*dst.at<uint32_t>(0) == 5);
  REQUIRE(kfdsim_set_engine_mode(e.handle(), KFDSIM_ENGINES_MANUAL) == 0);
  CHECK(e.sim->engine_mode() == kfdsim::Simulator::EngineMode::kManual);
}

TEST_CASE("engine explicit steps may race the thread: every packet runs exactly once") {
  Engines e(simtest::TwoGpuBoard(), KFDSIM_ENGINES_THREAD);
  Buf ring = e.Alloc(kGpuA, 65536);
  Buf ctl = e.Alloc(kGpuA, 4096);
  Buf sig = e.Alloc(kGpuA, 4096);
  for (uint64_t i = 0; i < 65536 / 64; ++i) *ring.at<uint16_t>(i * 64) = 1;  // INVALID
  QueueRef q = e.CreateQueue(kGpuA, k::kQueueTypeComputeAql, ring, 65536, ctl.va, ctl.va + 8);
  *sig.at<int64_t>(8) = 1000;
  const uint32_t ev = e.SignalEvent(kGpuA);
  *sig.at<uint64_t>(16) = e.SlotVa(ev);
  *sig.at<uint32_t>(24) = ev;
  std::atomic<bool> stop{false};
  std::thread stepper([&] {
    while (!stop.load()) kfdsim_step_queues(e.handle(), nullptr);
  });
  for (uint64_t i = 0; i < 1000; ++i) {
    uint8_t* p = ring.cpu + (i % 1024) * 64;
    std::memset(p + 2, 0, 62);
    const uint64_t c = sig.va;
    std::memcpy(p + 56, &c, 8);
    __atomic_store_n(ctl.at<uint64_t>(8), i + 1, __ATOMIC_RELEASE);
    __atomic_store_n(reinterpret_cast<uint16_t*>(p), uint16_t{3}, __ATOMIC_RELEASE);
    Engines::Ring(q, i);
  }
  // Every retired packet decrements the signal and sets the (auto-reset)
  // event; the value is written before the interrupt.
  while (__atomic_load_n(sig.at<int64_t>(8), __ATOMIC_ACQUIRE) != 0) {
    REQUIRE(e.Wait(ev, kLongWaitMs) == k::kWaitResultComplete);
  }
  stop = true;
  stepper.join();
  kfdsim_queue_info info = e.Status(q.id);  // after any step in flight
  CHECK(info.packets_done == 1000);
  CHECK(info.read_index == 1000);
  CHECK(*ctl.at<uint64_t>(0) == 1000);
}

}  // namespace

namespace {

// Waits up to `seconds` for child `pid`; kills it when it is still running.
// Returns its exit status, or -1 when it had to be killed.
int WaitChild(pid_t pid, int seconds) {
  for (int i = 0; i < seconds * 100; ++i) {
    int status = 0;
    if (waitpid(pid, &status, WNOHANG) == pid) return WIFEXITED(status) ? WEXITSTATUS(status) : -2;
    usleep(10000);
  }
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  return -1;
}

}  // namespace

TEST_CASE("fork while the engine thread and other threads hold simulator locks: the child finds every lock free") {
  Engines e(simtest::TwoGpuBoard(), KFDSIM_ENGINES_THREAD);
  // A queue the engine thread keeps polling (the condition never holds).
  Buf ring = e.Alloc(kGpuA, 4096);
  Buf ctl = e.Alloc(kGpuA, 4096);
  Buf flag = e.Alloc(kGpuA, 4096);
  QueueRef q = e.CreateQueue(kGpuA, k::kQueueTypeSdma, ring, 4096, ctl.va, ctl.va + 8);
  RingWriter w{ring.cpu, 4096, 0};
  w.Put({8u | 3u << 28 | 1u << 31, Lo(flag.va), Hi(flag.va), 7, 0xFF, 0x00100010u});
  Engines::Ring(q, w.wptr);
  const uint32_t ev = e.SignalEvent(kGpuA);
  // Two threads that keep taking proc_mu_ (explicit steps) and ev_mu_
  // (SET_EVENT, polling waits) while the main thread forks.
  std::atomic<bool> stop{false};
  std::vector<std::thread> busy;
  busy.emplace_back([&] {
    while (!stop.load()) (void)kfdsim_step_queues(e.handle(), nullptr);
  });
  busy.emplace_back([&] {
    while (!stop.load()) {
      k::SetEventArgs s{};
      s.event_id = ev;
      (void)e.Io(k::kIocSetEvent, &s);
      k::EventData d{};
      d.event_id = ev;
      k::WaitEventsArgs wa{};
      wa.events_ptr = reinterpret_cast<uintptr_t>(&d);
      wa.num_events = 1;
      wa.timeout = 0;
      (void)e.Io(k::kIocWaitEvents, &wa);
    }
  });
  int hung = 0, failed = 0;
  constexpr int kForks = 150;
  for (int i = 0; i < kForks; ++i) {
    const pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      // The child: every simulator lock must be free. A reset takes
      // dev_mu_, proc_mu_, ev_mu_ and the engine's lock; an ioctl the
      // hook lock and the rest.
      kfdsim_reset_process(e.handle());
      k::GetVersionArgs v{};
      const int rc = e.Io(k::kIocGetVersion, &v);
      uint64_t done = 0;
      const int step = kfdsim_step_queues(e.handle(), &done);
      _exit(rc == 0 && v.major_version == 1 && step == 0 ? 0 : 1);
    }
    const int status = WaitChild(pid, 10);
    hung += status == -1;
    failed += status != 0 && status != -1;
    if (hung != 0) break;  // one hung child is enough (each costs 10 s)
  }
  stop.store(true);
  for (auto& t : busy) t.join();
  CHECK(hung == 0);
  CHECK(failed == 0);
  // The parent's engine still runs: satisfy the poll, the queue drains.
  *flag.at<uint32_t>(0) = 7;
  std::string why;
  for (int i = 0; i < 5000 && e.Status(q.id, &why).state != KFDSIM_QUEUE_IDLE; ++i) usleep(1000);
  CHECK(e.Status(q.id).state == KFDSIM_QUEUE_IDLE);
}
