// Every allocation path of hsaKmtAllocMemory on a dGPU board: the KFD flags
// each HsaMemFlags combination sends, the CPU view it gets, what
// QueryPointerInfo reports, map targets, argument checks, and failures that
// must leave nothing behind.
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "lib/kfd/abi.h"
#include "tests/memory/support.h"

using memtest::Flags;
using memtest::Open;
using memtest::SimBoard;
namespace k = hke::kfd;

namespace {

constexpr uint32_t kVram = 1u << 0, kGtt = 1u << 1, kUserptr = 1u << 2;
constexpr uint32_t kWritable = 1u << 31, kExec = 1u << 30, kPublic = 1u << 29,
                   kNoSubst = 1u << 28, kAql = 1u << 27, kCoherent = 1u << 26,
                   kUncached = 1u << 25, kExtCoherent = 1u << 24, kContiguous = 1u << 23;

// datacenter-4gpu: node 0 and 1 are CPUs, 2..5 GPUs.
constexpr uint32_t kCpu = 0, kGpu = 2;


}  // namespace

TEST_CASE("each HsaMemFlags combination sends upstream's KFD flags and gets its CPU view") {
  struct Case {
    const char* name;
    uint32_t node;
    void (*set)(HsaMemFlags&);
    uint32_t kfd;       // 0: no ALLOC at all
    bool host_visible;  // the CPU may write it
  };
  const Case cases[] = {
      {"system paged", kCpu, [](HsaMemFlags& f) { f.ui32.HostAccess = 1; },
       kUserptr | kWritable | kNoSubst | kCoherent, true},
      {"system non-paged (GTT)", kCpu,
       [](HsaMemFlags& f) {
         f.ui32.HostAccess = 1;
         f.ui32.NonPaged = 1;
       },
       kGtt | kWritable | kNoSubst | kCoherent, true},
      {"paged from a GPU node is system memory", kGpu, [](HsaMemFlags& f) { f.ui32.HostAccess = 1; },
       kUserptr | kWritable | kNoSubst | kCoherent, true},
      {"VRAM", kGpu, [](HsaMemFlags& f) { f.ui32.NonPaged = 1; },
       kVram | kWritable | kNoSubst | kCoherent, false},
      {"VRAM host access", kGpu,
       [](HsaMemFlags& f) {
         f.ui32.NonPaged = 1;
         f.ui32.HostAccess = 1;
       },
       kVram | kWritable | kNoSubst | kCoherent | kPublic, true},
      {"VRAM coarse grain", kGpu,
       [](HsaMemFlags& f) {
         f.ui32.NonPaged = 1;
         f.ui32.CoarseGrain = 1;
       },
       kVram | kWritable | kNoSubst, false},
      {"VRAM uncached", kGpu,
       [](HsaMemFlags& f) {
         f.ui32.NonPaged = 1;
         f.ui32.Uncached = 1;
       },
       kVram | kWritable | kNoSubst | kCoherent | kUncached, false},
      {"VRAM read-only", kGpu,
       [](HsaMemFlags& f) {
         f.ui32.NonPaged = 1;
         f.ui32.ReadOnly = 1;
       },
       kVram | kNoSubst | kCoherent, false},
      {"VRAM executable", kGpu,
       [](HsaMemFlags& f) {
         f.ui32.NonPaged = 1;
         f.ui32.ExecuteAccess = 1;
       },
       kVram | kWritable | kExec | kNoSubst | kCoherent, false},
      {"VRAM extended coherent", kGpu,
       [](HsaMemFlags& f) {
         f.ui32.NonPaged = 1;
         f.ui32.ExtendedCoherent = 1;
       },
       kVram | kWritable | kNoSubst | kCoherent | kExtCoherent, false},
      {"VRAM contiguous", kGpu,
       [](HsaMemFlags& f) {
         f.ui32.NonPaged = 1;
         f.ui32.Contiguous = 1;
       },
       kVram | kWritable | kNoSubst | kCoherent | kContiguous, false},
      {"VRAM AQL queue memory", kGpu,
       [](HsaMemFlags& f) {
         f.ui32.NonPaged = 1;
         f.ui32.HostAccess = 1;
         f.ui32.AQLQueueMemory = 1;
       },
       kVram | kWritable | kNoSubst | kCoherent | kPublic | kAql | kUncached, true},
      {"GTT access from a GPU node", kGpu,
       [](HsaMemFlags& f) {
         f.ui32.NonPaged = 1;
         f.ui32.GTTAccess = 1;
         f.ui32.HostAccess = 1;
       },
       kGtt | kWritable | kNoSubst | kCoherent, true},
      {"only address", kGpu,
       [](HsaMemFlags& f) {
         f.ui32.NonPaged = 1;
         f.ui32.OnlyAddress = 1;
       },
       0, false},
  };
  SimBoard b(nullptr, "datacenter-4gpu");
  Open o(b);
  for (const Case& c : cases) {
    INFO(c.name);
    b.ClearTrace();
    HsaMemFlags f = Flags();
    c.set(f);
    const uint64_t size = 2 * 1024 * 1024;
    void* p = nullptr;
    REQUIRE(hsaKmtAllocMemory(c.node, size, f, &p) == HSAKMT_STATUS_SUCCESS);
    REQUIRE(p != nullptr);
    const auto allocs = b.Args("ALLOC_MEMORY_OF_GPU");
    if (c.kfd == 0) {
      CHECK(allocs.empty());
    } else {
      REQUIRE(allocs.size() == 1);
      const auto alloc = SimBoard::As<k::AllocMemoryOfGpuArgs>(allocs[0]);
      CHECK(alloc.flags == c.kfd);
      CHECK(alloc.va_addr == reinterpret_cast<uintptr_t>(p));
      CHECK(alloc.size == (f.ui32.AQLQueueMemory ? 2 * size : size));
      CHECK(alloc.gpu_id != 0);
    }
    if (c.host_visible) {
      std::memset(p, 0xa5, size);
      CHECK(static_cast<unsigned char*>(p)[size - 1] == 0xa5);
    }
    HsaPointerInfo info;
    REQUIRE(hsaKmtQueryPointerInfo(static_cast<char*>(p) + 4096, &info) == HSAKMT_STATUS_SUCCESS);
    CHECK(info.Type == (c.kfd == 0 ? HSA_POINTER_RESERVED_ADDR : HSA_POINTER_ALLOCATED));
    // An address-only reservation reports node 0 and no CPU address (its
    // own test case below); everything else the node asked and the pointer.
    CHECK(info.Node == (c.kfd == 0 ? 0 : c.node));
    CHECK(info.MemFlags.Value == f.Value);
    CHECK(uint64_t{info.GPUAddress} == reinterpret_cast<uintptr_t>(p));
    CHECK(static_cast<const void*>(info.CPUAddress) == (c.kfd == 0 ? nullptr : p));
    CHECK(uint64_t{info.SizeInBytes} == (f.ui32.AQLQueueMemory ? 2 * size : size));
    CHECK(hsaKmtFreeMemory(p, size) == HSAKMT_STATUS_SUCCESS);
    CHECK(hsaKmtQueryPointerInfo(p, &info) == HSAKMT_STATUS_ERROR);
    CHECK(info.Type == HSA_POINTER_UNKNOWN);
  }
  CHECK(hke_memory_check(hke_default_context()) == HKE_OK);
  CHECK(b.Stats().live_objects == 4);  // the MMIO pages only
}

TEST_CASE("NoAddress VRAM lives in the handle aperture above 2^47, KFD gets va 0, and it cannot be mapped") {
  SimBoard b(nullptr, "datacenter-4gpu");
  Open o(b);
  HsaMemFlags f = Flags();
  f.ui32.NonPaged = 1;
  f.ui32.NoAddress = 1;
  void* p = nullptr;
  const uint64_t free_before = b.Stats().handle_aperture_free;
  REQUIRE(hsaKmtAllocMemory(kGpu, 1 << 20, f, &p) == HSAKMT_STATUS_SUCCESS);
  // Above the canonical range on 64-bit hosts; a 32-bit process gets a
  // PROT_NONE window the library reserved (the address is never CPU-usable).
  CHECK((sizeof(void*) < 8 || reinterpret_cast<uintptr_t>(p) >= (1ull << 47)));
  const auto allocs = b.Args("ALLOC_MEMORY_OF_GPU");
  REQUIRE(allocs.size() == 1);
  CHECK(SimBoard::As<k::AllocMemoryOfGpuArgs>(allocs[0]).va_addr == 0);
  CHECK(b.Stats().handle_aperture_free == free_before - (1 << 20));
  CHECK(hsaKmtMapMemoryToGPU(p, 1 << 20, nullptr) == HSAKMT_STATUS_INVALID_PARAMETER);
  HsaPointerInfo info;
  REQUIRE(hsaKmtQueryPointerInfo(p, &info) == HSAKMT_STATUS_SUCCESS);
  CHECK(static_cast<const void*>(info.CPUAddress) == nullptr);
  CHECK(hsaKmtFreeMemory(p, 1 << 20) == HSAKMT_STATUS_SUCCESS);
  CHECK(b.Stats().handle_aperture_free == free_before);
}

TEST_CASE("QueryPointerInfo of an address-only reservation: RESERVED_ADDR on node 0 with no CPU address, whatever node reserved it, as current upstream") {
  SimBoard b(nullptr, "datacenter-4gpu");
  Open o(b);
  for (uint32_t node : {0u, 1u, kGpu}) {
    CAPTURE(node);
    HsaMemFlags f = Flags();
    f.ui32.NonPaged = node == kGpu ? 1 : 0;
    f.ui32.OnlyAddress = 1;
    void* p = nullptr;
    REQUIRE(hsaKmtAllocMemory(node, 1 << 20, f, &p) == HSAKMT_STATUS_SUCCESS);
    HsaPointerInfo info;
    REQUIRE(hsaKmtQueryPointerInfo(static_cast<char*>(p) + 4096, &info) == HSAKMT_STATUS_SUCCESS);
    CHECK(info.Type == HSA_POINTER_RESERVED_ADDR);
    CHECK(info.Node == 0);
    CHECK(static_cast<const void*>(info.CPUAddress) == nullptr);
    CHECK(uint64_t{info.GPUAddress} == reinterpret_cast<uintptr_t>(p));
    CHECK(uint64_t{info.SizeInBytes} == (1u << 20));
    CHECK(info.MemFlags.Value == f.Value);
    CHECK(hsaKmtFreeMemory(p, 1 << 20) == HSAKMT_STATUS_SUCCESS);
  }
}

TEST_CASE("MapMemoryToGPU maps VRAM to every GPU; MapMemoryToGPUNodes adds and drops exactly the difference") {
  SimBoard b(nullptr, "datacenter-4gpu");
  Open o(b);
  HsaMemFlags f = Flags();
  f.ui32.NonPaged = 1;
  void* p = nullptr;
  REQUIRE(hsaKmtAllocMemory(kGpu, 1 << 20, f, &p) == HSAKMT_STATUS_SUCCESS);
  b.ClearTrace();
  HSAuint64 alt = 99;
  REQUIRE(hsaKmtMapMemoryToGPU(p, 1 << 20, &alt) == HSAKMT_STATUS_SUCCESS);
  CHECK(alt == 0);  // GPU VA == CPU VA
  auto maps = b.Args("MAP_MEMORY_TO_GPU");
  REQUIRE(maps.size() == 1);
  CHECK(SimBoard::As<k::MapMemoryToGpuArgs>(maps[0]).n_devices == 4);
  HsaPointerInfo info;
  REQUIRE(hsaKmtQueryPointerInfo(p, &info) == HSAKMT_STATUS_SUCCESS);
  REQUIRE(info.NMappedNodes == 4);
  CHECK(info.MappedNodes[0] == 2);
  CHECK(info.MappedNodes[3] == 5);
  REQUIRE(hsaKmtUnmapMemoryToGPU(p) == HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtUnmapMemoryToGPU(p) == HSAKMT_STATUS_SUCCESS);  // not mapped: still success

  HsaMemMapFlags mf;
  mf.Value = 0;
  HSAuint32 two[] = {2, 3};
  b.ClearTrace();
  REQUIRE(hsaKmtMapMemoryToGPUNodes(p, 1 << 20, &alt, mf, 2, two) == HSAKMT_STATUS_SUCCESS);
  HSAuint32 one[] = {3};
  REQUIRE(hsaKmtMapMemoryToGPUNodes(p, 1 << 20, &alt, mf, 1, one) == HSAKMT_STATUS_SUCCESS);
  maps = b.Args("MAP_MEMORY_TO_GPU");
  const auto unmaps = b.Args("UNMAP_MEMORY_FROM_GPU");
  REQUIRE(maps.size() == 1);  // {2,3}; then {3} only drops 2
  REQUIRE(unmaps.size() == 1);
  CHECK(SimBoard::As<k::UnmapMemoryFromGpuArgs>(unmaps[0]).n_devices == 1);
  REQUIRE(hsaKmtQueryPointerInfo(p, &info) == HSAKMT_STATUS_SUCCESS);
  REQUIRE(info.NMappedNodes == 1);
  CHECK(info.MappedNodes[0] == 3);
  HSAuint32 cpu[] = {0};
  CHECK(hsaKmtMapMemoryToGPUNodes(p, 1 << 20, &alt, mf, 1, cpu) == HSAKMT_STATUS_INVALID_NODE_UNIT);
  // Free unmaps what is still mapped first.
  b.ClearTrace();
  CHECK(hsaKmtFreeMemory(p, 1 << 20) == HSAKMT_STATUS_SUCCESS);
  CHECK(b.Ioctls() == std::vector<std::string>{"UNMAP_MEMORY_FROM_GPU", "FREE_MEMORY_OF_GPU"});
}

TEST_CASE("invalid allocation arguments fail before any kernel call and leave the output untouched") {
  SimBoard b(nullptr, "datacenter-4gpu");
  Open o(b);
  struct Case {
    const char* name;
    uint32_t node;
    uint64_t size;
    uint64_t align;
    void (*set)(HsaMemFlags&);
    HSAKMT_STATUS want;
  };
  const Case cases[] = {
      {"unknown node", 99, 4096, 0, [](HsaMemFlags&) {}, HSAKMT_STATUS_INVALID_NODE_UNIT},
      {"size 0", kCpu, 0, 0, [](HsaMemFlags&) {}, HSAKMT_STATUS_INVALID_PARAMETER},
      {"size not a page multiple", kCpu, 4097, 0, [](HsaMemFlags&) {},
       HSAKMT_STATUS_INVALID_PARAMETER},
      {"size not a 2M multiple with 2M pages", kGpu, 4096, 0,
       [](HsaMemFlags& f) {
         f.ui32.NonPaged = 1;
         f.ui32.PageSize = 2;
       },
       HSAKMT_STATUS_INVALID_PARAMETER},
      {"alignment not a power of two", kCpu, 65536, 3 * 4096, [](HsaMemFlags&) {},
       HSAKMT_STATUS_INVALID_PARAMETER},
      {"fixed address without an address", kCpu, 4096, 0,
       [](HsaMemFlags& f) { f.ui32.FixedAddress = 1; }, HSAKMT_STATUS_INVALID_PARAMETER},
      {"coarse grain and extended coherent", kGpu, 4096, 0,
       [](HsaMemFlags& f) {
         f.ui32.NonPaged = 1;
         f.ui32.CoarseGrain = 1;
         f.ui32.ExtendedCoherent = 1;
       },
       HSAKMT_STATUS_INVALID_PARAMETER},
      {"extended coherent and uncached", kGpu, 4096, 0,
       [](HsaMemFlags& f) {
         f.ui32.NonPaged = 1;
         f.ui32.Uncached = 1;
         f.ui32.ExtendedCoherent = 1;
       },
       HSAKMT_STATUS_INVALID_PARAMETER},
      {"scratch with an alignment", kGpu, 65536, 65536,
       [](HsaMemFlags& f) { f.ui32.Scratch = 1; }, HSAKMT_STATUS_NOT_IMPLEMENTED},
      {"GDS", kGpu, 4096, 0, [](HsaMemFlags& f) { f.ui32.GDSMemory = 1; },
       HSAKMT_STATUS_NOT_SUPPORTED},
  };
  const hke_memory_stats before = b.Stats();
  for (const Case& c : cases) {
    INFO(c.name);
    b.ClearTrace();
    HsaMemFlags f = Flags();
    c.set(f);
    void* p = reinterpret_cast<void*>(uintptr_t{0x1234});
    CHECK(hsaKmtAllocMemoryAlign(c.node, c.size, c.align, f, &p) == c.want);
    CHECK(p == reinterpret_cast<void*>(uintptr_t{0x1234}));
    CHECK(b.Ioctls().empty());
    CHECK_FALSE(b.LastDiag().empty());
  }
  CHECK(b.Stats().live_objects == before.live_objects);
  CHECK(b.Stats().range_nodes_used == before.range_nodes_used);
  CHECK(hsaKmtAllocMemory(kCpu, 4096, Flags(), nullptr) == HSAKMT_STATUS_INVALID_PARAMETER);
}

TEST_CASE("a failing ALLOC, mmap target or MAP leaves no object, index node or VA behind") {
  SimBoard b(nullptr, "datacenter-4gpu");
  Open o(b);
  const hke_memory_stats before = b.Stats();
  HsaMemFlags f = Flags();
  f.ui32.NonPaged = 1;
  f.ui32.HostAccess = 1;
  for (int error : {ENOMEM, EINVAL, EFAULT, EBUSY}) {
    INFO(error);
    kfdsim_add_fault(b.sim(), 0x4b16, error, 1, 1);  // the next ALLOC_MEMORY_OF_GPU
    void* p = reinterpret_cast<void*>(uintptr_t{0x777});
    CHECK(hsaKmtAllocMemory(kGpu, 1 << 20, f, &p) != HSAKMT_STATUS_SUCCESS);
    CHECK(p == reinterpret_cast<void*>(uintptr_t{0x777}));
    CHECK(b.Stats().live_objects == before.live_objects);
    CHECK(b.Stats().range_nodes_used == before.range_nodes_used);
    kfdsim_clear_faults(b.sim());
  }
  void* p = nullptr;
  REQUIRE(hsaKmtAllocMemory(kGpu, 1 << 20, f, &p) == HSAKMT_STATUS_SUCCESS);
  kfdsim_add_fault(b.sim(), 0x4b18, ENOMEM, 1, 1);  // MAP_MEMORY_TO_GPU
  CHECK(hsaKmtMapMemoryToGPU(p, 1 << 20, nullptr) == HSAKMT_STATUS_NO_MEMORY);
  HsaPointerInfo info;
  REQUIRE(hsaKmtQueryPointerInfo(p, &info) == HSAKMT_STATUS_SUCCESS);
  CHECK(info.NMappedNodes == 0);
  kfdsim_clear_faults(b.sim());
  CHECK(hsaKmtMapMemoryToGPU(p, 1 << 20, nullptr) == HSAKMT_STATUS_SUCCESS);
  // A FREE the kernel refuses keeps the object so it can be freed later.
  kfdsim_add_fault(b.sim(), 0x4b17, EBUSY, 1, 1);
  CHECK(hsaKmtFreeMemory(p, 1 << 20) != HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtQueryPointerInfo(p, &info) == HSAKMT_STATUS_SUCCESS);
  kfdsim_clear_faults(b.sim());
  CHECK(hsaKmtFreeMemory(p, 1 << 20) == HSAKMT_STATUS_SUCCESS);
  CHECK(b.Stats().live_objects == before.live_objects);
  CHECK(hke_memory_check(hke_default_context()) == HKE_OK);
}

TEST_CASE("unknown addresses: upstream's statuses per call; Unmap(NULL) succeeds") {
  SimBoard b(nullptr, "datacenter-4gpu", HKE_CONFIG_LEGACY_USERPTR);
  Open o(b);
  int local = 0;
  CHECK(hsaKmtFreeMemory(&local, 4) == HSAKMT_STATUS_INVALID_PARAMETER);
  CHECK(hsaKmtMapMemoryToGPU(&local, 4, nullptr) == HSAKMT_STATUS_INVALID_PARAMETER);
  CHECK(hsaKmtSetMemoryUserData(&local, &local) == HSAKMT_STATUS_ERROR);
  CHECK(hsaKmtUnmapMemoryToGPU(&local) == HSAKMT_STATUS_ERROR);
  CHECK(hsaKmtDeregisterMemory(&local) == HSAKMT_STATUS_MEMORY_NOT_REGISTERED);
  CHECK(hsaKmtUnmapMemoryToGPU(nullptr) == HSAKMT_STATUS_SUCCESS);
  void* p = nullptr;
  HsaMemFlags f = Flags();
  f.ui32.HostAccess = 1;
  REQUIRE(hsaKmtAllocMemory(kCpu, 8192, f, &p) == HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtFreeMemory(static_cast<char*>(p) + 4096, 4096) == HSAKMT_STATUS_INVALID_PARAMETER);
  CHECK(hsaKmtSetMemoryUserData(static_cast<char*>(p) + 100, &local) == HSAKMT_STATUS_ERROR);
  CHECK(hsaKmtSetMemoryUserData(p, &local) == HSAKMT_STATUS_SUCCESS);  // the start only
  HsaPointerInfo info;
  REQUIRE(hsaKmtQueryPointerInfo(p, &info) == HSAKMT_STATUS_SUCCESS);
  CHECK(static_cast<const void*>(info.UserData) == &local);
  CHECK(hsaKmtFreeMemory(p, 8192) == HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtFreeMemory(p, 8192) == HSAKMT_STATUS_INVALID_PARAMETER);  // double free
}

TEST_CASE("legacy registration: a coarse userptr BO at a GPU VA of its own, counted; its node set is given once, other nodes are ALREADY_REGISTERED") {
  SimBoard b(nullptr, "datacenter-4gpu", HKE_CONFIG_LEGACY_USERPTR);
  Open o(b);
  const size_t size = 3 * 4096 + 100;
  void* raw = nullptr;
  REQUIRE(posix_memalign(&raw, 4096, 8 * 4096) == 0);
  char* buf = static_cast<char*>(raw) + 64;  // not page aligned
  REQUIRE(hsaKmtRegisterMemory(buf, size) == HSAKMT_STATUS_SUCCESS);
  auto allocs = b.Args("ALLOC_MEMORY_OF_GPU");
  REQUIRE(allocs.size() == 1);
  const auto alloc = SimBoard::As<k::AllocMemoryOfGpuArgs>(allocs[0]);
  CHECK(alloc.flags == (kUserptr | kWritable | kExec | kNoSubst));
  const uint64_t gpu_va = alloc.va_addr;
  CHECK(gpu_va != reinterpret_cast<uintptr_t>(raw));
  CHECK(gpu_va % 4096 == 0);
  CHECK(alloc.mmap_offset == reinterpret_cast<uintptr_t>(raw));  // USERPTR: the CPU address
  CHECK(alloc.size == 4 * 4096);
  REQUIRE(hsaKmtRegisterMemory(buf, size) == HSAKMT_STATUS_SUCCESS);  // counted, no ioctl
  CHECK(b.Args("ALLOC_MEMORY_OF_GPU").size() == 1);
  // The first node set is recorded (upstream); then only that set.
  HSAuint32 nodes[] = {3}, others[] = {4};
  CHECK(hsaKmtRegisterMemoryToNodes(buf, size, 1, nodes) == HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtRegisterMemoryToNodes(buf, size, 1, others) ==
        HSAKMT_STATUS_MEMORY_ALREADY_REGISTERED);
  CHECK(hsaKmtRegisterMemory(buf, size) == HSAKMT_STATUS_MEMORY_ALREADY_REGISTERED);
  CHECK(b.Args("ALLOC_MEMORY_OF_GPU").size() == 1);
  HsaPointerInfo info;
  REQUIRE(hsaKmtQueryPointerInfo(buf + 5000, &info) == HSAKMT_STATUS_SUCCESS);
  CHECK(info.Type == HSA_POINTER_REGISTERED_USER);
  CHECK(static_cast<const void*>(info.CPUAddress) == buf);
  CHECK(uint64_t{info.GPUAddress} == gpu_va + 64);
  CHECK(uint64_t{info.SizeInBytes} == size);
  CHECK(uint32_t{info.MemFlags.ui32.CoarseGrain} == 1);
  HSAuint64 alt = 0;
  REQUIRE(hsaKmtMapMemoryToGPU(buf, size, &alt) == HSAKMT_STATUS_SUCCESS);
  CHECK(alt == gpu_va + 64);
  REQUIRE(hsaKmtMapMemoryToGPU(buf, size, nullptr) == HSAKMT_STATUS_SUCCESS);  // a reference
  CHECK(b.Args("MAP_MEMORY_TO_GPU").size() == 1);
  b.ClearTrace();
  REQUIRE(hsaKmtUnmapMemoryToGPU(buf) == HSAKMT_STATUS_SUCCESS);
  CHECK(b.Ioctls().empty());
  REQUIRE(hsaKmtUnmapMemoryToGPU(buf) == HSAKMT_STATUS_SUCCESS);
  CHECK(b.Ioctls() == std::vector<std::string>{"UNMAP_MEMORY_FROM_GPU"});
  REQUIRE(hsaKmtDeregisterMemory(buf) == HSAKMT_STATUS_SUCCESS);
  REQUIRE(hsaKmtDeregisterMemory(buf) == HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtQueryPointerInfo(buf, &info) == HSAKMT_STATUS_SUCCESS);  // still one registration
  b.ClearTrace();
  REQUIRE(hsaKmtDeregisterMemory(buf) == HSAKMT_STATUS_SUCCESS);
  CHECK(b.Ioctls() == std::vector<std::string>{"FREE_MEMORY_OF_GPU"});
  CHECK(hsaKmtQueryPointerInfo(buf, &info) == HSAKMT_STATUS_ERROR);
  CHECK(hsaKmtDeregisterMemory(buf) == HSAKMT_STATUS_MEMORY_NOT_REGISTERED);
  free(raw);
}

TEST_CASE("SVM-API registration: one SET_ATTR with the coherence flags, mapping with ACCESS_IN_PLACE") {
  SimBoard b(nullptr, "datacenter-4gpu");
  Open o(b);
  void* raw = nullptr;
  REQUIRE(posix_memalign(&raw, 4096, 4 * 4096) == 0);
  REQUIRE(hsaKmtRegisterMemory(raw, 4 * 4096) == HSAKMT_STATUS_SUCCESS);
  CHECK(b.Ioctls() == std::vector<std::string>{"SVM"});
  b.ClearTrace();
  REQUIRE(hsaKmtMapMemoryToGPU(raw, 4 * 4096, nullptr) == HSAKMT_STATUS_SUCCESS);
  const auto svm = b.Args("SVM");
  REQUIRE(svm.size() == 1);
  // The SVM head, then its (type, value) attribute records.
  CHECK(SimBoard::Head<k::SvmArgs>(svm[0]).nattr == 4);
  const auto attrs = SimBoard::Tail<k::SvmArgs, k::SvmAttribute>(svm[0]);
  REQUIRE(!attrs.empty());
  CHECK(attrs[0].type == k::kSvmAttrAccessInPlace);
  CHECK(hsaKmtUnmapMemoryToGPU(raw) == HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtDeregisterMemory(raw) == HSAKMT_STATUS_SUCCESS);
  free(raw);
}

TEST_CASE("an APU whose GPU is its own KFD node takes the dGPU paths (upstream's is_dgpu)") {
  SimBoard b(nullptr, "apu-embedded");
  Open o(b);
  HsaMemFlags f = Flags();
  f.ui32.HostAccess = 1;
  void* p = nullptr;
  REQUIRE(hsaKmtAllocMemory(0, 1 << 16, f, &p) == HSAKMT_STATUS_SUCCESS);
  static_cast<char*>(p)[100] = 1;
  CHECK(hsaKmtMapMemoryToGPU(p, 1 << 16, nullptr) == HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtUnmapMemoryToGPU(p) == HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtFreeMemory(p, 1 << 16) == HSAKMT_STATUS_SUCCESS);
  CHECK(b.Ioctls() == std::vector<std::string>{"ALLOC_MEMORY_OF_GPU", "MAP_MEMORY_TO_GPU",
                                               "UNMAP_MEMORY_FROM_GPU", "FREE_MEMORY_OF_GPU"});
  const auto allocs = b.Args("ALLOC_MEMORY_OF_GPU");
  REQUIRE(allocs.size() == 1);
  CHECK(SimBoard::As<k::AllocMemoryOfGpuArgs>(allocs[0]).flags ==
        (kUserptr | kWritable | kNoSubst | kCoherent));
}

TEST_CASE("AvailableMemory, XNACK and dma-buf export go to the kernel with node ids translated") {
  SimBoard b(nullptr, "datacenter-4gpu");
  Open o(b);
  HSAuint64 avail = 0;
  REQUIRE(hsaKmtAvailableMemory(kGpu, &avail) == HSAKMT_STATUS_SUCCESS);
  CHECK(avail > 0);
  CHECK(hsaKmtAvailableMemory(kCpu, &avail) == HSAKMT_STATUS_INVALID_NODE_UNIT);
  HSAint32 mode = -5;
  REQUIRE(hsaKmtGetXNACKMode(&mode) == HSAKMT_STATUS_SUCCESS);
  CHECK((mode == 0 || mode == 1));
  REQUIRE(hsaKmtSetXNACKMode(1) == HSAKMT_STATUS_SUCCESS);
  REQUIRE(hsaKmtGetXNACKMode(&mode) == HSAKMT_STATUS_SUCCESS);
  CHECK(mode == 1);
  HsaMemFlags f = Flags();
  f.ui32.NonPaged = 1;
  void* p = nullptr;
  REQUIRE(hsaKmtAllocMemory(kGpu, 1 << 20, f, &p) == HSAKMT_STATUS_SUCCESS);
  int fd = -1;
  HSAuint64 off = 1;
  REQUIRE(hsaKmtExportDMABufHandle(static_cast<char*>(p) + 8192, 4096, &fd, &off) ==
          HSAKMT_STATUS_SUCCESS);
  CHECK(fd >= 0);
  CHECK(off == 8192);
  close(fd);
  CHECK(hsaKmtExportDMABufHandle(static_cast<char*>(p) + (1 << 20) - 4096, 8192, &fd, &off) ==
        HSAKMT_STATUS_INVALID_PARAMETER);
  CHECK(hsaKmtFreeMemory(p, 1 << 20) == HSAKMT_STATUS_SUCCESS);
}

TEST_CASE("FixedAddress in mmap mode gets exactly the address, and NO_MEMORY when it is taken") {
  SimBoard b(nullptr, "datacenter-4gpu");
  Open o(b);
  HsaMemFlags f = Flags();
  f.ui32.NonPaged = 1;
  void* first = nullptr;
  REQUIRE(hsaKmtAllocMemory(kGpu, 1 << 20, f, &first) == HSAKMT_STATUS_SUCCESS);
  f.ui32.FixedAddress = 1;
  void* again = first;
  CHECK(hsaKmtAllocMemory(kGpu, 1 << 20, f, &again) == HSAKMT_STATUS_NO_MEMORY);
  CHECK(again == first);
  REQUIRE(hsaKmtFreeMemory(first, 1 << 20) == HSAKMT_STATUS_SUCCESS);
  void* reuse = first;  // free again now
  REQUIRE(hsaKmtAllocMemory(kGpu, 1 << 20, f, &reuse) == HSAKMT_STATUS_SUCCESS);
  CHECK(reuse == first);
  CHECK(hsaKmtFreeMemory(reuse, 1 << 20) == HSAKMT_STATUS_SUCCESS);
}

TEST_CASE("MapMemoryToGPU(Nodes) of an address-only reservation is INVALID_PARAMETER and maps nothing, as upstream") {
  struct Mode {
    const char* board;
    uint32_t flags;
    uint32_t gpu;
  };
  for (const Mode& mode : {Mode{"apu-embedded", 0, 1}, Mode{"datacenter-4gpu", 0, kGpu},
                           Mode{"datacenter-4gpu", HKE_CONFIG_LEGACY_USERPTR, kGpu}}) {
    INFO(mode.board << " flags " << mode.flags);
    SimBoard b(nullptr, mode.board, mode.flags);
    Open o(b);
    HsaMemFlags f = Flags();
    f.ui32.NonPaged = 1;
    f.ui32.OnlyAddress = 1;
    void* p = nullptr;
    REQUIRE(hsaKmtAllocMemory(mode.gpu, 1 << 20, f, &p) == HSAKMT_STATUS_SUCCESS);
    b.ClearTrace();
    HSAuint64 alt = 7;
    CHECK(hsaKmtMapMemoryToGPU(p, 1 << 20, &alt) == HSAKMT_STATUS_INVALID_PARAMETER);
    CHECK(alt == 7);
    CHECK(b.LastDiag().find("address-only") != std::string::npos);
    HSAuint32 node = mode.gpu;
    CHECK(hsaKmtMapMemoryToGPUNodes(p, 1 << 20, &alt, HsaMemMapFlags{}, 1, &node) ==
          HSAKMT_STATUS_INVALID_PARAMETER);
    CHECK(b.Ioctls().empty());
    HsaPointerInfo info;
    REQUIRE(hsaKmtQueryPointerInfo(p, &info) == HSAKMT_STATUS_SUCCESS);
    CHECK(info.Type == HSA_POINTER_RESERVED_ADDR);
    CHECK(info.NMappedNodes == 0);
    CHECK(hsaKmtUnmapMemoryToGPU(p) == HSAKMT_STATUS_SUCCESS);  // nothing mapped: upstream's success
    CHECK(hsaKmtFreeMemory(p, 1 << 20) == HSAKMT_STATUS_SUCCESS);
  }
}
