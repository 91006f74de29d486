// 100,000 random memory operations of mixed sizes and kinds on a dGPU
// board: the indexes and arenas satisfy every invariant after every step,
// QueryPointerInfo agrees with a reference model, and at the end nothing
// is left (objects, range nodes, kernel BOs).
#include <cstdint>
#include <map>
#include <random>
#include <vector>

#include "tests/memory/support.h"

using memtest::Flags;
using memtest::SimBoard;

namespace {

struct Live {
  uint64_t size;
  uint32_t node;  // the node QueryPointerInfo reports
  bool mappable;
  bool mapped;
};

}  // namespace

TEST_CASE("random alloc/map/unmap/free steps (100k on 64-bit hosts) keep every invariant and leak nothing") {
  SimBoard b(nullptr, "datacenter-4gpu");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  HsaSystemProperties sys;
  REQUIRE(hsaKmtAcquireSystemProperties(&sys) == HSAKMT_STATUS_SUCCESS);
  kfdsim_set_trace(b.sim(), nullptr, nullptr);  // 100k steps: keep no trace
  const hke_memory_stats start = b.Stats();
  std::mt19937_64 rng(20261202);
  std::map<uint64_t, Live> live;  // address -> model
  const uint64_t sizes[] = {4096, 8192, 65536, 3 * 65536, 1 << 20, 2 << 20};
  uint64_t allocs = 0, frees = 0, maps = 0, queries = 0;
  // 32-bit builds run under qemu-user here, whose bottom-up mmap placement
  // wraps below the GPU-visible range after several thousand reservations
  // (the library then refuses the placement, as it must): they run 5,000
  // steps. 64-bit: the 100,000.
  const int kSteps = sizeof(void*) < 8 ? 5000 : 100000;
  for (int step = 0; step < kSteps; ++step) {
    const uint32_t op = static_cast<uint32_t>(rng() % 10);
    // A 32-bit process's address space holds fewer live buffers of up to
    // 2 MiB next to the simulator's own mappings.
    const size_t max_live = sizeof(void*) < 8 ? 100 : 400;
    if (op < 4 && live.size() < max_live) {
      HsaMemFlags f = Flags();
      uint32_t node = 0;
      uint32_t reported_node = ~0u;  // QueryPointerInfo's Node: `node` unless set
      bool mappable = true;
      switch (rng() % 5) {
        case 0: f.ui32.HostAccess = 1; break;  // system paged
        case 1: f.ui32.HostAccess = 1; f.ui32.NonPaged = 1; break;  // GTT
        case 2: node = 2 + static_cast<uint32_t>(rng() % 4); f.ui32.NonPaged = 1; break;
        case 3:
          node = 2 + static_cast<uint32_t>(rng() % 4);
          f.ui32.NonPaged = 1;
          f.ui32.NoAddress = 1;
          mappable = false;
          break;
        default:  // an address-only reservation: nothing to map (upstream)
          node = 2;
          reported_node = 0;  // a reservation is reported on node 0 (upstream)
          f.ui32.NonPaged = 1;
          f.ui32.OnlyAddress = 1;
          mappable = false;
          break;
      }
      if (reported_node == ~0u) reported_node = node;
      const uint64_t size = sizes[rng() % 6];
      void* p = nullptr;
      const HSAKMT_STATUS s = hsaKmtAllocMemory(node, size, f, &p);
      INFO("step " << step << " size " << size << " flags " << f.Value << ": " << b.LastDiag());
      REQUIRE(s == HSAKMT_STATUS_SUCCESS);
      REQUIRE(live.count(reinterpret_cast<uintptr_t>(p)) == 0);
      live[reinterpret_cast<uintptr_t>(p)] = Live{size, reported_node, mappable, false};
      ++allocs;
    } else if (op < 7 && !live.empty()) {
      auto it = live.begin();
      std::advance(it, static_cast<long>(rng() % live.size()));
      REQUIRE(hsaKmtFreeMemory(reinterpret_cast<void*>(it->first), it->second.size) ==
              HSAKMT_STATUS_SUCCESS);
      live.erase(it);
      ++frees;
    } else if (op < 9 && !live.empty()) {
      auto it = live.begin();
      std::advance(it, static_cast<long>(rng() % live.size()));
      void* p = reinterpret_cast<void*>(it->first);
      if (!it->second.mappable) {
        CHECK(hsaKmtMapMemoryToGPU(p, it->second.size, nullptr) == HSAKMT_STATUS_INVALID_PARAMETER);
      } else if (it->second.mapped) {
        REQUIRE(hsaKmtUnmapMemoryToGPU(p) == HSAKMT_STATUS_SUCCESS);
        it->second.mapped = false;
      } else {
        REQUIRE(hsaKmtMapMemoryToGPU(p, it->second.size, nullptr) == HSAKMT_STATUS_SUCCESS);
        it->second.mapped = true;
      }
      ++maps;
    } else if (!live.empty()) {
      auto it = live.begin();
      std::advance(it, static_cast<long>(rng() % live.size()));
      const uint64_t inside = it->first + rng() % it->second.size;
      HsaPointerInfo info;
      REQUIRE(hsaKmtQueryPointerInfo(reinterpret_cast<void*>(inside), &info) ==
              HSAKMT_STATUS_SUCCESS);
      REQUIRE(uint64_t{info.GPUAddress} == it->first);
      REQUIRE(uint64_t{info.SizeInBytes} == it->second.size);
      REQUIRE(info.Node == it->second.node);
      ++queries;
    }
    const hke_status_t c = hke_memory_check(hke_default_context());
    if (c != HKE_OK) {
      INFO("step " << step << ": " << b.LastDiag());
      REQUIRE(c == HKE_OK);
    }
  }
  for (const auto& [addr, l] : live) {
    REQUIRE(hsaKmtFreeMemory(reinterpret_cast<void*>(addr), l.size) == HSAKMT_STATUS_SUCCESS);
  }
  const hke_memory_stats end = b.Stats();
  CHECK(end.live_objects == start.live_objects);
  CHECK(end.range_nodes_used == start.range_nodes_used);
  CHECK(end.handle_aperture_free == start.handle_aperture_free);
  CHECK(hke_memory_check(hke_default_context()) == HKE_OK);
  MESSAGE("allocs " << allocs << ", frees " << frees << ", map/unmap " << maps << ", queries "
                    << queries);
  CHECK(allocs > static_cast<uint64_t>(kSteps) * 3 / 10);
  CHECK(queries > static_cast<uint64_t>(kSteps) / 20);
}
