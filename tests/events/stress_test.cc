// 8 threads, 100,000 event operations in total: create, set, reset, wait
// (own events, shared handles that other threads destroy, large waits
// through the pool), query and destroy, mixed at random. Every status must
// be one the contract allows for that operation, no event may leak, and
// the run must be clean under TSan (the tsan preset).
#include <array>
#include <atomic>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "tests/events/support.h"

using evtest::Desc;
using evtest::SimBoard;

namespace {

constexpr int kThreads = 8;
constexpr int kOpsTotal = 100000;
constexpr int kOpsPerThread = kOpsTotal / kThreads;
constexpr size_t kOwnMax = 24;
constexpr size_t kShared = 64;

struct Rng {
  uint64_t s;
  uint32_t Next() {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return static_cast<uint32_t>(s >> 11);
  }
  uint32_t Below(uint32_t n) { return Next() % n; }
};

struct Totals {
  std::mutex mu;
  std::map<std::string, int> unexpected;  // "op:status" -> count
  std::atomic<int> ops{0};
  std::atomic<int> creates{0};
  std::atomic<int> destroys{0};
  std::atomic<int> completed_waits{0};
  std::atomic<int> stale_hits{0};

  void Bad(const char* op, HSAKMT_STATUS s) {
    std::lock_guard<std::mutex> g(mu);
    unexpected[std::string(op) + ":" + std::to_string(static_cast<int>(s))]++;
  }
};

bool In(HSAKMT_STATUS s, std::initializer_list<HSAKMT_STATUS> allowed) {
  for (HSAKMT_STATUS a : allowed) {
    if (s == a) return true;
  }
  return false;
}

void Worker(int id, std::array<std::atomic<HsaEvent*>, kShared>* shared, Totals* t) {
  Rng rng{0x9E3779B97F4A7C15ull * static_cast<uint64_t>(id + 1)};
  std::vector<HsaEvent*> own;
  for (int op = 0; op < kOpsPerThread; ++op) {
    t->ops.fetch_add(1, std::memory_order_relaxed);
    const uint32_t r = rng.Below(100);
    if (r < 22) {  // create (or destroy when full)
      if (own.size() < kOwnMax) {
        HsaEventDescriptor d = Desc();
        HsaEvent* e = nullptr;
        const HSAKMT_STATUS s = hsaKmtCreateEvent(&d, rng.Below(2) == 0, rng.Below(4) == 0, &e);
        if (s == HSAKMT_STATUS_SUCCESS) {
          own.push_back(e);
          t->creates.fetch_add(1, std::memory_order_relaxed);
        } else {
          t->Bad("create", s);
        }
        continue;
      }
    }
    if (r < 36) {  // destroy an own event
      if (own.empty()) continue;
      const size_t i = rng.Below(static_cast<uint32_t>(own.size()));
      const HSAKMT_STATUS s = hsaKmtDestroyEvent(own[i]);
      if (s != HSAKMT_STATUS_SUCCESS) t->Bad("destroy", s);
      t->destroys.fetch_add(1, std::memory_order_relaxed);
      own[i] = own.back();
      own.pop_back();
    } else if (r < 50) {  // set: own or shared
      if (rng.Below(2) == 0 && !own.empty()) {
        const HSAKMT_STATUS s = hsaKmtSetEvent(own[rng.Below(static_cast<uint32_t>(own.size()))]);
        if (s != HSAKMT_STATUS_SUCCESS) t->Bad("set-own", s);
      } else {
        HsaEvent* e = (*shared)[rng.Below(kShared)].load();
        if (e == nullptr) continue;
        const HSAKMT_STATUS s = hsaKmtSetEvent(e);
        if (s == HSAKMT_STATUS_INVALID_HANDLE) t->stale_hits.fetch_add(1, std::memory_order_relaxed);
        if (!In(s, {HSAKMT_STATUS_SUCCESS, HSAKMT_STATUS_INVALID_HANDLE})) t->Bad("set-shared", s);
      }
    } else if (r < 62) {  // wait on 1..4 own events, poll or 1 ms
      if (own.empty()) continue;
      HsaEvent* w[4];
      const uint32_t n = 1 + rng.Below(static_cast<uint32_t>(own.size() < 4 ? own.size() : 4));
      for (uint32_t i = 0; i < n; ++i) w[i] = own[rng.Below(static_cast<uint32_t>(own.size()))];
      const HSAKMT_STATUS s = hsaKmtWaitOnMultipleEvents(w, n, rng.Below(2) == 0, rng.Below(4) == 0 ? 1 : 0);
      if (s == HSAKMT_STATUS_SUCCESS) t->completed_waits.fetch_add(1, std::memory_order_relaxed);
      if (!In(s, {HSAKMT_STATUS_SUCCESS, HSAKMT_STATUS_WAIT_TIMEOUT})) t->Bad("wait-own", s);
    } else if (r < 66) {  // a large wait (pool buffer) on own events
      if (own.size() <= hke::events::kWaitStackEvents) continue;
      uint64_t ages[kOwnMax];
      for (auto& a : ages) a = 1;
      const HSAKMT_STATUS s = hsaKmtWaitOnMultipleEvents_Ext(
          own.data(), static_cast<HSAuint32>(own.size()), false, 0, ages);
      if (!In(s, {HSAKMT_STATUS_SUCCESS, HSAKMT_STATUS_WAIT_TIMEOUT, HSAKMT_STATUS_OUT_OF_RESOURCES})) {
        t->Bad("wait-large", s);
      }
    } else if (r < 76) {  // poll a shared handle another thread may destroy at any time
      HsaEvent* e = (*shared)[rng.Below(kShared)].load();
      if (e == nullptr) continue;
      const HSAKMT_STATUS s = hsaKmtWaitOnEvent(e, 0);
      if (s == HSAKMT_STATUS_INVALID_HANDLE) t->stale_hits.fetch_add(1, std::memory_order_relaxed);
      if (!In(s, {HSAKMT_STATUS_SUCCESS, HSAKMT_STATUS_WAIT_TIMEOUT, HSAKMT_STATUS_INVALID_HANDLE,
                  HSAKMT_STATUS_WAIT_FAILURE})) {
        t->Bad("wait-shared", s);
      }
    } else if (r < 86) {  // publish an own event
      if (own.empty()) continue;
      (*shared)[rng.Below(kShared)].store(own[rng.Below(static_cast<uint32_t>(own.size()))]);
    } else if (r < 93) {  // reset an own event
      if (own.empty()) continue;
      const HSAKMT_STATUS s = hsaKmtResetEvent(own[rng.Below(static_cast<uint32_t>(own.size()))]);
      if (s != HSAKMT_STATUS_SUCCESS) t->Bad("reset", s);
    } else {  // query a shared handle
      HsaEvent* e = (*shared)[rng.Below(kShared)].load();
      const HSAKMT_STATUS s = hsaKmtQueryEventState(e);
      if (!In(s, {HSAKMT_STATUS_SUCCESS, HSAKMT_STATUS_INVALID_HANDLE})) t->Bad("query", s);
    }
  }
  for (HsaEvent* e : own) {
    const HSAKMT_STATUS s = hsaKmtDestroyEvent(e);
    if (s != HSAKMT_STATUS_SUCCESS) t->Bad("destroy-final", s);
    t->destroys.fetch_add(1, std::memory_order_relaxed);
  }
}

}  // namespace

TEST_CASE("8 threads x 100,000 mixed create/set/wait/destroy operations keep every contract") {
  SimBoard b(nullptr, "datacenter-4gpu");
  b.Open();
  b.Quiet();
  std::array<std::atomic<HsaEvent*>, kShared> shared;
  for (auto& s : shared) s.store(nullptr);
  Totals totals;
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) threads.emplace_back(Worker, i, &shared, &totals);
  for (auto& t : threads) t.join();

  MESSAGE("creates ", totals.creates.load(), ", completed waits ", totals.completed_waits.load(),
          ", stale-handle hits ", totals.stale_hits.load());
  std::string bad;
  for (const auto& u : totals.unexpected) bad += u.first + " x" + std::to_string(u.second) + "\n";
  INFO(bad);
  CHECK(totals.unexpected.empty());
  CHECK(totals.ops.load() == kOpsTotal);
  CHECK(totals.creates.load() > 1000);
  CHECK(totals.creates.load() == totals.destroys.load());
  CHECK(totals.completed_waits.load() > 0);
  const auto st = b.Stats();
  CHECK(st.live == 0);
  CHECK(st.pool_in_use == 0);
  // Nothing is left for the teardown to destroy: the kernel agrees.
  b.Loud();
  REQUIRE(hsaKmtCloseKFD() == HSAKMT_STATUS_SUCCESS);
  CHECK(b.Count("DESTROY_EVENT") == 0);
}
