// SVM through the library on the in-process simulator: attributes read
// back with the kernel's fold rules, prefetch moving the range, SVM-mode
// registration, and host unmaps splitting ranges (reported by the
// platform's munmap, or noticed at the next ALLOC). tests/sim_preload's
// sim_fidelity runs the same through the LD_PRELOAD front end.
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "tests/memory/support.h"

using memtest::Flags;
using memtest::SimBoard;

namespace {

constexpr uint32_t kGpu = 2;  // datacenter-4gpu: nodes 2..5 are MI210s (gfx90a), SVM-capable
constexpr size_t kPage = 4096;

struct Open {
  explicit Open(SimBoard& b) : b(b) {
    REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
    HsaSystemProperties sys;
    REQUIRE(hsaKmtAcquireSystemProperties(&sys) == HSAKMT_STATUS_SUCCESS);
    b.ClearTrace();
  }
  ~Open() { hsaKmtCloseKFD(); }
  SimBoard& b;
};

// Host pages the test owns (unmapped with libc at the end).
struct Host {
  explicit Host(size_t pages) : size(pages * kPage) {
    void* m = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    REQUIRE(m != MAP_FAILED);
    p = static_cast<char*>(m);
  }
  ~Host() { munmap(p, size); }
  char* at(size_t page) const { return p + page * kPage; }
  char* p;
  size_t size;
};

HSA_SVM_ATTRIBUTE Attr(HSA_SVM_ATTR_TYPE type, HSAuint32 value) {
  HSA_SVM_ATTRIBUTE a;
  a.type = type;
  a.value = value;
  return a;
}

uint32_t GpuIdOf(uint32_t node) {
  HsaNodeProperties np;
  REQUIRE(hsaKmtGetNodeProperties(node, &np) == HSAKMT_STATUS_SUCCESS);
  return np.KFDGpuID;
}

}  // namespace

TEST_CASE("SVMGetAttr reads back what SVMSetAttr set, folded over pieces as the kernel folds them") {
  SimBoard b(nullptr, "datacenter-4gpu");
  Open o(b);
  Host h(16);
  std::vector<HSA_SVM_ATTRIBUTE> first = {Attr(HSA_SVM_ATTR_PREFERRED_LOC, kGpu),
                                          Attr(HSA_SVM_ATTR_SET_FLAGS, HSA_SVM_FLAG_GPU_EXEC),
                                          Attr(HSA_SVM_ATTR_ACCESS, kGpu)};
  REQUIRE(hsaKmtSVMSetAttr(h.at(0), 8 * kPage, 3, first.data()) == HSAKMT_STATUS_SUCCESS);
  std::vector<HSA_SVM_ATTRIBUTE> second = {Attr(HSA_SVM_ATTR_PREFERRED_LOC, kGpu),
                                           Attr(HSA_SVM_ATTR_GRANULARITY, 3),
                                           Attr(HSA_SVM_ATTR_ACCESS_IN_PLACE, kGpu)};
  REQUIRE(hsaKmtSVMSetAttr(h.at(8), 8 * kPage, 3, second.data()) == HSAKMT_STATUS_SUCCESS);
  const HSAuint32 base = HSA_SVM_FLAG_HOST_ACCESS | HSA_SVM_FLAG_COHERENT;
  // Each piece reads back what was set.
  std::vector<HSA_SVM_ATTRIBUTE> g = {Attr(HSA_SVM_ATTR_PREFERRED_LOC, 0), Attr(HSA_SVM_ATTR_SET_FLAGS, 0),
                                      Attr(HSA_SVM_ATTR_GRANULARITY, 0), Attr(HSA_SVM_ATTR_ACCESS, kGpu)};
  REQUIRE(hsaKmtSVMGetAttr(h.at(0), 8 * kPage, 4, g.data()) == HSAKMT_STATUS_SUCCESS);
  CHECK(g[0].value == kGpu);
  CHECK(g[1].value == (base | HSA_SVM_FLAG_GPU_EXEC));
  CHECK(g[2].value == 9);
  CHECK(g[3].type == HSA_SVM_ATTR_ACCESS);
  g = {Attr(HSA_SVM_ATTR_ACCESS, kGpu), Attr(HSA_SVM_ATTR_GRANULARITY, 0)};
  REQUIRE(hsaKmtSVMGetAttr(h.at(8), 8 * kPage, 2, g.data()) == HSAKMT_STATUS_SUCCESS);
  CHECK(g[0].type == HSA_SVM_ATTR_ACCESS_IN_PLACE);
  CHECK(g[1].value == 3);
  // Both: common values, AND of flags, complement of their OR, minimum
  // granularity, and no common access kind.
  g = {Attr(HSA_SVM_ATTR_PREFERRED_LOC, 0), Attr(HSA_SVM_ATTR_SET_FLAGS, 0),
       Attr(HSA_SVM_ATTR_CLR_FLAGS, 0), Attr(HSA_SVM_ATTR_GRANULARITY, 0),
       Attr(HSA_SVM_ATTR_ACCESS, kGpu)};
  REQUIRE(hsaKmtSVMGetAttr(h.at(0), 16 * kPage, 5, g.data()) == HSAKMT_STATUS_SUCCESS);
  CHECK(g[0].value == kGpu);
  CHECK(g[1].value == base);
  CHECK(g[2].value == static_cast<HSAuint32>(~(base | HSA_SVM_FLAG_GPU_EXEC)));
  CHECK(g[3].value == 3);
  CHECK(g[4].type == HSA_SVM_ATTR_NO_ACCESS);
  // The kernel answers an ACCESS_IN_PLACE query with EINVAL (only ACCESS asks).
  g = {Attr(HSA_SVM_ATTR_ACCESS_IN_PLACE, kGpu)};
  CHECK(hsaKmtSVMGetAttr(h.at(0), kPage, 1, g.data()) == HSAKMT_STATUS_INVALID_PARAMETER);
}

TEST_CASE("SVM prefetch to a GPU moves the range there; a prefetch to system memory moves it back") {
  SimBoard b(nullptr, "datacenter-4gpu");
  Open o(b);
  Host h(4);
  std::vector<HSA_SVM_ATTRIBUTE> a = {Attr(HSA_SVM_ATTR_ACCESS, kGpu), Attr(HSA_SVM_ATTR_PREFETCH_LOC, kGpu)};
  REQUIRE(hsaKmtSVMSetAttr(h.at(0), 4 * kPage, 2, a.data()) == HSAKMT_STATUS_SUCCESS);
  kfdsim_svm_range_info r{};
  r.struct_size = sizeof(r);
  REQUIRE(kfdsim_svm_range(b.sim(), reinterpret_cast<uintptr_t>(h.at(1)), &r) == 0);
  CHECK(r.actual_loc == GpuIdOf(kGpu));
  std::vector<HSA_SVM_ATTRIBUTE> g = {Attr(HSA_SVM_ATTR_PREFETCH_LOC, 0)};
  REQUIRE(hsaKmtSVMGetAttr(h.at(0), 4 * kPage, 1, g.data()) == HSAKMT_STATUS_SUCCESS);
  CHECK(g[0].value == kGpu);
  a = {Attr(HSA_SVM_ATTR_PREFETCH_LOC, 0)};  // node 0: system memory
  REQUIRE(hsaKmtSVMSetAttr(h.at(0), 4 * kPage, 1, a.data()) == HSAKMT_STATUS_SUCCESS);
  REQUIRE(kfdsim_svm_range(b.sim(), reinterpret_cast<uintptr_t>(h.at(1)), &r) == 0);
  CHECK(r.actual_loc == 0);
  g = {Attr(HSA_SVM_ATTR_PREFETCH_LOC, 7)};
  REQUIRE(hsaKmtSVMGetAttr(h.at(0), 4 * kPage, 1, g.data()) == HSAKMT_STATUS_SUCCESS);
  CHECK(g[0].value == 0);
}

TEST_CASE("SVM ranges refused as the kernel refuses them: unmapped host memory, outside the address space") {
  SimBoard b(nullptr, "datacenter-4gpu");
  Open o(b);
  std::vector<HSA_SVM_ATTRIBUTE> a = {Attr(HSA_SVM_ATTR_GRANULARITY, 4)};
  b.ClearTrace();
  CHECK(hsaKmtSVMSetAttr(reinterpret_cast<void*>(0x7ffffffff000ull), 2 * kPage, 1, a.data()) ==
        HSAKMT_STATUS_ERROR);
  // The kernel's EFAULT (not a library check): one SVM request, refused.
  const std::vector<std::string> t = b.Trace();
  REQUIRE(t.size() == 1);
  CHECK(t[0].find("name=AMDKFD_IOC_SVM ") != std::string::npos);
  CHECK(t[0].find("-> EFAULT") != std::string::npos);
  CHECK(b.LastDiagStatus() != HKE_OK);
  Host h(2);
  CHECK(hsaKmtSVMSetAttr(h.at(0), 0, 1, a.data()) == HSAKMT_STATUS_INVALID_PARAMETER);
  CHECK(hsaKmtSVMSetAttr(h.at(0) + 16, kPage, 1, a.data()) == HSAKMT_STATUS_INVALID_PARAMETER);
}

TEST_CASE("a host munmap splits an SVM-mode registration; the platform's munmap reports it at once") {
  SimBoard b(nullptr, "datacenter-4gpu");
  Open o(b);
  Host h(16);
  REQUIRE(hsaKmtRegisterMemory(h.at(0), 16 * kPage) == HSAKMT_STATUS_SUCCESS);
  REQUIRE(hsaKmtMapMemoryToGPU(h.at(0), 16 * kPage, nullptr) == HSAKMT_STATUS_SUCCESS);
  kfdsim_svm_range_info r{};
  r.struct_size = sizeof(r);
  REQUIRE(kfdsim_svm_range(b.sim(), reinterpret_cast<uintptr_t>(h.at(5)), &r) == 0);
  // The library's platform table unmaps pages 4..7 (as its own munmaps do).
  const hke_platform plat = hke_sim_platform(b.sim());
  REQUIRE(plat.ops->munmap(plat.self, h.at(4), 4 * kPage) == 0);
  CHECK(kfdsim_svm_range(b.sim(), reinterpret_cast<uintptr_t>(h.at(5)), &r) == ENOENT);
  REQUIRE(kfdsim_svm_range(b.sim(), reinterpret_cast<uintptr_t>(h.at(0)), &r) == 0);
  CHECK(r.end == reinterpret_cast<uintptr_t>(h.at(4)));
  REQUIRE(kfdsim_svm_range(b.sim(), reinterpret_cast<uintptr_t>(h.at(9)), &r) == 0);
  CHECK(r.start == reinterpret_cast<uintptr_t>(h.at(8)));
  // The rest keeps its access (the registration's ACCESS_IN_PLACE).
  std::vector<HSA_SVM_ATTRIBUTE> g = {Attr(HSA_SVM_ATTR_ACCESS, kGpu)};
  REQUIRE(hsaKmtSVMGetAttr(h.at(8), 8 * kPage, 1, g.data()) == HSAKMT_STATUS_SUCCESS);
  CHECK(g[0].type == HSA_SVM_ATTR_ACCESS_IN_PLACE);
  // A direct munmap nobody reports (pages 8..11): the next allocation there
  // finds the address free.
  REQUIRE(munmap(h.at(8), 4 * kPage) == 0);
  HsaMemFlags f = Flags();
  f.ui32.NonPaged = 1;
  f.ui32.HostAccess = 1;
  f.ui32.FixedAddress = 1;
  void* fixed = h.at(8);
  b.ClearTrace();
  const HSAKMT_STATUS st = hsaKmtAllocMemory(kGpu, 4 * kPage, f, &fixed);
  REQUIRE(st == HSAKMT_STATUS_SUCCESS);
  CHECK(fixed == h.at(8));
  CHECK(b.Ioctls().at(0) == "ALLOC_MEMORY_OF_GPU");
  CHECK(hsaKmtFreeMemory(fixed, 4 * kPage) == HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtUnmapMemoryToGPU(h.at(0)) == HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtDeregisterMemory(h.at(0)) == HSAKMT_STATUS_SUCCESS);
}
