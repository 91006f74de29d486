// Sharing: dma-buf export + graphics import, IPC share handles.
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "lib/kfd/abi.h"
#include "tests/memory/support.h"

using memtest::Flags;
using memtest::OpenAcquire;
using memtest::SimBoard;

namespace {

constexpr uint32_t kGpu = 2;  // datacenter-4gpu: nodes 2..5 are GPUs

void* HostVram(uint64_t size) {
  HsaMemFlags f = Flags();
  f.ui32.NonPaged = 1;
  f.ui32.HostAccess = 1;
  void* p = nullptr;
  REQUIRE(hsaKmtAllocMemory(kGpu, size, f, &p) == HSAKMT_STATUS_SUCCESS);
  return p;
}

}  // namespace

TEST_CASE("a dma-buf export imports as REGISTERED_GRAPHICS on the exporting GPU, mappable to the listed nodes") {
  SimBoard b(nullptr, "datacenter-4gpu");
  OpenAcquire(b);
  void* p = HostVram(1 << 20);
  std::memset(p, 0x3c, 1 << 20);
  int fd = -1;
  HSAuint64 off = 0;
  REQUIRE(hsaKmtExportDMABufHandle(p, 1 << 20, &fd, &off) == HSAKMT_STATUS_SUCCESS);
  HSAuint32 nodes[] = {2, 3};
  HsaGraphicsResourceInfo info;
  std::memset(&info, 0, sizeof(info));
  b.ClearTrace();
  REQUIRE(hsaKmtRegisterGraphicsHandleToNodes(static_cast<HSAuint64>(fd), &info, 2, nodes) ==
          HSAKMT_STATUS_SUCCESS);
  CHECK(b.Ioctls() == std::vector<std::string>{"GET_DMABUF_INFO", "IMPORT_DMABUF"});
  CHECK(uint64_t{info.SizeInBytes} == (1u << 20));
  CHECK(info.NodeId == kGpu);
  CHECK(info.MetadataSizeInBytes == 0);
  CHECK(reinterpret_cast<uintptr_t>(info.MemoryAddress) % (256 * 1024) == 0);
  HsaPointerInfo pi;
  REQUIRE(hsaKmtQueryPointerInfo(info.MemoryAddress, &pi) == HSAKMT_STATUS_SUCCESS);
  CHECK(pi.Type == HSA_POINTER_REGISTERED_GRAPHICS);
  CHECK(pi.NRegisteredNodes == 2);
  REQUIRE(hsaKmtMapMemoryToGPU(info.MemoryAddress, info.SizeInBytes, nullptr) == HSAKMT_STATUS_SUCCESS);
  REQUIRE(hsaKmtQueryPointerInfo(info.MemoryAddress, &pi) == HSAKMT_STATUS_SUCCESS);
  CHECK(pi.NMappedNodes == 2);  // the registered nodes, not every GPU
  CHECK(hsaKmtUnmapMemoryToGPU(info.MemoryAddress) == HSAKMT_STATUS_SUCCESS);
  b.ClearTrace();
  CHECK(hsaKmtDeregisterMemory(info.MemoryAddress) == HSAKMT_STATUS_SUCCESS);
  CHECK(b.Ioctls() == std::vector<std::string>{"FREE_MEMORY_OF_GPU"});
  close(fd);
  CHECK(hsaKmtFreeMemory(p, 1 << 20) == HSAKMT_STATUS_SUCCESS);
  CHECK(hke_memory_check(hke_default_context()) == HKE_OK);
}

TEST_CASE("a graphics import without nodes or requiresVAddr lands in the handle aperture and cannot be mapped") {
  SimBoard b(nullptr, "datacenter-4gpu");
  OpenAcquire(b);
  void* p = HostVram(1 << 16);
  int fd = -1;
  HSAuint64 off = 0;
  REQUIRE(hsaKmtExportDMABufHandle(p, 1 << 16, &fd, &off) == HSAKMT_STATUS_SUCCESS);
  HsaGraphicsResourceInfo info;
  REQUIRE(hsaKmtRegisterGraphicsHandleToNodes(static_cast<HSAuint64>(fd), &info, 0, nullptr) ==
          HSAKMT_STATUS_SUCCESS);
  CHECK((sizeof(void*) < 8 || reinterpret_cast<uintptr_t>(info.MemoryAddress) >= (1ull << 47)));
  const auto imports = b.Args("IMPORT_DMABUF");
  REQUIRE(imports.size() == 1);
  CHECK(SimBoard::As<hke::kfd::ImportDmabufArgs>(imports[0]).va_addr == 0);  // the KFD gets no VA
  CHECK(hsaKmtMapMemoryToGPU(info.MemoryAddress, info.SizeInBytes, nullptr) ==
        HSAKMT_STATUS_INVALID_PARAMETER);
  HSA_REGISTER_MEM_FLAGS rf;
  rf.Value = 0;
  rf.ui32.requiresVAddr = 1;
  HsaGraphicsResourceInfo with_va;
  REQUIRE(hsaKmtRegisterGraphicsHandleToNodesExt(static_cast<HSAuint64>(fd), &with_va, 0, nullptr, rf) ==
          HSAKMT_STATUS_SUCCESS);
  CHECK(reinterpret_cast<uintptr_t>(with_va.MemoryAddress) < (1ull << 47));
  CHECK(hsaKmtDeregisterMemory(with_va.MemoryAddress) == HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtDeregisterMemory(info.MemoryAddress) == HSAKMT_STATUS_SUCCESS);
  HsaGraphicsResourceInfo bad;
  std::memset(&bad, 0x11, sizeof(bad));
  HsaGraphicsResourceInfo before = bad;
  CHECK(hsaKmtRegisterGraphicsHandleToNodes(static_cast<HSAuint64>(fd) + 1000, &bad, 0, nullptr) ==
        HSAKMT_STATUS_INVALID_PARAMETER);  // not a dma-buf: EINVAL from the kernel
  CHECK(std::memcmp(&bad, &before, sizeof(bad)) == 0);
  close(fd);
  CHECK(hsaKmtFreeMemory(p, 1 << 16) == HSAKMT_STATUS_SUCCESS);
}

TEST_CASE("an IPC share handle imports the same pages as REGISTERED_SHARED") {
  SimBoard b(nullptr, "datacenter-4gpu");
  OpenAcquire(b);
  void* p = HostVram(1 << 20);
  std::memset(p, 0x42, 1 << 20);
  HsaSharedMemoryHandle h;
  REQUIRE(hsaKmtShareMemory(p, 1 << 20, &h) == HSAKMT_STATUS_SUCCESS);
  void* q = nullptr;
  HSAuint64 size = 0;
  REQUIRE(hsaKmtRegisterSharedHandle(&h, &q, &size) == HSAKMT_STATUS_SUCCESS);
  CHECK(size == (1u << 20));
  REQUIRE(q != nullptr);
  CHECK(q != p);
  CHECK(static_cast<unsigned char*>(q)[12345] == 0x42);  // same storage
  static_cast<unsigned char*>(p)[7] = 0x99;
  CHECK(static_cast<unsigned char*>(q)[7] == 0x99);
  HsaPointerInfo pi;
  REQUIRE(hsaKmtQueryPointerInfo(q, &pi) == HSAKMT_STATUS_SUCCESS);
  CHECK(pi.Type == HSA_POINTER_REGISTERED_SHARED);
  CHECK(pi.Node == kGpu);
  CHECK(hsaKmtDeregisterMemory(q) == HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtFreeMemory(p, 1 << 20) == HSAKMT_STATUS_SUCCESS);
  HsaSharedMemoryHandle forged;
  std::memset(forged, 0, sizeof(forged));
  CHECK(hsaKmtRegisterSharedHandle(&forged, &q, &size) == HSAKMT_STATUS_INVALID_PARAMETER);
  int local = 0;
  CHECK(hsaKmtShareMemory(&local, 4, &h) == HSAKMT_STATUS_INVALID_PARAMETER);
  CHECK(hke_memory_check(hke_default_context()) == HKE_OK);
}
