// Scratch memory as the runtime uses it: one large reservation per GPU
// (hsaKmtAllocMemory with Scratch), backed slice by slice with
// hsaKmtMapMemoryToGPU(base + offset, length), each slice unmapped on its
// own (upstream's _fmm_map_to_gpu_scratch / _fmm_unmap_from_gpu_scratch:
// a VRAM BO per slice on the owning GPU; nothing to do on an APU).
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "lib/kfd/abi.h"
#include "tests/memory/support.h"
#include "tests/support/combined_apu_tree.h"

using memtest::Flags;
using memtest::Open;
using memtest::SimBoard;
namespace k = hke::kfd;

namespace {

constexpr uint64_t kKiB = 1024, kMiB = 1024 * kKiB, kGiB = 1024 * kMiB;
constexpr uint32_t kVram = 1u << 0, kWritable = 1u << 31, kNoSubst = 1u << 28;

char* AllocScratch(uint32_t node, uint64_t size) {
  HsaMemFlags f = Flags();
  f.ui32.Scratch = 1;
  void* p = nullptr;
  REQUIRE(hsaKmtAllocMemory(node, size, f, &p) == HSAKMT_STATUS_SUCCESS);
  return static_cast<char*>(p);
}

uint64_t U(const void* p) { return reinterpret_cast<uintptr_t>(p); }

uint64_t Available(uint32_t node) {
  HSAuint64 bytes = 0;
  REQUIRE(hsaKmtAvailableMemory(node, &bytes) == HSAKMT_STATUS_SUCCESS);
  return bytes;
}

}  // namespace

TEST_CASE(
    "scratch is backed in slices: the runtime's 140 MiB first slice of a 3.5 GiB range fits a 512 "
    "MiB APU board") {
  SimBoard b(nullptr, "apu-embedded");
  Open o(b);
  const uint32_t gpu = 1;
  // A 32-bit process has no 3.5 GiB of address space to reserve.
  const uint64_t size = sizeof(void*) < 8 ? 768 * kMiB : 3584 * kMiB;
  char* base = AllocScratch(gpu, size);
  CHECK(b.Ioctls() == std::vector<std::string>{"SET_SCRATCH_BACKING_VA"});
  b.ClearTrace();
  HSAuint64 alt = 5;
  REQUIRE(hsaKmtMapMemoryToGPU(base, 140 * kMiB, &alt) == HSAKMT_STATUS_SUCCESS);
  CHECK(alt == 0);
  REQUIRE(hsaKmtMapMemoryToGPU(base + 512 * kMiB, 64 * kMiB, nullptr) == HSAKMT_STATUS_SUCCESS);
  CHECK(b.Ioctls() == std::vector<std::string>{"ALLOC_MEMORY_OF_GPU", "MAP_MEMORY_TO_GPU",
                                               "ALLOC_MEMORY_OF_GPU", "MAP_MEMORY_TO_GPU"});
  const auto allocs = b.Args("ALLOC_MEMORY_OF_GPU");
  REQUIRE(allocs.size() == 2);
  const auto low = SimBoard::As<k::AllocMemoryOfGpuArgs>(allocs[0]);
  const auto high = SimBoard::As<k::AllocMemoryOfGpuArgs>(allocs[1]);
  CHECK(low.va_addr == U(base));
  CHECK(low.size == 140 * kMiB);
  CHECK(low.flags == (kVram | kWritable | kNoSubst));
  CHECK(high.va_addr == U(base + 512 * kMiB));
  CHECK(high.size == 64 * kMiB);
  const auto maps = b.Args("MAP_MEMORY_TO_GPU");
  REQUIRE(maps.size() == 2);
  CHECK(SimBoard::As<k::MapMemoryToGpuArgs>(maps[0]).n_devices == 1);  // the owning GPU only
  const auto alloc_out = b.Args("ALLOC_MEMORY_OF_GPU", "out=");
  REQUIRE(alloc_out.size() == 2);
  const uint64_t second = SimBoard::As<k::AllocMemoryOfGpuArgs>(alloc_out[1]).handle;
  b.ClearTrace();
  REQUIRE(hsaKmtUnmapMemoryToGPU(base + 512 * kMiB) == HSAKMT_STATUS_SUCCESS);
  CHECK(b.Ioctls() == std::vector<std::string>{"UNMAP_MEMORY_FROM_GPU", "FREE_MEMORY_OF_GPU"});
  const auto frees = b.Args("FREE_MEMORY_OF_GPU");
  REQUIRE(frees.size() == 1);
  CHECK(SimBoard::As<k::FreeMemoryOfGpuArgs>(frees[0]).handle == second);
  b.ClearTrace();
  REQUIRE(hsaKmtUnmapMemoryToGPU(base) == HSAKMT_STATUS_SUCCESS);
  CHECK(b.Ioctls() == std::vector<std::string>{"UNMAP_MEMORY_FROM_GPU", "FREE_MEMORY_OF_GPU"});
  b.ClearTrace();
  CHECK(hsaKmtFreeMemory(base, size) == HSAKMT_STATUS_SUCCESS);
  CHECK(b.Ioctls().empty());
  CHECK(hke_memory_check(hke_default_context()) == HKE_OK);
}

TEST_CASE(
    "scratch slices: any page-aligned offset, several at once, each unmapped on its own, the VRAM "
    "used is the slices'") {
  for (uint32_t flags : {0u, static_cast<uint32_t>(HKE_CONFIG_LEGACY_USERPTR)}) {
    INFO("flags " << flags);
    SimBoard b(nullptr, "datacenter-4gpu", flags);
    Open o(b);
    const uint32_t gpu = 2;
    const hke_memory_stats before = b.Stats();
    const uint64_t size = sizeof(void*) < 8 ? 64 * kMiB : 1 * kGiB;
    char* base = AllocScratch(gpu, size);
    const uint64_t avail = Available(gpu);
    struct Slice {
      uint64_t off, len;
    };
    const Slice slices[] = {
        {0, 64 * kKiB}, {kMiB + 4 * kKiB, 8 * kKiB}, {size - 12 * kKiB, 12 * kKiB}};
    for (const Slice& s : slices) {
      INFO("slice at " << s.off);
      REQUIRE(hsaKmtMapMemoryToGPU(base + s.off, s.len, nullptr) == HSAKMT_STATUS_SUCCESS);
    }
    CHECK(Available(gpu) == avail - (64 + 8 + 12) * kKiB);

    // Refused: a slice overlapping a mapped one, one reaching past the
    // range, one not on a page boundary, one of no bytes.
    b.ClearTrace();
    CHECK(hsaKmtMapMemoryToGPU(base + 32 * kKiB, 64 * kKiB, nullptr) ==
          HSAKMT_STATUS_INVALID_PARAMETER);
    CHECK(b.LastDiag().find("overlaps") != std::string::npos);
    CHECK(hsaKmtMapMemoryToGPU(base + size - 4 * kKiB, 8 * kKiB, nullptr) ==
          HSAKMT_STATUS_INVALID_PARAMETER);
    CHECK(hsaKmtMapMemoryToGPU(base + 2 * kMiB + 100, 4 * kKiB, nullptr) ==
          HSAKMT_STATUS_INVALID_PARAMETER);
    CHECK(hsaKmtMapMemoryToGPU(base + 2 * kMiB, 0, nullptr) == HSAKMT_STATUS_INVALID_PARAMETER);
    CHECK(b.Ioctls().empty());
    // No slice starts there: upstream's ERROR.
    CHECK(hsaKmtUnmapMemoryToGPU(base + 2 * kMiB) == HSAKMT_STATUS_ERROR);

    // The same slice again only gains a reference.
    REQUIRE(hsaKmtMapMemoryToGPU(base + slices[1].off, slices[1].len, nullptr) ==
            HSAKMT_STATUS_SUCCESS);
    CHECK(b.Ioctls().empty());
    REQUIRE(hsaKmtUnmapMemoryToGPU(base + slices[1].off) == HSAKMT_STATUS_SUCCESS);
    CHECK(b.Ioctls().empty());
    // The middle slice goes alone; the others stay backed.
    REQUIRE(hsaKmtUnmapMemoryToGPU(base + slices[1].off) == HSAKMT_STATUS_SUCCESS);
    CHECK(b.Ioctls() == std::vector<std::string>{"UNMAP_MEMORY_FROM_GPU", "FREE_MEMORY_OF_GPU"});
    CHECK(Available(gpu) == avail - (64 + 12) * kKiB);
    REQUIRE(hsaKmtUnmapMemoryToGPU(base) == HSAKMT_STATUS_SUCCESS);
    CHECK(Available(gpu) == avail - 12 * kKiB);
    // Freeing the range releases the slice still mapped.
    b.ClearTrace();
    REQUIRE(hsaKmtFreeMemory(base, size) == HSAKMT_STATUS_SUCCESS);
    CHECK(b.Ioctls() == std::vector<std::string>{"UNMAP_MEMORY_FROM_GPU", "FREE_MEMORY_OF_GPU"});
    CHECK(Available(gpu) == avail);
    CHECK(b.Stats().live_objects == before.live_objects);
    CHECK(b.Stats().range_nodes_used == before.range_nodes_used);
    CHECK(hke_memory_check(hke_default_context()) == HKE_OK);
  }
}

TEST_CASE("scratch mapped to a node list: the owning GPU only") {
  SimBoard b(nullptr, "datacenter-4gpu");
  Open o(b);
  char* base = AllocScratch(2, 4 * kMiB);
  HSAuint32 other = 3, own = 2;
  CHECK(hsaKmtMapMemoryToGPUNodes(base, 64 * kKiB, nullptr, HsaMemMapFlags{}, 1, &other) ==
        HSAKMT_STATUS_INVALID_PARAMETER);
  REQUIRE(hsaKmtMapMemoryToGPUNodes(base, 64 * kKiB, nullptr, HsaMemMapFlags{}, 1, &own) ==
          HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtUnmapMemoryToGPU(base) == HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtFreeMemory(base, 4 * kMiB) == HSAKMT_STATUS_SUCCESS);
}

TEST_CASE(
    "on an APU (is_dgpu false) scratch is host memory and mapping or unmapping a slice does "
    "nothing") {
  SimBoard b(hketest::CombinedApuTree(), nullptr);
  Open o(b);
  char* base = AllocScratch(1, 2 * kMiB);
  CHECK(b.Ioctls() == std::vector<std::string>{"SET_SCRATCH_BACKING_VA"});
  std::memset(base, 0x3c, 2 * kMiB);  // the CPU may use it
  CHECK(static_cast<unsigned char>(base[2 * kMiB - 1]) == 0x3c);
  b.ClearTrace();
  CHECK(hsaKmtMapMemoryToGPU(base + 64 * kKiB, 64 * kKiB, nullptr) == HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtUnmapMemoryToGPU(base + 64 * kKiB) == HSAKMT_STATUS_SUCCESS);
  CHECK(b.Ioctls().empty());
  CHECK(hsaKmtFreeMemory(base, 2 * kMiB) == HSAKMT_STATUS_SUCCESS);
  CHECK(hke_memory_check(hke_default_context()) == HKE_OK);
}
