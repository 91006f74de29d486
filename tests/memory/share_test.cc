// Sharing: dma-buf export + graphics import, IPC share handles.
#include <signal.h>
#include <sys/wait.h>
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

// The child's side: a new process of the same simulated machine (the
// in-process simulator resets its process state as the kernel would give
// the child a fresh one; the library's fork rule wants a reopen). Returns 0
// or the bits of the steps that failed.
static int ShareChild(SimBoard& b, const HsaSharedMemoryHandle& h, int dmabuf_fd, uint64_t size,
                      int to_parent, int from_parent) {
  kfdsim_reset_process(b.sim());
  int bad = 0;
  if (hsaKmtOpenKFD() != HSAKMT_STATUS_SUCCESS) return 1;
  HsaSystemProperties sys;
  if (hsaKmtAcquireSystemProperties(&sys) != HSAKMT_STATUS_SUCCESS) return 2;
  void* q = nullptr;
  HSAuint64 got = 0;
  if (hsaKmtRegisterSharedHandle(&h, &q, &got) != HSAKMT_STATUS_SUCCESS || q == nullptr) return 4;
  if (got != size) bad |= 8;
  if (hsaKmtMapMemoryToGPU(q, got, nullptr) != HSAKMT_STATUS_SUCCESS) bad |= 16;
  auto* bytes = static_cast<volatile unsigned char*>(q);
  if (bytes[12345] != 0x42) bad |= 32;  // the parent's bytes
  bytes[7] = 0x99;                      // seen by the parent
  HSAuint32 node = kGpu;
  HsaGraphicsResourceInfo info;
  std::memset(&info, 0, sizeof(info));
  if (hsaKmtRegisterGraphicsHandleToNodes(static_cast<HSAuint64>(dmabuf_fd), &info, 1, &node) !=
          HSAKMT_STATUS_SUCCESS ||
      uint64_t{info.SizeInBytes} != size || info.NodeId != kGpu) {
    bad |= 64;
  }
  const char imported = 'i';
  if (write(to_parent, &imported, 1) != 1) bad |= 128;
  char freed = 0;
  if (read(from_parent, &freed, 1) != 1 || freed != 'f') bad |= 256;
  // The parent freed its buffer: the import keeps the pages.
  if (bytes[12345] != 0x42 || bytes[8] != 0x77) bad |= 512;
  if (hsaKmtUnmapMemoryToGPU(q) != HSAKMT_STATUS_SUCCESS) bad |= 1024;
  if (hsaKmtDeregisterMemory(q) != HSAKMT_STATUS_SUCCESS) bad |= 2048;
  if (info.MemoryAddress != nullptr && hsaKmtDeregisterMemory(info.MemoryAddress) != HSAKMT_STATUS_SUCCESS) {
    bad |= 4096;
  }
  return bad;
}

TEST_CASE("an IPC share handle and a dma-buf of the parent import in a forked child, which keeps the pages after the parent frees") {
  SimBoard b(nullptr, "datacenter-4gpu");
  OpenAcquire(b);
  constexpr uint64_t kSize = 1 << 20;
  void* p = HostVram(kSize);
  std::memset(p, 0x42, kSize);
  HsaSharedMemoryHandle h;
  REQUIRE(hsaKmtShareMemory(p, kSize, &h) == HSAKMT_STATUS_SUCCESS);
  int fd = -1;
  HSAuint64 off = 0;
  REQUIRE(hsaKmtExportDMABufHandle(p, kSize, &fd, &off) == HSAKMT_STATUS_SUCCESS);
  // The engine thread may hold a simulator lock at the fork; stop it first
  // (a real kernel has no such thread in the process).
  REQUIRE(kfdsim_set_engine_mode(b.sim(), KFDSIM_ENGINES_MANUAL) == 0);
  int up[2], down[2];
  REQUIRE(pipe(up) == 0);
  REQUIRE(pipe(down) == 0);
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    close(up[0]);
    close(down[1]);
    _exit(ShareChild(b, h, fd, kSize, up[1], down[0]));
  }
  close(up[1]);
  close(down[0]);
  char imported = 0;
  const bool child_imported = read(up[0], &imported, 1) == 1 && imported == 'i';
  CHECK(child_imported);
  if (child_imported) {
    CHECK(static_cast<unsigned char*>(p)[7] == 0x99);  // the child's byte
    static_cast<unsigned char*>(p)[8] = 0x77;
  }
  CHECK(hsaKmtFreeMemory(p, kSize) == HSAKMT_STATUS_SUCCESS);
  close(fd);
  // A child that failed early has closed its end: EPIPE, not SIGPIPE.
  const char freed = 'f';
  void (*const old_pipe)(int) = signal(SIGPIPE, SIG_IGN);
  const bool told = write(down[1], &freed, 1) == 1;
  signal(SIGPIPE, old_pipe);
  int st = 0;
  REQUIRE(waitpid(pid, &st, 0) == pid);
  REQUIRE(WIFEXITED(st));
  CHECK(WEXITSTATUS(st) == 0);
  CHECK(told);
  close(up[0]);
  close(down[1]);
  CHECK(hke_memory_check(hke_default_context()) == HKE_OK);
}
