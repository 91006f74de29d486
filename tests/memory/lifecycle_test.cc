// The memory lifecycle through the hsaKmt* API on the in-process simulator:
// VM bring-up, every allocation path, map/unmap, free, reopen.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "tests/memory/support.h"

using memtest::Flags;
using memtest::SimBoard;

namespace {

std::string Join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += x + " ";
  return s;
}

}  // namespace

TEST_CASE("VM bring-up issues ACQUIRE_VM, SET_MEMORY_POLICY and the MMIO page per GPU; close frees the page") {
  SimBoard b(nullptr, "datacenter-4gpu");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  HsaSystemProperties sys;
  REQUIRE(hsaKmtAcquireSystemProperties(&sys) == HSAKMT_STATUS_SUCCESS);
  const std::vector<std::string> io = b.Ioctls();
  INFO(Join(io));
  INFO(Join(b.Diags()));
  size_t acquire = 0, policy = 0, alloc = 0, map = 0;
  for (const auto& n : io) {
    acquire += n == "ACQUIRE_VM";
    policy += n == "SET_MEMORY_POLICY";
    alloc += n == "ALLOC_MEMORY_OF_GPU";
    map += n == "MAP_MEMORY_TO_GPU";
  }
  CHECK(acquire == 4);
  CHECK(policy == 4);
  CHECK(alloc == 4);
  CHECK(map == 4);
  b.ClearTrace();
  REQUIRE(hsaKmtReleaseSystemProperties() == HSAKMT_STATUS_SUCCESS);
  REQUIRE(hsaKmtCloseKFD() == HSAKMT_STATUS_SUCCESS);
  const std::vector<std::string> closing = b.Ioctls();
  INFO(Join(closing));
  size_t unmap = 0, free_ = 0;
  for (const auto& n : closing) {
    unmap += n == "UNMAP_MEMORY_FROM_GPU";
    free_ += n == "FREE_MEMORY_OF_GPU";
  }
  CHECK(unmap == 4);
  CHECK(free_ == 4);
}

TEST_CASE("a reopen brings the VM up again and memory works after it") {
  SimBoard b(nullptr, "apu-embedded");
  HsaSystemProperties sys;
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  REQUIRE(hsaKmtAcquireSystemProperties(&sys) == HSAKMT_STATUS_SUCCESS);
  REQUIRE(hsaKmtReleaseSystemProperties() == HSAKMT_STATUS_SUCCESS);
  REQUIRE(hsaKmtCloseKFD() == HSAKMT_STATUS_SUCCESS);
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  const HSAKMT_STATUS s = hsaKmtAcquireSystemProperties(&sys);
  INFO(Join(b.Diags()));
  INFO(Join(b.Ioctls()));
  REQUIRE(s == HSAKMT_STATUS_SUCCESS);
  HsaMemFlags f = Flags();
  f.ui32.NonPaged = 1;
  f.ui32.HostAccess = 1;
  void* p = nullptr;
  REQUIRE(hsaKmtAllocMemory(1, 65536, f, &p) == HSAKMT_STATUS_SUCCESS);
  REQUIRE(p != nullptr);
  std::memset(p, 0x5a, 65536);  // host-visible
  CHECK(hsaKmtMapMemoryToGPU(p, 65536, nullptr) == HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtUnmapMemoryToGPU(p) == HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtFreeMemory(p, 65536) == HSAKMT_STATUS_SUCCESS);
}

