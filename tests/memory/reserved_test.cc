// Reserved-SVM mode (HKE_CONFIG_RESERVE_SVM, upstream's HSA_RESERVE_SVM=1):
// the library reserves the SVM range once and places every allocation with
// its own arenas: fine-grain memory in the first quarter, coarse-grain in
// the rest, end-aligned for nothing, coalesced on free.
#include <cstdint>
#include <vector>

#include "lib/kfd/abi.h"
#include "tests/memory/support.h"

using memtest::Flags;
using memtest::SimBoard;

TEST_CASE("reserved mode: allocations come from the reserved SVM range, by coherence, and free space coalesces") {
  SimBoard b(nullptr, "datacenter-4gpu", HKE_CONFIG_RESERVE_SVM);
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  HsaSystemProperties sys;
  REQUIRE(hsaKmtAcquireSystemProperties(&sys) == HSAKMT_STATUS_SUCCESS);
  // The alternate (fine-grain) aperture given to SET_MEMORY_POLICY is the
  // first quarter of the reservation.
  const auto policies = b.Args("SET_MEMORY_POLICY");
  REQUIRE(policies.size() == 4);
  const auto first_policy = SimBoard::As<hke::kfd::SetMemoryPolicyArgs>(policies[0]);
  const uint64_t alt_base = first_policy.alternate_aperture_base;
  const uint64_t alt_size = first_policy.alternate_aperture_size;
  CHECK(alt_base % (2u << 20) == 0);
  // A quarter of the reservation: at least 1 GiB of a 64-bit process's
  // range; a 32-bit process reserves what its address space allows.
  CHECK(alt_size >= (sizeof(void*) < 8 ? (64ull << 20) : (1ull << 30)));
  const hke_memory_stats start = b.Stats();

  HsaMemFlags fine = Flags();
  fine.ui32.NonPaged = 1;
  HsaMemFlags coarse = fine;
  coarse.ui32.CoarseGrain = 1;
  std::vector<void*> fines, coarses;
  for (int i = 0; i < 16; ++i) {
    void* p = nullptr;
    REQUIRE(hsaKmtAllocMemory(2, 1 << 20, fine, &p) == HSAKMT_STATUS_SUCCESS);
    const uint64_t a = reinterpret_cast<uintptr_t>(p);
    CHECK(a >= alt_base);
    CHECK(a + (1 << 20) <= alt_base + alt_size);
    fines.push_back(p);
    REQUIRE(hsaKmtAllocMemory(2, 1 << 20, coarse, &p) == HSAKMT_STATUS_SUCCESS);
    CHECK(reinterpret_cast<uintptr_t>(p) >= alt_base + alt_size);
    coarses.push_back(p);
  }
  // 2 MiB alignment for a 2 MiB request (the automatic alignment rule).
  void* big = nullptr;
  REQUIRE(hsaKmtAllocMemory(2, 4 << 20, coarse, &big) == HSAKMT_STATUS_SUCCESS);
  CHECK(reinterpret_cast<uintptr_t>(big) % (2 << 20) == 0);
  // A fixed address inside a free part of the range, then the same again.
  HsaMemFlags fixed = coarse;
  fixed.ui32.FixedAddress = 1;
  void* want = reinterpret_cast<void*>(static_cast<uintptr_t>(alt_base + 2 * alt_size));
  void* got = want;
  REQUIRE(hsaKmtAllocMemory(2, 1 << 16, fixed, &got) == HSAKMT_STATUS_SUCCESS);
  CHECK(got == want);
  void* again = want;
  CHECK(hsaKmtAllocMemory(2, 1 << 16, fixed, &again) == HSAKMT_STATUS_NO_MEMORY);
  CHECK(again == want);  // output untouched
  CHECK(hke_memory_check(hke_default_context()) == HKE_OK);
  for (size_t i = 0; i < fines.size(); i += 2) REQUIRE(hsaKmtFreeMemory(fines[i], 0) == HSAKMT_STATUS_SUCCESS);
  for (size_t i = 1; i < fines.size(); i += 2) REQUIRE(hsaKmtFreeMemory(fines[i], 0) == HSAKMT_STATUS_SUCCESS);
  for (void* p : coarses) REQUIRE(hsaKmtFreeMemory(p, 0) == HSAKMT_STATUS_SUCCESS);
  REQUIRE(hsaKmtFreeMemory(big, 0) == HSAKMT_STATUS_SUCCESS);
  REQUIRE(hsaKmtFreeMemory(got, 0) == HSAKMT_STATUS_SUCCESS);
  CHECK(hke_memory_check(hke_default_context()) == HKE_OK);
  const hke_memory_stats end = b.Stats();
  CHECK(end.live_objects == start.live_objects);
  CHECK(end.range_nodes_used == start.range_nodes_used);  // fully coalesced again
}
