// Helpers shared by the queue tests: the first GPU node of the acquired
// topology, GPU-mapped GTT and VRAM buffers, and the queue table's counters.
// Call with a SimBoard (tests/support/sim_board.h) configured and the device
// open.
#ifndef HKE_TESTS_QUEUES_SUPPORT_H_
#define HKE_TESTS_QUEUES_SUPPORT_H_

#include <cstdint>
#include <cstring>

#include "lib/context/context.h"
#include "lib/queues/queues.h"
#include "tests/support/sim_board.h"

namespace queuetest {

using hketest::FirstGpuNode;

inline HsaNodeProperties Props(uint32_t node) {
  HsaNodeProperties p{};
  REQUIRE(hsaKmtGetNodeProperties(node, &p) == HSAKMT_STATUS_SUCCESS);
  return p;
}

// Zeroed GTT memory (node 0, executable) mapped to `node`; whole pages.
inline void* Gtt(uint32_t node, uint64_t size) {
  size = (size + 4095) / 4096 * 4096;
  HsaMemFlags f{};
  f.ui32.HostAccess = 1;
  f.ui32.NonPaged = 1;
  f.ui32.ExecuteAccess = 1;
  void* p = nullptr;
  REQUIRE(hsaKmtAllocMemory(0, size, f, &p) == HSAKMT_STATUS_SUCCESS);
  REQUIRE(hsaKmtMapMemoryToGPUNodes(p, size, nullptr, HsaMemMapFlags{}, 1, &node) ==
          HSAKMT_STATUS_SUCCESS);
  std::memset(p, 0, size);
  return p;
}

// Host-visible VRAM of `node`, mapped to it.
inline void* Vram(uint32_t node, uint64_t size) {
  HsaMemFlags f{};
  f.ui32.HostAccess = 1;
  f.ui32.NonPaged = 1;
  f.ui32.CoarseGrain = 1;
  void* p = nullptr;
  REQUIRE(hsaKmtAllocMemory(node, size, f, &p) == HSAKMT_STATUS_SUCCESS);
  REQUIRE(hsaKmtMapMemoryToGPUNodes(p, size, nullptr, HsaMemMapFlags{}, 1, &node) ==
          HSAKMT_STATUS_SUCCESS);
  return p;
}

inline hke::queues::Stats QStats() {
  hke::queues::Stats s{};
  REQUIRE(hke::queues::GetStats(hke_default_context()->impl, &s).ok());
  return s;
}

}  // namespace queuetest

#endif  // HKE_TESTS_QUEUES_SUPPORT_H_
