// A context's locks (lib/core/lock.h): the platform's mutex operations when
// the table has all four, a spin lock when it has none or mutex_init
// refuses, and the rank order that debug builds check.
#include <doctest/doctest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <thread>
#include <vector>

#include "hsakmt/hsakmt.h"
#include "hsakmt/hsakmt_embedded.h"
#include "hsakmt/hsakmtctx.h"
#include "lib/core/lock.h"
#include "tests/support/sim_board.h"

namespace {

using hketest::SimBoard;

// The simulator's table with counting mutex operations that forward to it
// (the counters are global: an operation gets the table's self, the
// simulator).
struct MutexCounts {
  std::atomic<int> init{0}, lock{0}, unlock{0}, destroy{0};
  int init_error = 0;  // what mutex_init returns instead of forwarding (0: forward)
};
MutexCounts* g_counts = nullptr;
const hke_platform_ops* g_inner = nullptr;

int CountInit(void* self, void* m) {
  ++g_counts->init;
  if (g_counts->init_error != 0) return g_counts->init_error;
  return g_inner->mutex_init(self, m);
}
void CountLock(void* self, void* m) {
  ++g_counts->lock;
  g_inner->mutex_lock(self, m);
}
void CountUnlock(void* self, void* m) {
  ++g_counts->unlock;
  g_inner->mutex_unlock(self, m);
}
void CountDestroy(void* self, void* m) {
  ++g_counts->destroy;
  g_inner->mutex_destroy(self, m);
}

class CountingPlatform {
 public:
  CountingPlatform(hke_platform inner, MutexCounts* counts) : ops_(*inner.ops) {
    g_counts = counts;
    g_inner = inner.ops;
    ops_.mutex_init = CountInit;
    ops_.mutex_lock = CountLock;
    ops_.mutex_unlock = CountUnlock;
    ops_.mutex_destroy = CountDestroy;
    platform_.ops = &ops_;
    platform_.self = inner.self;
  }
  hke_platform platform() const { return platform_; }

 private:
  hke_platform_ops ops_;
  hke_platform platform_{};
};

// A caller-owned context on `platform`, opened.
class OpenContext {
 public:
  explicit OpenContext(hke_platform platform)
      : raw_(hke_context_storage_size() + hke_context_storage_align()) {
    void* storage = raw_.data() + (hke_context_storage_align() -
                                   reinterpret_cast<uintptr_t>(raw_.data()) %
                                       hke_context_storage_align());
    hke_config cfg{};
    cfg.struct_size = sizeof(cfg);
    cfg.platform = platform;
    REQUIRE(hke_context_init(storage, hke_context_storage_size(), &cfg, &ctx_) == HKE_OK);
    REQUIRE(hke_context_open(ctx_, nullptr) == HKE_OK);
  }
  ~OpenContext() { Deinit(); }
  void Deinit() {
    if (ctx_ == nullptr) return;
    (void)hke_context_close(ctx_);
    hke_context_deinit(ctx_);
    ctx_ = nullptr;
  }
  HsaKFDContext* kfd() { return hke_context_kfd_ctx(ctx_); }

 private:
  std::vector<unsigned char> raw_;
  hke_context* ctx_ = nullptr;
};

// Topology, a GTT allocation mapped and freed, and an event: calls that
// take the topology, memory, events and device locks.
void Exercise(HsaKFDContext* c) {
  HsaSystemProperties props{};
  REQUIRE(hsaKmtAcquireSystemPropertiesCtx(c, &props) == HSAKMT_STATUS_SUCCESS);
  HsaMemFlags f{};
  f.ui32.HostAccess = 1;
  f.ui32.NonPaged = 1;
  f.ui32.PageSize = HSA_PAGE_SIZE_4KB;
  void* p = nullptr;
  REQUIRE(hsaKmtAllocMemoryCtx(c, 0, 4096, f, &p) == HSAKMT_STATUS_SUCCESS);
  HSAuint64 va = 0;
  REQUIRE(hsaKmtMapMemoryToGPUCtx(c, p, 4096, &va) == HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtUnmapMemoryToGPUCtx(c, p) == HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtFreeMemoryCtx(c, p, 4096) == HSAKMT_STATUS_SUCCESS);
  HsaEventDescriptor d{};
  d.EventType = HSA_EVENTTYPE_SIGNAL;
  d.NodeId = 0;
  HsaEvent* e = nullptr;
  REQUIRE(hsaKmtCreateEventCtx(c, &d, true, false, &e) == HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtSetEventCtx(c, e) == HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtDestroyEventCtx(c, e) == HSAKMT_STATUS_SUCCESS);
}

constexpr int kContextLocks = 9;

}  // namespace

TEST_CASE("a context takes its locks through the platform's mutex operations and ends them at deinit") {
  SimBoard b(nullptr, "datacenter-4gpu");
  MutexCounts n;
  CountingPlatform cp(b.platform(), &n);
  OpenContext ctx(cp.platform());
  CHECK(n.init == kContextLocks);
  Exercise(ctx.kfd());
  CHECK(n.lock > 0);
  CHECK(n.lock == n.unlock);
  CHECK(n.destroy == 0);
  ctx.Deinit();
  CHECK(n.destroy == kContextLocks);
  CHECK(n.lock == n.unlock);
}

TEST_CASE("a lock whose mutex_init fails spins instead, and the context works as with mutexes") {
  SimBoard b(nullptr, "datacenter-4gpu");
  MutexCounts n;
  n.init_error = ENOSYS;
  CountingPlatform cp(b.platform(), &n);
  OpenContext ctx(cp.platform());
  CHECK(n.init == kContextLocks);
  Exercise(ctx.kfd());
  CHECK(n.lock == 0);
  ctx.Deinit();
  CHECK(n.destroy == 0);  // nothing was initialised, nothing is ended
}

TEST_CASE("a platform without mutex operations gives spinning locks that still exclude each other") {
  hke_platform none{};
  hke::Mutex m(hke::LockRank::kMemory);
  m.Init(none);
  CHECK_FALSE(m.sleeps());
  long counter = 0;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 20000; ++i) {
        hke::LockGuard g(m);
        ++counter;
      }
    });
  }
  for (std::thread& t : threads) t.join();
  CHECK(counter == 4 * 20000);
}

#ifndef NDEBUG
TEST_CASE("debug builds trap when a thread takes a lock of lower or equal rank than one it holds") {
  // In a child: the trap ends it, not the test process.
  for (hke::LockRank second : {hke::LockRank::kMemory, hke::LockRank::kDevice}) {
    const pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      hke::Mutex device(hke::LockRank::kDevice);
      hke::Mutex other(second);
      hke::LockGuard a(device);
      hke::LockGuard b(other);
      _exit(0);
    }
    int status = 0;
    REQUIRE(waitpid(pid, &status, 0) == pid);
    CHECK(WIFSIGNALED(status));
  }
  // The documented order passes.
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    hke::Mutex memory(hke::LockRank::kMemory);
    hke::Mutex device(hke::LockRank::kDevice);
    {
      hke::LockGuard a(memory);
      hke::LockGuard b(device);
    }
    hke::LockGuard again(device);  // released ranks are forgotten
    _exit(0);
  }
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
}
#else
TEST_CASE("release builds carry no rank check: a lock order violation is not trapped") {
  hke::Mutex device(hke::LockRank::kDevice);
  hke::Mutex memory(hke::LockRank::kMemory);
  hke::LockGuard a(device);
  hke::LockGuard b(memory);
  CHECK_FALSE(memory.sleeps());
}
#endif
