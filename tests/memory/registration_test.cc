// User-memory registration as upstream's consumers use it, on the three
// paths a board can take: the APU board (apu-embedded: its GPU is a KFD
// node of its own, so upstream's is_dgpu, without the SVM API: userptr
// BOs), a dGPU board in SVM mode (datacenter-4gpu: SVM SET_ATTR) and the
// same board in legacy userptr mode (HSA_USE_SVM=0 /
// HKE_CONFIG_LEGACY_USERPTR); and a combined APU (is_dgpu false), where
// registration is a no-op. Statuses are upstream's (fmm.c:
// hsakmt_fmm_register_memory, hsakmt_fmm_map_to_gpu / _fmm_map_to_gpu_userptr,
// hsakmt_fmm_unmap_from_gpu, hsakmt_fmm_deregister_memory, vm_find_object,
// hsakmt_fmm_get_mem_info).
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "lib/kfd/abi.h"
#include "tests/memory/support.h"
#include "tests/support/combined_apu_tree.h"

using memtest::Open;
using memtest::SimBoard;
namespace k = hke::kfd;

namespace {

struct Mode {
  const char* name;
  const char* board;
  uint32_t flags;
  bool svm;      // registration through SVM SET_ATTR (else userptr BOs)
  uint32_t gpu;  // a GPU node of the board
};

const Mode kModes[] = {
    {"apu-embedded (userptr)", "apu-embedded", 0, false, 1},
    {"datacenter-4gpu, SVM", "datacenter-4gpu", 0, true, 2},
    {"datacenter-4gpu, legacy userptr", "datacenter-4gpu", HKE_CONFIG_LEGACY_USERPTR, false, 2},
};
const Mode kUserptrModes[] = {kModes[0], kModes[2]};

constexpr uint64_t kPage = 4096;

// Page-aligned host memory that is not the library's.
struct HostBuffer {
  explicit HostBuffer(size_t bytes) : size(bytes) {
    REQUIRE(posix_memalign(&raw, kPage, bytes) == 0);
    std::memset(raw, 0x5a, bytes);
  }
  ~HostBuffer() { std::free(raw); }
  char* at(size_t off) const { return static_cast<char*>(raw) + off; }
  void* raw = nullptr;
  size_t size;
};

uint64_t U(const void* p) { return reinterpret_cast<uintptr_t>(p); }

// The GPU address of a userptr registration as QueryPointerInfo reports it.
uint64_t QueriedGpuAddress(const void* p) {
  HsaPointerInfo info;
  REQUIRE(hsaKmtQueryPointerInfo(p, &info) == HSAKMT_STATUS_SUCCESS);
  REQUIRE(info.Type == HSA_POINTER_REGISTERED_USER);
  return info.GPUAddress;
}

}  // namespace

TEST_CASE(
    "registered user memory maps at a valid GPU address (the user address in SVM mode), and Unmap "
    "and Deregister accept it") {
  for (const Mode& mode : kModes) {
    INFO(mode.name);
    SimBoard b(nullptr, mode.board, mode.flags);
    Open o(b);
    const hke_memory_stats before = b.Stats();
    HostBuffer host(8 * kPage);
    char* buf = host.at(100);  // not page aligned
    const HSAuint64 size = 3 * kPage;
    REQUIRE(hsaKmtRegisterMemory(buf, size) == HSAKMT_STATUS_SUCCESS);
    HSAuint64 gpuva = 0;
    REQUIRE(hsaKmtMapMemoryToGPU(buf, size, &gpuva) == HSAKMT_STATUS_SUCCESS);
    CHECK(gpuva != 0);
    CHECK(gpuva % kPage == 100);  // the page offset of the user address
    if (mode.svm) {
      CHECK(gpuva == U(buf));
      // SET_ATTR(ACCESS_IN_PLACE) over the whole pages.
      const auto svm = b.Args("SVM");
      REQUIRE(svm.size() == 2);  // the registration's, the mapping's
      const auto mapping = SimBoard::Head<k::SvmArgs>(svm[1]);
      CHECK(mapping.start_addr == U(host.raw));
      CHECK(mapping.size == 4 * kPage);
    } else {
      CHECK(gpuva != U(buf));  // the userptr BO's own GPU VA
      CHECK(gpuva == QueriedGpuAddress(buf));
    }
    b.ClearTrace();
    CHECK(hsaKmtUnmapMemoryToGPU(reinterpret_cast<void*>(gpuva)) == HSAKMT_STATUS_SUCCESS);
    CHECK(hsaKmtDeregisterMemory(reinterpret_cast<void*>(gpuva)) == HSAKMT_STATUS_SUCCESS);
    if (!mode.svm) {
      CHECK(b.Ioctls() == std::vector<std::string>{"UNMAP_MEMORY_FROM_GPU", "FREE_MEMORY_OF_GPU"});
      HsaPointerInfo info;
      CHECK(hsaKmtQueryPointerInfo(buf, &info) == HSAKMT_STATUS_ERROR);
    }

    // To nodes, mapped to those nodes: the same address rules.
    HSAuint32 node = mode.gpu;
    REQUIRE(hsaKmtRegisterMemoryToNodes(buf, size, 1, &node) == HSAKMT_STATUS_SUCCESS);
    gpuva = 0;
    REQUIRE(hsaKmtMapMemoryToGPUNodes(buf, size, &gpuva, HsaMemMapFlags{}, 1, &node) ==
            HSAKMT_STATUS_SUCCESS);
    CHECK(gpuva % kPage == 100);
    CHECK((mode.svm ? gpuva == U(buf) : gpuva == QueriedGpuAddress(buf)));
    CHECK(hsaKmtUnmapMemoryToGPU(reinterpret_cast<void*>(gpuva)) == HSAKMT_STATUS_SUCCESS);
    CHECK(hsaKmtDeregisterMemory(reinterpret_cast<void*>(gpuva)) == HSAKMT_STATUS_SUCCESS);

    CHECK(b.Stats().live_objects == before.live_objects);
    CHECK(b.Stats().range_nodes_used == before.range_nodes_used);
    CHECK(hke_memory_check(hke_default_context()) == HKE_OK);
  }
}

TEST_CASE(
    "the same pointer registered twice maps at a valid GPU address each time and its "
    "deregistrations balance") {
  for (const Mode& mode : kModes) {
    INFO(mode.name);
    SimBoard b(nullptr, mode.board, mode.flags);
    Open o(b);
    const hke_memory_stats before = b.Stats();
    HostBuffer host(4 * kPage);
    char* buf = host.at(64);
    const HSAuint64 size = 2 * kPage;
    REQUIRE(hsaKmtRegisterMemory(buf, size) == HSAKMT_STATUS_SUCCESS);
    REQUIRE(hsaKmtRegisterMemory(buf, size) == HSAKMT_STATUS_SUCCESS);
    HSAuint64 first = 0, second = 0;
    REQUIRE(hsaKmtMapMemoryToGPU(buf, size, &first) == HSAKMT_STATUS_SUCCESS);
    REQUIRE(hsaKmtMapMemoryToGPU(buf, size, &second) == HSAKMT_STATUS_SUCCESS);
    CHECK(first != 0);
    CHECK(second == first);  // one registration counted twice (userptr) or the pages (SVM)
    CHECK(first % kPage == 64);
    CHECK(hsaKmtUnmapMemoryToGPU(reinterpret_cast<void*>(second)) == HSAKMT_STATUS_SUCCESS);
    CHECK(hsaKmtUnmapMemoryToGPU(reinterpret_cast<void*>(first)) == HSAKMT_STATUS_SUCCESS);
    CHECK(hsaKmtDeregisterMemory(reinterpret_cast<void*>(first)) == HSAKMT_STATUS_SUCCESS);
    if (!mode.svm) {
      // One registration is left: still known, still at its address.
      CHECK(QueriedGpuAddress(buf) == first);
    }
    CHECK(hsaKmtDeregisterMemory(buf) == HSAKMT_STATUS_SUCCESS);
    // Balanced: a third deregistration finds nothing (upstream: SUCCESS in
    // SVM mode, which keeps no record; MEMORY_NOT_REGISTERED otherwise).
    CHECK(hsaKmtDeregisterMemory(buf) ==
          (mode.svm ? HSAKMT_STATUS_SUCCESS : HSAKMT_STATUS_MEMORY_NOT_REGISTERED));
    CHECK(b.Stats().live_objects == before.live_objects);
    CHECK(hke_memory_check(hke_default_context()) == HKE_OK);
  }
}

TEST_CASE(
    "registration from several threads at once gives every registration its GPU address and leaves "
    "nothing behind") {
  for (const Mode& mode : kModes) {
    INFO(mode.name);
    SimBoard b(nullptr, mode.board, mode.flags);
    Open o(b);
    kfdsim_set_trace(b.sim(), nullptr, nullptr);
    const hke_memory_stats before = b.Stats();
    constexpr int kThreads = 8, kRounds = 40;
    HostBuffer shared(2 * kPage);
    std::vector<HostBuffer*> own;
    for (int t = 0; t < kThreads; ++t) own.push_back(new HostBuffer(4 * kPage));
    std::atomic<int> failures{0};
    std::vector<std::string> why(kThreads);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        auto fail = [&](const std::string& w) {
          if (why[t].empty()) why[t] = w;
          failures.fetch_add(1);
        };
        // Every thread also holds one registration of the shared buffer.
        if (hsaKmtRegisterMemory(shared.at(8), kPage) != HSAKMT_STATUS_SUCCESS)
          fail("shared register");
        for (int r = 0; r < kRounds; ++r) {
          char* p = own[t]->at(static_cast<size_t>(8 * (r % 16)));
          const HSAuint64 size = kPage + static_cast<HSAuint64>(r);
          if (hsaKmtRegisterMemory(p, size) != HSAKMT_STATUS_SUCCESS) {
            fail("register");
            continue;
          }
          HSAuint64 gpuva = 0;
          if (hsaKmtMapMemoryToGPU(p, size, &gpuva) != HSAKMT_STATUS_SUCCESS) {
            fail("map");
          } else {
            if (gpuva == 0 || gpuva % kPage != U(p) % kPage || (mode.svm && gpuva != U(p))) {
              fail("GPU address");
            }
            if (hsaKmtUnmapMemoryToGPU(reinterpret_cast<void*>(gpuva)) != HSAKMT_STATUS_SUCCESS) {
              fail("unmap");
            }
          }
          if (hsaKmtDeregisterMemory(gpuva != 0 ? reinterpret_cast<void*>(gpuva) : p) !=
              HSAKMT_STATUS_SUCCESS) {
            fail("deregister");
          }
        }
        if (hsaKmtDeregisterMemory(shared.at(8)) != HSAKMT_STATUS_SUCCESS)
          fail("shared deregister");
      });
    }
    for (auto& th : threads) th.join();
    for (int t = 0; t < kThreads; ++t) {
      INFO("thread " << t << ": " << why[t]);
      CHECK(why[t].empty());
    }
    CHECK(failures.load() == 0);
    // Every registration of the shared buffer was released.
    CHECK(hsaKmtDeregisterMemory(shared.at(8)) ==
          (mode.svm ? HSAKMT_STATUS_SUCCESS : HSAKMT_STATUS_MEMORY_NOT_REGISTERED));
    CHECK(b.Stats().live_objects == before.live_objects);
    CHECK(b.Stats().range_nodes_used == before.range_nodes_used);
    CHECK(hke_memory_check(hke_default_context()) == HKE_OK);
    for (HostBuffer* h : own) delete h;
  }
}

TEST_CASE(
    "userptr path: a pointer registered again with a smaller size is a second registration with "
    "its own GPU address") {
  for (const Mode& mode : kUserptrModes) {
    INFO(mode.name);
    SimBoard b(nullptr, mode.board, mode.flags);
    Open o(b);
    const hke_memory_stats before = b.Stats();
    HostBuffer host(8 * kPage);
    char* buf = host.at(256);
    const HSAuint64 big = 3 * kPage + 100, small = kPage;
    REQUIRE(hsaKmtRegisterMemory(buf, big) == HSAKMT_STATUS_SUCCESS);
    REQUIRE(hsaKmtRegisterMemory(buf, small) == HSAKMT_STATUS_SUCCESS);
    const auto allocs = b.Args("ALLOC_MEMORY_OF_GPU");
    REQUIRE(allocs.size() == 2);  // two userptr BOs
    CHECK(SimBoard::As<k::AllocMemoryOfGpuArgs>(allocs[0]).size == 4 * kPage);
    // 256 + 4096 bytes span two pages.
    CHECK(SimBoard::As<k::AllocMemoryOfGpuArgs>(allocs[1]).size == 2 * kPage);
    HSAuint64 gpu_big = 0, gpu_small = 0;
    REQUIRE(hsaKmtMapMemoryToGPU(buf, big, &gpu_big) == HSAKMT_STATUS_SUCCESS);
    REQUIRE(hsaKmtMapMemoryToGPU(buf, small, &gpu_small) == HSAKMT_STATUS_SUCCESS);
    CHECK(gpu_big != gpu_small);
    CHECK(gpu_big % kPage == 256);
    CHECK(gpu_small % kPage == 256);
    HsaPointerInfo info;
    REQUIRE(hsaKmtQueryPointerInfo(reinterpret_cast<void*>(gpu_small), &info) ==
            HSAKMT_STATUS_SUCCESS);
    CHECK(uint64_t{info.SizeInBytes} == small);
    // By the user address alone the two are ambiguous: upstream finds neither.
    CHECK(hsaKmtDeregisterMemory(buf) == HSAKMT_STATUS_MEMORY_NOT_REGISTERED);
    CHECK(hsaKmtUnmapMemoryToGPU(buf) == HSAKMT_STATUS_ERROR);
    // By the GPU address each one is named exactly.
    CHECK(hsaKmtUnmapMemoryToGPU(reinterpret_cast<void*>(gpu_small)) == HSAKMT_STATUS_SUCCESS);
    CHECK(hsaKmtDeregisterMemory(reinterpret_cast<void*>(gpu_small)) == HSAKMT_STATUS_SUCCESS);
    // Now the user address names the one left.
    CHECK(hsaKmtUnmapMemoryToGPU(buf) == HSAKMT_STATUS_SUCCESS);
    CHECK(hsaKmtDeregisterMemory(buf) == HSAKMT_STATUS_SUCCESS);
    CHECK(b.Args("FREE_MEMORY_OF_GPU").size() == 2);
    CHECK(b.Stats().live_objects == before.live_objects);
    CHECK(hke_memory_check(hke_default_context()) == HKE_OK);
  }
}

TEST_CASE(
    "userptr path: QueryPointerInfo reports the registration containing the address, a second "
    "range in the same page with its own nodes") {
  for (const Mode& mode : kUserptrModes) {
    INFO(mode.name);
    SimBoard b(nullptr, mode.board, mode.flags);
    Open o(b);
    HostBuffer host(2 * kPage);
    char* first = host.at(0);
    char* second = host.at(512);
    HSAuint32 node = mode.gpu;
    REQUIRE(hsaKmtRegisterMemory(first, 256) == HSAKMT_STATUS_SUCCESS);
    REQUIRE(hsaKmtRegisterMemoryToNodes(second, 256, 1, &node) == HSAKMT_STATUS_SUCCESS);
    HsaPointerInfo info;
    REQUIRE(hsaKmtQueryPointerInfo(second + 100, &info) == HSAKMT_STATUS_SUCCESS);
    CHECK(info.Type == HSA_POINTER_REGISTERED_USER);
    CHECK(static_cast<const void*>(info.CPUAddress) == second);
    CHECK(uint64_t{info.SizeInBytes} == 256);
    REQUIRE(info.NRegisteredNodes == 1);
    CHECK(info.RegisteredNodes[0] == mode.gpu);
    REQUIRE(hsaKmtQueryPointerInfo(first + 100, &info) == HSAKMT_STATUS_SUCCESS);
    CHECK(static_cast<const void*>(info.CPUAddress) == first);
    CHECK(info.NRegisteredNodes == 0);
    // Between the two ranges, inside the page: neither.
    CHECK(hsaKmtQueryPointerInfo(first + 300, &info) == HSAKMT_STATUS_ERROR);
    // A range inside another: the nearer start wins (upstream's walk).
    REQUIRE(hsaKmtRegisterMemory(first, 2 * kPage) == HSAKMT_STATUS_SUCCESS);
    REQUIRE(hsaKmtQueryPointerInfo(second + 100, &info) == HSAKMT_STATUS_SUCCESS);
    CHECK(static_cast<const void*>(info.CPUAddress) == second);
    REQUIRE(hsaKmtQueryPointerInfo(first + 300, &info) == HSAKMT_STATUS_SUCCESS);
    CHECK(uint64_t{info.SizeInBytes} == 2 * kPage);
    CHECK(hsaKmtDeregisterMemory(second) == HSAKMT_STATUS_SUCCESS);
    CHECK(hsaKmtDeregisterMemory(reinterpret_cast<void*>(QueriedGpuAddress(first + 300))) ==
          HSAKMT_STATUS_SUCCESS);
    CHECK(hsaKmtDeregisterMemory(first) == HSAKMT_STATUS_SUCCESS);
    CHECK(hke_memory_check(hke_default_context()) == HKE_OK);
  }
}

TEST_CASE(
    "on an APU (is_dgpu false) registering system memory is a no-op whatever the size, and map, "
    "unmap and deregister succeed without a kernel call") {
  SimBoard b(hketest::CombinedApuTree(), nullptr);
  Open o(b);
  HostBuffer host(4 * kPage);
  char* buf = host.at(32);
  CHECK(hsaKmtRegisterMemory(buf, 3 * kPage) == HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtRegisterMemory(buf, kPage) == HSAKMT_STATUS_SUCCESS);
  HSAuint64 gpuva = 77;
  CHECK(hsaKmtMapMemoryToGPU(buf, kPage, &gpuva) == HSAKMT_STATUS_SUCCESS);
  CHECK(gpuva == 0);  // the GPU reaches the pages at their own address
  CHECK(hsaKmtUnmapMemoryToGPU(buf) == HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtDeregisterMemory(buf) == HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtDeregisterMemory(buf) == HSAKMT_STATUS_SUCCESS);
  CHECK(b.Ioctls().empty());
}
