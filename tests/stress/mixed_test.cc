// 8 threads on the default context at once, each a random mix of the API's
// main paths: allocate (system paged, GTT, VRAM), map to one GPU or to
// several, write through the CPU, query the pointer, unmap, free; create,
// set, wait on and destroy events; create and destroy SDMA and AQL queues
// (a queue ring of the thread's own). Every call must succeed (the
// capacities are far from reached), QueryPointerInfo must describe the
// thread's own allocation, and at the end nothing is left: no memory
// object but the per-GPU MMIO pages, the events page and the doorbells,
// no event, no queue, and hke_memory_check passes. Run under TSan in CI
// (the tsan preset runs every test).
#include <atomic>
#include <cstdint>
#include <cstring>
#include <map>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "lib/context/context.h"
#include "lib/events/events.h"
#include "lib/queues/queues.h"
#include "tests/support/sim_board.h"

namespace {

// Fewer operations on 32-bit targets (run under qemu-user).
constexpr int kThreads = 8;
constexpr int kOpsPerThread = sizeof(void*) == 8 ? 1500 : 300;

struct Shared {
  std::vector<uint32_t> gpu_nodes;
  std::mutex mu;
  std::map<std::string, int> unexpected;  // "what:status" -> count
  std::atomic<uint64_t> ops{0};
  std::atomic<uint64_t> queues{0};
  std::atomic<uint64_t> waits{0};

  void Bad(const char* what, int status) {
    std::lock_guard<std::mutex> g(mu);
    unexpected[std::string(what) + ":" + std::to_string(status)]++;
  }
  bool Ok(const char* what, HSAKMT_STATUS s) {
    if (s == HSAKMT_STATUS_SUCCESS) return true;
    Bad(what, s);
    return false;
  }
};

struct Alloc {
  void* p;
  uint64_t size;
  bool mapped;
};

void Worker(Shared& sh, int index) {
  std::mt19937_64 rng(0x5eed0000u + static_cast<uint64_t>(index));
  auto pick = [&](size_t n) { return static_cast<size_t>(rng() % n); };
  const uint32_t gpu = sh.gpu_nodes[static_cast<size_t>(index) % sh.gpu_nodes.size()];
  // The thread's queue ring and AQL pointer pair: GTT mapped to its GPU.
  HsaMemFlags gf{};
  gf.ui32.HostAccess = 1;
  gf.ui32.NonPaged = 1;
  gf.ui32.ExecuteAccess = 1;
  void* ring = nullptr;
  void* ptrs = nullptr;
  if (!sh.Ok("alloc ring", hsaKmtAllocMemory(0, 8192, gf, &ring)) ||
      !sh.Ok("alloc ptrs", hsaKmtAllocMemory(0, 4096, gf, &ptrs))) {
    return;
  }
  HSAuint32 ring_node = gpu;
  if (!sh.Ok("map ring", hsaKmtMapMemoryToGPUNodes(ring, 8192, nullptr, HsaMemMapFlags{}, 1,
                                                   &ring_node)) ||
      !sh.Ok("map ptrs", hsaKmtMapMemoryToGPUNodes(ptrs, 4096, nullptr, HsaMemMapFlags{}, 1,
                                                   &ring_node))) {
    return;
  }
  std::vector<Alloc> live;
  for (int op = 0; op < kOpsPerThread; ++op) {
    sh.ops.fetch_add(1, std::memory_order_relaxed);
    const size_t r = pick(100);
    if (r < 40) {  // allocate
      if (live.size() >= 12) {
        const size_t i = pick(live.size());
        if (live[i].mapped) sh.Ok("unmap", hsaKmtUnmapMemoryToGPU(live[i].p));
        sh.Ok("free", hsaKmtFreeMemory(live[i].p, live[i].size));
        live.erase(live.begin() + static_cast<std::ptrdiff_t>(i));
        continue;
      }
      HsaMemFlags f{};
      uint32_t node = 0;
      const uint64_t size = uint64_t{4096} << pick(5);
      switch (pick(3)) {
        case 0: f.ui32.HostAccess = 1; break;                        // system paged
        case 1: f.ui32.HostAccess = 1; f.ui32.NonPaged = 1; break;   // GTT
        default:                                                     // host-visible VRAM
          f.ui32.HostAccess = 1;
          f.ui32.NonPaged = 1;
          f.ui32.CoarseGrain = 1;
          node = gpu;
      }
      void* p = nullptr;
      if (!sh.Ok("alloc", hsaKmtAllocMemory(node, size, f, &p))) continue;
      std::memset(p, index, 64);
      live.push_back({p, size, false});
    } else if (r < 60) {  // map or unmap one of ours
      if (live.empty()) continue;
      Alloc& a = live[pick(live.size())];
      if (a.mapped) {
        a.mapped = !sh.Ok("unmap", hsaKmtUnmapMemoryToGPU(a.p));
      } else if (pick(2) == 0) {
        HSAuint64 alt = 0;
        a.mapped = sh.Ok("map", hsaKmtMapMemoryToGPU(a.p, a.size, &alt));
      } else {
        HSAuint32 nodes[2] = {sh.gpu_nodes[0], sh.gpu_nodes[sh.gpu_nodes.size() - 1]};
        a.mapped = sh.Ok("map nodes", hsaKmtMapMemoryToGPUNodes(a.p, a.size, nullptr,
                                                                HsaMemMapFlags{}, 2, nodes));
      }
    } else if (r < 72) {  // query one of ours
      if (live.empty()) continue;
      const Alloc& a = live[pick(live.size())];
      HsaPointerInfo info{};
      const uint64_t off = rng() % a.size;
      if (!sh.Ok("query", hsaKmtQueryPointerInfo(static_cast<char*>(a.p) + off, &info))) continue;
      if (info.Type != HSA_POINTER_ALLOCATED || info.CPUAddress != a.p ||
          info.SizeInBytes != a.size || static_cast<const uint8_t*>(a.p)[0] != index) {
        sh.Bad("query answer", 0);
      }
    } else if (r < 92) {  // an event round trip
      HsaEventDescriptor d{};
      d.EventType = HSA_EVENTTYPE_SIGNAL;
      d.NodeId = gpu;
      HsaEvent* e = nullptr;
      if (!sh.Ok("create event", hsaKmtCreateEvent(&d, false, false, &e))) continue;
      if (sh.Ok("set", hsaKmtSetEvent(e)) && sh.Ok("wait", hsaKmtWaitOnEvent(e, 1000))) {
        sh.waits.fetch_add(1, std::memory_order_relaxed);
        // Auto-reset: the wait consumed it.
        const HSAKMT_STATUS again = hsaKmtWaitOnEvent(e, 0);
        if (again != HSAKMT_STATUS_WAIT_TIMEOUT) sh.Bad("consumed", again);
      }
      sh.Ok("destroy event", hsaKmtDestroyEvent(e));
    } else {  // a queue
      const bool aql = pick(2) == 0;
      HsaQueueResource q{};
      if (aql) {
        auto* p = static_cast<HSAuint64*>(ptrs);
        q.Queue_read_ptr_aql = p;
        q.Queue_write_ptr_aql = p + 1;
      }
      if (!sh.Ok(aql ? "create aql" : "create sdma",
                 hsaKmtCreateQueue(gpu, aql ? HSA_QUEUE_COMPUTE_AQL : HSA_QUEUE_SDMA, 100,
                                   HSA_QUEUE_PRIORITY_NORMAL, ring, 8192, nullptr, &q))) {
        continue;
      }
      sh.queues.fetch_add(1, std::memory_order_relaxed);
      sh.Ok("destroy queue", hsaKmtDestroyQueue(q.QueueId));
    }
  }
  for (const Alloc& a : live) {
    if (a.mapped) sh.Ok("unmap", hsaKmtUnmapMemoryToGPU(a.p));
    sh.Ok("free", hsaKmtFreeMemory(a.p, a.size));
  }
  sh.Ok("unmap ring", hsaKmtUnmapMemoryToGPU(ring));
  sh.Ok("unmap ptrs", hsaKmtUnmapMemoryToGPU(ptrs));
  sh.Ok("free ring", hsaKmtFreeMemory(ring, 8192));
  sh.Ok("free ptrs", hsaKmtFreeMemory(ptrs, 4096));
}

}  // namespace

TEST_CASE("8 threads mixing memory, events and queues on the default context keep every contract and leave nothing") {
  hketest::SimBoard b(nullptr, "datacenter-4gpu");
  kfdsim_set_trace(b.sim(), nullptr, nullptr);  // no trace lines: the run is long
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  HsaSystemProperties sys{};
  REQUIRE(hsaKmtAcquireSystemProperties(&sys) == HSAKMT_STATUS_SUCCESS);
  Shared sh;
  for (uint32_t n = 0; n < sys.NumNodes; ++n) {
    HsaNodeProperties p{};
    REQUIRE(hsaKmtGetNodeProperties(n, &p) == HSAKMT_STATUS_SUCCESS);
    if (p.KFDGpuID != 0) sh.gpu_nodes.push_back(n);
  }
  REQUIRE(sh.gpu_nodes.size() >= 2);
  const hke_memory_stats before = b.Stats();

  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) threads.emplace_back(Worker, std::ref(sh), i);
  for (auto& t : threads) t.join();

  MESSAGE("operations " << sh.ops.load() << ", queues " << sh.queues.load() << ", event waits "
                        << sh.waits.load());
  std::string bad;
  for (const auto& kv : sh.unexpected) bad += kv.first + " x" + std::to_string(kv.second) + " ";
  INFO(bad);
  CHECK(sh.unexpected.empty());
  CHECK(sh.queues.load() > 0);
  CHECK(sh.waits.load() > 0);

  hke::Context& ctx = hke_default_context()->impl;
  hke::events::Stats es{};
  REQUIRE(hke::events::GetStats(ctx, &es).ok());
  CHECK(es.live == 0);
  hke::queues::Stats qs{};
  REQUIRE(hke::queues::GetStats(ctx, &qs).ok());
  CHECK(qs.live == 0);
  // What is left beyond the objects before the threads: the events page
  // and one doorbell BO per GPU that had a queue (both kept until close).
  const hke_memory_stats after = b.Stats();
  CHECK(after.live_objects == before.live_objects + 1 + qs.doorbell_mappings);
  CHECK(hke_memory_check(hke_default_context()) == HKE_OK);
  REQUIRE(hsaKmtReleaseSystemProperties() == HSAKMT_STATUS_SUCCESS);
  REQUIRE(hsaKmtCloseKFD() == HSAKMT_STATUS_SUCCESS);
  const hke_memory_stats closed = b.Stats();
  CHECK(closed.live_objects == 0);
}
