// Secondary KFD contexts at work (hsakmtctx.h on the in-process simulator):
// the primary and two secondary contexts each allocate, map, copy through
// an SDMA queue of their own and wait on their own events at the same time;
// none reaches another's objects; closing one leaves the others working;
// the primary-only calls are refused on a secondary before any kernel call.
#include <doctest/doctest.h>

#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "hsakmt/hsakmt.h"
#include "hsakmt/hsakmt_embedded.h"
#include "hsakmt/hsakmtctx.h"
#include "tests/contexts/secondaries.h"
#include "tests/support/sim_board.h"

namespace {

using hketest::FirstGpuNode;
using hketest::SimBoard;

constexpr uint32_t kMinorWithCreateProcess = 19;
constexpr uint64_t kBytes = 64 * 1024;
constexpr uint64_t kRingBytes = 4096;

// Failures of a worker thread, reported by the main thread (doctest
// assertions stay on the main thread).
struct Log {
  std::string failures;
  void Expect(bool ok, const char* what, int round) {
    if (!ok) failures += std::string(what) + " (round " + std::to_string(round) + ")\n";
  }
};

void* Alloc(HsaKFDContext* c, uint32_t node, uint64_t size, bool vram, Log& log, int round) {
  HsaMemFlags f{};
  f.ui32.HostAccess = 1;
  f.ui32.NonPaged = 1;
  f.ui32.CoarseGrain = vram ? 1 : 0;
  void* p = nullptr;
  log.Expect(hsaKmtAllocMemoryCtx(c, vram ? node : 0, size, f, &p) == HSAKMT_STATUS_SUCCESS,
             "AllocMemoryCtx", round);
  if (p == nullptr) return nullptr;
  log.Expect(hsaKmtMapMemoryToGPUNodesCtx(c, p, size, nullptr, HsaMemMapFlags{}, 1, &node) ==
                 HSAKMT_STATUS_SUCCESS,
             "MapMemoryToGPUNodesCtx", round);
  return p;
}

void Put(volatile uint32_t* ring, uint64_t* wptr, uint32_t dw) {
  ring[(*wptr % kRingBytes) / 4] = dw;
  *wptr += 4;
}

// One round on context `c`: SDMA copy of a pattern from GTT to VRAM, then a
// FENCE + TRAP that signals an event of `c`, waited on through `c`.
void Round(HsaKFDContext* c, uint32_t node, uint8_t seed, Log& log, int round) {
  auto* src = static_cast<uint8_t*>(Alloc(c, node, kBytes, false, log, round));
  auto* dst = static_cast<uint8_t*>(Alloc(c, node, kBytes, true, log, round));
  auto* ring = static_cast<volatile uint32_t*>(Alloc(c, node, kRingBytes, false, log, round));
  if (src == nullptr || dst == nullptr || ring == nullptr) return;
  for (uint64_t i = 0; i < kBytes; ++i) src[i] = static_cast<uint8_t>(i * 13 + seed);
  std::memset(dst, 0, kBytes);
  std::memset(const_cast<uint32_t*>(ring), 0, kRingBytes);
  HsaEventDescriptor d{};
  d.EventType = HSA_EVENTTYPE_SIGNAL;
  d.NodeId = node;
  d.SyncVar.SyncVarSize = sizeof(HSAuint64);
  HsaEvent* ev = nullptr;
  log.Expect(hsaKmtCreateEventCtx(c, &d, false, false, &ev) == HSAKMT_STATUS_SUCCESS,
             "CreateEventCtx", round);
  HsaQueueResource q{};
  log.Expect(hsaKmtCreateQueueCtx(c, node, HSA_QUEUE_SDMA, 100, HSA_QUEUE_PRIORITY_NORMAL,
                                  const_cast<uint32_t*>(ring), kRingBytes, nullptr, &q) ==
                 HSAKMT_STATUS_SUCCESS,
             "CreateQueueCtx", round);
  if (ev == nullptr || q.QueueId == 0) return;
  uint64_t w = 0;
  const uint64_t s = reinterpret_cast<uintptr_t>(src), t = reinterpret_cast<uintptr_t>(dst);
  for (uint32_t dw : {1u, static_cast<uint32_t>(kBytes - 1), 0u, static_cast<uint32_t>(s),
                      static_cast<uint32_t>(s >> 32), static_cast<uint32_t>(t),
                      static_cast<uint32_t>(t >> 32)}) {
    Put(ring, &w, dw);  // COPY_LINEAR
  }
  const uint64_t slot = ev->EventData.HWData2;
  for (uint32_t dw : {5u, static_cast<uint32_t>(slot), static_cast<uint32_t>(slot >> 32),
                      ev->EventId, 6u, ev->EventId & 0x0FFFFFFFu}) {
    Put(ring, &w, dw);  // FENCE of the event id into its slot, TRAP
  }
  __atomic_store_n(q.Queue_write_ptr_aql, w, __ATOMIC_RELEASE);
  __atomic_store_n(q.Queue_DoorBell_aql, w, __ATOMIC_RELEASE);
  log.Expect(hsaKmtWaitOnEventCtx(c, ev, 10000) == HSAKMT_STATUS_SUCCESS, "WaitOnEventCtx", round);
  log.Expect(std::memcmp(src, dst, kBytes) == 0, "the copied bytes", round);
  log.Expect(hsaKmtDestroyQueueCtx(c, q.QueueId) == HSAKMT_STATUS_SUCCESS, "DestroyQueueCtx",
             round);
  log.Expect(hsaKmtDestroyEventCtx(c, ev) == HSAKMT_STATUS_SUCCESS, "DestroyEventCtx", round);
  for (void* p : {static_cast<void*>(src), static_cast<void*>(dst),
                  static_cast<void*>(const_cast<uint32_t*>(ring))}) {
    log.Expect(hsaKmtFreeMemoryCtx(c, p, 0) == HSAKMT_STATUS_SUCCESS, "FreeMemoryCtx", round);
  }
}

// Opens a secondary context (closed by `sec`) and takes its topology
// snapshot, as a runtime does before it allocates.
HsaKFDContext* OpenSecondary(ctxtest::Secondaries& sec) {
  HsaKFDContext* c = sec.Open();
  HsaSystemProperties p{};
  REQUIRE(hsaKmtAcquireSystemPropertiesCtx(c, &p) == HSAKMT_STATUS_SUCCESS);
  return c;
}

// Opens the primary through hsakmtctx.h and takes its topology snapshot.
HsaKFDContext* OpenPrimary() {
  HsaKFDContext* c = nullptr;
  REQUIRE(hsaKmtOpenKFDCtx(&c) == HSAKMT_STATUS_SUCCESS);
  HsaSystemProperties p{};
  REQUIRE(hsaKmtAcquireSystemPropertiesCtx(c, &p) == HSAKMT_STATUS_SUCCESS);
  return c;
}

// Runs `rounds` rounds on every context at once, one thread each.
void RunConcurrently(const std::vector<HsaKFDContext*>& contexts, uint32_t node, int rounds) {
  std::vector<Log> logs(contexts.size());
  std::vector<std::thread> threads;
  for (size_t i = 0; i < contexts.size(); ++i) {
    threads.emplace_back([&, i] {
      for (int r = 0; r < rounds; ++r) {
        Round(contexts[i], node, static_cast<uint8_t>(i * 31 + static_cast<size_t>(r)), logs[i], r);
      }
    });
  }
  for (auto& t : threads) t.join();
  for (size_t i = 0; i < logs.size(); ++i) {
    INFO("context " << i);
    CHECK(logs[i].failures == "");
  }
}

TEST_CASE("the primary and two secondary contexts copy, signal and wait concurrently, each on its own; closing one leaves the others working") {
  SimBoard b(nullptr, "datacenter-4gpu", 0, kMinorWithCreateProcess);
  ctxtest::Secondaries sec;
  HsaKFDContext* primary = OpenPrimary();
  const uint32_t node = FirstGpuNode();
  HsaKFDContext* s1 = OpenSecondary(sec);
  HsaKFDContext* s2 = OpenSecondary(sec);
  CHECK(kfdsim_secondary_count(b.sim()) == 2);

  RunConcurrently({primary, s1, s2}, node, 8);

  REQUIRE(sec.Close(s1) == HSAKMT_STATUS_SUCCESS);
  CHECK(kfdsim_secondary_count(b.sim()) == 1);
  RunConcurrently({primary, s2}, node, 4);
  REQUIRE(sec.Close(s2) == HSAKMT_STATUS_SUCCESS);
  RunConcurrently({primary}, node, 2);
  CHECK(kfdsim_secondary_count(b.sim()) == 0);
}

TEST_CASE("objects of one context are unknown to another: addresses, events and queues") {
  SimBoard b(nullptr, "datacenter-4gpu", 0, kMinorWithCreateProcess);
  ctxtest::Secondaries sec;
  (void)OpenPrimary();
  const uint32_t node = FirstGpuNode();
  HsaKFDContext* s1 = OpenSecondary(sec);
  Log log;
  void* mine = Alloc(s1, node, kBytes, true, log, 0);
  void* ring = Alloc(s1, node, kRingBytes, false, log, 0);
  REQUIRE(log.failures == "");
  HsaPointerInfo info{};
  REQUIRE(hsaKmtQueryPointerInfoCtx(s1, mine, &info) == HSAKMT_STATUS_SUCCESS);
  CHECK(info.Type == HSA_POINTER_ALLOCATED);
  CHECK(hsaKmtQueryPointerInfo(mine, &info) == HSAKMT_STATUS_ERROR);  // the primary's view
  CHECK(info.Type == HSA_POINTER_UNKNOWN);
  CHECK(hsaKmtFreeMemory(mine, kBytes) != HSAKMT_STATUS_SUCCESS);

  HsaEventDescriptor d{};
  d.EventType = HSA_EVENTTYPE_SIGNAL;
  d.NodeId = node;
  HsaEvent* ev = nullptr;
  REQUIRE(hsaKmtCreateEventCtx(s1, &d, true, false, &ev) == HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtSetEvent(ev) == HSAKMT_STATUS_INVALID_HANDLE);
  CHECK(hsaKmtDestroyEvent(ev) == HSAKMT_STATUS_INVALID_HANDLE);
  CHECK(hsaKmtSetEventCtx(s1, ev) == HSAKMT_STATUS_SUCCESS);

  HsaQueueResource q{};
  REQUIRE(hsaKmtCreateQueueCtx(s1, node, HSA_QUEUE_SDMA, 100, HSA_QUEUE_PRIORITY_NORMAL, ring,
                               kRingBytes, nullptr, &q) == HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtDestroyQueue(q.QueueId) == HSAKMT_STATUS_INVALID_HANDLE);
  CHECK(hsaKmtUpdateQueue(q.QueueId, 50, HSA_QUEUE_PRIORITY_NORMAL, ring, kRingBytes, nullptr) ==
        HSAKMT_STATUS_INVALID_HANDLE);
  CHECK(hsaKmtUpdateQueueCtx(s1, q.QueueId, 50, HSA_QUEUE_PRIORITY_NORMAL, ring, kRingBytes,
                             nullptr) == HSAKMT_STATUS_SUCCESS);

  // Closing the secondary releases everything it held, in its own process.
  REQUIRE(sec.Close(s1) == HSAKMT_STATUS_SUCCESS);
  CHECK(kfdsim_secondary_count(b.sim()) == 0);
  void* p = nullptr;
  HsaMemFlags f{};
  f.ui32.HostAccess = 1;
  f.ui32.NonPaged = 1;
  CHECK(hsaKmtAllocMemory(0, 4096, f, &p) == HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtFreeMemory(p, 4096) == HSAKMT_STATUS_SUCCESS);
}

TEST_CASE("a secondary context refuses user-memory registration, SVM, paged dGPU system memory and the debugger before any kernel call") {
  SimBoard b(nullptr, "datacenter-4gpu", 0, kMinorWithCreateProcess);
  ctxtest::Secondaries sec;
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  HsaSystemProperties props{};
  REQUIRE(hsaKmtAcquireSystemProperties(&props) == HSAKMT_STATUS_SUCCESS);
  HsaKFDContext* s = OpenSecondary(sec);
  // Warm the secondary's VM so the refusals below are the only calls left.
  Log log;
  void* warm = Alloc(s, FirstGpuNode(), 4096, false, log, 0);
  REQUIRE(log.failures == "");
  alignas(4096) static uint8_t user[4 * 4096];
  HSA_SVM_ATTRIBUTE attr{HSA_SVM_ATTR_ACCESS, FirstGpuNode()};
  HsaMemFlags paged{};
  paged.ui32.HostAccess = 1;
  void* out = nullptr;
  void* info = nullptr;
  HSAuint32 size = 0;
  b.ClearTrace();
  CHECK(hsaKmtRegisterMemoryCtx(s, user, sizeof(user)) == HSAKMT_STATUS_NOT_SUPPORTED);
  CHECK(b.LastDiag().find("primary") != std::string::npos);
  CHECK(hsaKmtSVMGetAttrCtx(s, user, sizeof(user), 1, &attr) == HSAKMT_STATUS_NOT_SUPPORTED);
  CHECK(hsaKmtAllocMemoryCtx(s, 0, 4096, paged, &out) == HSAKMT_STATUS_NOT_SUPPORTED);
  CHECK(out == nullptr);
  CHECK(hsaKmtDbgEnableCtx(s, &info, &size) == HSAKMT_STATUS_NOT_SUPPORTED);
  CHECK(hsaKmtRuntimeEnableCtx(s, nullptr, false) == HSAKMT_STATUS_NOT_SUPPORTED);
  CHECK(b.Ioctls().empty());
  // The primary registers the same memory.
  CHECK(hsaKmtRegisterMemory(user, sizeof(user)) == HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtDeregisterMemory(user) == HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtFreeMemoryCtx(s, warm, 4096) == HSAKMT_STATUS_SUCCESS);
  CHECK(sec.Close(s) == HSAKMT_STATUS_SUCCESS);
}

}  // namespace

namespace {

HsaCounter IommuCounter(uint64_t id) {
  HsaCounter c;
  std::memset(&c, 0, sizeof(c));
  c.Type = HSA_PROFILE_TYPE_PRIVILEGED_IMMEDIATE;
  c.CounterId = id;
  c.CounterSizeInBits = 64;
  c.BlockIndex = 24;  // the IOMMU block of the simulated gfx9 GPUs
  return c;
}

}  // namespace

TEST_CASE("PMC trace ids name their context: Start/Query/Stop find a secondary's trace, other contexts refuse it, it is stale once the context closed") {
  SimBoard b(nullptr, "datacenter-4gpu", 0, kMinorWithCreateProcess);
  ctxtest::Secondaries sec;
  (void)OpenPrimary();
  const uint32_t node = FirstGpuNode();
  HsaKFDContext* s1 = OpenSecondary(sec);
  HsaCounter c = IommuCounter(1);
  HsaPmcTraceRoot a{}, s{};
  REQUIRE(hsaKmtPmcRegisterTrace(node, 1, &c, &a) == HSAKMT_STATUS_SUCCESS);
  REQUIRE(hsaKmtPmcRegisterTraceCtx(s1, node, 1, &c, &s) == HSAKMT_STATUS_SUCCESS);
  CHECK(a.TraceId != s.TraceId);  // the same slot and generation in each context
  // Another context's id is unknown there.
  CHECK(hsaKmtPmcAcquireTraceAccess(node, s.TraceId) == HSAKMT_STATUS_INVALID_HANDLE);
  CHECK(hsaKmtPmcAcquireTraceAccessCtx(s1, node, a.TraceId) == HSAKMT_STATUS_INVALID_HANDLE);
  REQUIRE(hsaKmtPmcAcquireTraceAccessCtx(s1, node, s.TraceId) == HSAKMT_STATUS_SUCCESS);
  CHECK(kfdsim_perf_open_count(b.sim()) == 1);
  // The context-less calls reach the secondary's trace through its id.
  uint64_t sbuf[1] = {0}, abuf[1] = {0xA5A5};
  REQUIRE(hsaKmtPmcStartTrace(s.TraceId, sbuf, sizeof(sbuf)) == HSAKMT_STATUS_SUCCESS);
  REQUIRE(hsaKmtPmcQueryTrace(s.TraceId) == HSAKMT_STATUS_SUCCESS);
  CHECK(sbuf[0] != 0);
  CHECK(hsaKmtPmcQueryTrace(a.TraceId) == HSAKMT_STATUS_UNAVAILABLE);  // the primary's: not started
  CHECK(abuf[0] == 0xA5A5);
  REQUIRE(hsaKmtPmcStopTrace(s.TraceId) == HSAKMT_STATUS_SUCCESS);
  // Closing the secondary closes its counters; its ids are stale, the primary's live on.
  REQUIRE(sec.Close(s1) == HSAKMT_STATUS_SUCCESS);
  CHECK(kfdsim_perf_open_count(b.sim()) == 0);
  CHECK(hsaKmtPmcStartTrace(s.TraceId, sbuf, sizeof(sbuf)) == HSAKMT_STATUS_INVALID_HANDLE);
  CHECK(hsaKmtPmcQueryTrace(s.TraceId) == HSAKMT_STATUS_INVALID_HANDLE);
  REQUIRE(hsaKmtPmcAcquireTraceAccess(node, a.TraceId) == HSAKMT_STATUS_SUCCESS);
  REQUIRE(hsaKmtPmcStartTrace(a.TraceId, abuf, sizeof(abuf)) == HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtPmcQueryTrace(a.TraceId) == HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtPmcUnregisterTrace(node, a.TraceId) == HSAKMT_STATUS_SUCCESS);
}
