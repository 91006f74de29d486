// Sharing across simulated processes (platform/sim/core/share.cc): IPC
// share handles and KFD dma-bufs exported by one process and imported by
// another process of the same machine: a second simulator on the same
// board in this process, and a forked child.
#include <signal.h>
#include <sys/wait.h>

#include <cstdint>
#include <cstring>

#include "tests/sim_core/sim_fixture.h"

namespace {

using namespace simtest;

constexpr uint64_t kSize = 8192;
constexpr uint32_t kMinorA = 128;

// A board named for its test: its own machine (share registry).
kfdsim::Board Machine(const char* name) {
  kfdsim::Board b = TwoGpuBoard();
  b.desc.name = name;
  return b;
}

// Maps `size` bytes of a BO through the render node of GPU A.
uint32_t* MapA(Sim& s, uint64_t mmap_offset) {
  void* p = nullptr;
  const int r = s.sim->Mmap(nullptr, kSize, PROT_READ | PROT_WRITE, MAP_SHARED, s.render[kMinorA],
                            mmap_offset, &p);
  return r == 0 ? static_cast<uint32_t*>(p) : nullptr;
}

k::IpcExportHandleArgs Export(Sim& s, uint64_t handle) {
  k::IpcExportHandleArgs e{};
  e.handle = handle;
  e.gpu_id = kGpuA;
  REQUIRE(s.Io(k::kIocIpcExportHandle, &e) == 0);
  return e;
}

int Import(Sim& s, const k::IpcExportHandleArgs& e, k::IpcImportHandleArgs* i, uint32_t gpu = kGpuA) {
  *i = k::IpcImportHandleArgs{};
  for (int w = 0; w < 4; ++w) i->share_handle[w] = e.share_handle[w];
  i->gpu_id = gpu;
  i->va_addr = 0x300000000ull;
  return s.Io(k::kIocIpcImportHandle, i);
}

uint64_t VramUsed(Sim& s) {
  uint64_t vram = 0;
  REQUIRE(s.sim->MemoryUsage(kGpuA, &vram, nullptr) == 0);
  return vram;
}

TEST_CASE("sim IPC share across processes: the importer sees the exporter's bytes and keeps them after the exporter frees") {
  Sim a(Machine("share-ipc"));
  Sim b(Machine("share-ipc"));
  a.AcquireAll();
  b.AcquireAll();
  k::AllocMemoryOfGpuArgs bo{};
  REQUIRE(a.Alloc(kGpuA, kSize, kVramFlags, &bo) == 0);
  uint32_t* pa = MapA(a, bo.mmap_offset);
  REQUIRE(pa != nullptr);
  pa[0] = 0x11223344u;
  const k::IpcExportHandleArgs e = Export(a, bo.handle);
  const k::IpcExportHandleArgs again = Export(a, bo.handle);
  CHECK(std::memcmp(e.share_handle, again.share_handle, sizeof(e.share_handle)) == 0);  // one share per BO

  k::IpcImportHandleArgs i{};
  REQUIRE(Import(b, e, &i) == 0);
  CHECK((i.handle >> 32) == kGpuA);
  CHECK(i.flags == kVramFlags);
  CHECK(VramUsed(b) == 0);  // the import charges nothing: counted once, by the exporter
  CHECK(VramUsed(a) == kSize);
  uint32_t* pb = MapA(b, i.mmap_offset);
  REQUIRE(pb != nullptr);
  CHECK(pb[0] == 0x11223344u);
  pb[1] = 0x55667788u;
  CHECK(pa[1] == 0x55667788u);

  // The exporter frees: its charge goes, the importer keeps the memory.
  munmap(pa, kSize);
  REQUIRE(a.Free(bo.handle) == 0);
  CHECK(VramUsed(a) == 0);
  k::AllocMemoryOfGpuArgs next{};
  REQUIRE(a.Alloc(kGpuA, kSize, kVramFlags, &next, 0x7f0000100000ull) == 0);
  CHECK(next.mmap_offset != bo.mmap_offset);  // the held range is not reused
  uint32_t* pn = MapA(a, next.mmap_offset);
  REQUIRE(pn != nullptr);
  pn[0] = 0xdeadbeefu;
  CHECK(pb[0] == 0x11223344u);
  CHECK(pb[1] == 0x55667788u);
  munmap(pn, kSize);
  munmap(pb, kSize);
  REQUIRE(b.Free(i.handle) == 0);
  // Nobody holds the share now: it can no longer be imported.
  k::IpcImportHandleArgs gone{};
  CHECK(Import(b, e, &gone) == EINVAL);
}

TEST_CASE("sim IPC share across processes: unknown words, another GPU and another machine are EINVAL") {
  Sim a(Machine("share-refuse"));
  Sim b(Machine("share-refuse"));
  Sim other(Machine("share-refuse-other"));
  a.AcquireAll();
  b.AcquireAll();
  other.AcquireAll();
  k::AllocMemoryOfGpuArgs bo{};
  REQUIRE(a.Alloc(kGpuA, kSize, kVramFlags, &bo) == 0);
  const k::IpcExportHandleArgs e = Export(a, bo.handle);
  k::IpcImportHandleArgs i{};
  CHECK(Import(b, e, &i, kGpuB) == EINVAL);  // exported on GPU A
  CHECK(Import(other, e, &i) == EINVAL);     // another machine's registry
  k::IpcExportHandleArgs unknown = e;
  unknown.share_handle[2] ^= 0x40000000u;
  CHECK(Import(b, unknown, &i) == EINVAL);
  CHECK(b.sim->BoCount() == 0);  // nothing imported by the refusals
  REQUIRE(Import(b, e, &i) == 0);
}

TEST_CASE("sim dma-buf across processes: a descriptor of another process's export is described and imported") {
  Sim a(Machine("share-dmabuf"));
  Sim b(Machine("share-dmabuf"));
  a.AcquireAll();
  b.AcquireAll();
  k::AllocMemoryOfGpuArgs bo{};
  REQUIRE(a.Alloc(kGpuA, kSize, kGttFlags, &bo) == 0);
  k::ExportDmabufArgs ex{};
  ex.handle = bo.handle;
  ex.flags = O_CLOEXEC;
  REQUIRE(a.Io(k::kIocExportDmabuf, &ex) == 0);
  k::GetDmabufInfoArgs info{};
  info.dmabuf_fd = ex.dmabuf_fd;
  REQUIRE(b.Io(k::kIocGetDmabufInfo, &info) == 0);
  CHECK(info.size == kSize);
  CHECK(info.gpu_id == kGpuA);
  CHECK(info.flags == k::kAllocMemGtt);
  k::ImportDmabufArgs im{};
  im.gpu_id = kGpuA;
  im.dmabuf_fd = ex.dmabuf_fd;
  im.va_addr = 0x400000000ull;
  REQUIRE(b.Io(k::kIocImportDmabuf, &im) == 0);
  im.gpu_id = kGpuB;
  CHECK(b.Io(k::kIocImportDmabuf, &im) == EINVAL);  // another GPU
  // The exporter frees the BO and closes its descriptor: the import lives on.
  REQUIRE(a.Free(bo.handle) == 0);
  close(static_cast<int>(ex.dmabuf_fd));
  CHECK(a.sim->BoCount() == 0);
  REQUIRE(b.sim->BoCount() == 1);
  k::ExportDmabufArgs again{};
  again.handle = im.handle;
  REQUIRE(b.Io(k::kIocExportDmabuf, &again) == 0);  // re-export of an import
  k::GetDmabufInfoArgs info2{};
  info2.dmabuf_fd = again.dmabuf_fd;
  REQUIRE(a.Io(k::kIocGetDmabufInfo, &info2) == 0);  // visible to the first process again
  CHECK(info2.size == kSize);
  k::ImportDmabufArgs back{};
  back.gpu_id = kGpuA;
  back.dmabuf_fd = again.dmabuf_fd;
  REQUIRE(a.Io(k::kIocImportDmabuf, &back) == 0);
  close(static_cast<int>(again.dmabuf_fd));
}

TEST_CASE("sim dma-buf of a non-simulated memfd or a plain file is EINVAL") {
  Sim b(Machine("share-foreign"));
  b.AcquireAll();
  const int fd = memfd_create("kfdsim-dmabuf-4b46534900000000ffffffff00000001", MFD_CLOEXEC);
  REQUIRE(fd >= 0);
  k::GetDmabufInfoArgs info{};
  info.dmabuf_fd = static_cast<uint32_t>(fd);
  CHECK(b.Io(k::kIocGetDmabufInfo, &info) == EINVAL);  // named like a share, unknown to the registry
  k::ImportDmabufArgs im{};
  im.gpu_id = kGpuA;
  im.dmabuf_fd = static_cast<uint32_t>(fd);
  CHECK(b.Io(k::kIocImportDmabuf, &im) == EINVAL);
  CHECK(b.sim->BoCount() == 0);
  close(fd);
}

// The child's side of the fork test: a new process of the same board (the
// front ends reset the simulator's process state and the thunk re-opens
// KFD), importing the parent's share and dma-buf. Returns 0 or the step
// that failed; reports "imported" on `to_parent` and waits on `from_parent`
// while the parent frees its BO.
int ForkChild(Sim& s, const k::IpcExportHandleArgs& e, int dmabuf_fd, int to_parent, int from_parent) {
  s.sim->ResetProcess();
  int kfd = -1, render = -1;
  if (s.sim->Open("/dev/kfd", O_RDWR | O_CLOEXEC, &kfd) != 0) return 1;
  if (s.sim->Open("/dev/dri/renderD128", O_RDWR | O_CLOEXEC, &render) != 0) return 2;
  k::AcquireVmArgs acq{};
  acq.drm_fd = static_cast<uint32_t>(render);
  acq.gpu_id = kGpuA;
  if (s.sim->Ioctl(kfd, k::kIocAcquireVm, &acq) != 0) return 3;
  k::IpcImportHandleArgs i{};
  for (int w = 0; w < 4; ++w) i.share_handle[w] = e.share_handle[w];
  i.gpu_id = kGpuA;
  i.va_addr = 0x300000000ull;
  if (s.sim->Ioctl(kfd, k::kIocIpcImportHandle, &i) != 0) return 4;
  k::ImportDmabufArgs im{};
  im.gpu_id = kGpuA;
  im.dmabuf_fd = static_cast<uint32_t>(dmabuf_fd);
  im.va_addr = 0x400000000ull;
  if (s.sim->Ioctl(kfd, k::kIocImportDmabuf, &im) != 0) return 5;
  void* p = nullptr;
  if (s.sim->Mmap(nullptr, kSize, PROT_READ | PROT_WRITE, MAP_SHARED, render, i.mmap_offset, &p) != 0) {
    return 6;
  }
  auto* words = static_cast<volatile uint32_t*>(p);
  if (words[0] != 0xa5a5a5a5u) return 7;  // the parent's bytes
  words[1] = 0x5a5a5a5au;                 // seen by the parent
  const char ok = 'i';
  if (write(to_parent, &ok, 1) != 1) return 8;
  char freed = 0;
  if (read(from_parent, &freed, 1) != 1 || freed != 'f') return 9;
  if (words[0] != 0xa5a5a5a5u || words[2] != 0x12345678u) return 10;  // still there after the free
  return 0;
}

TEST_CASE("sim shares across fork: the child imports the parent's IPC share and dma-buf, and keeps them after the parent frees") {
  Sim s(Machine("share-fork"));
  s.AcquireAll();
  k::AllocMemoryOfGpuArgs bo{};
  REQUIRE(s.Alloc(kGpuA, kSize, kVramFlags, &bo) == 0);
  auto* words = MapA(s, bo.mmap_offset);
  REQUIRE(words != nullptr);
  words[0] = 0xa5a5a5a5u;
  const k::IpcExportHandleArgs e = Export(s, bo.handle);
  k::ExportDmabufArgs ex{};
  ex.handle = bo.handle;
  ex.flags = 0;  // inherited by the child (a dma-buf fd passed over fork)
  REQUIRE(s.Io(k::kIocExportDmabuf, &ex) == 0);
  int up[2], down[2];
  REQUIRE(pipe(up) == 0);
  REQUIRE(pipe(down) == 0);
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    close(up[0]);
    close(down[1]);
    _exit(ForkChild(s, e, static_cast<int>(ex.dmabuf_fd), up[1], down[0]));
  }
  close(up[1]);
  close(down[0]);
  char imported = 0;
  const bool got = read(up[0], &imported, 1) == 1 && imported == 'i';
  CHECK(got);
  if (got) {
    CHECK(words[1] == 0x5a5a5a5au);  // the child's bytes
    words[2] = 0x12345678u;
    munmap(words, kSize);
    CHECK(s.Free(bo.handle) == 0);
    close(static_cast<int>(ex.dmabuf_fd));
    CHECK(VramUsed(s) == 0);
  }
  // A child that failed early has closed its end: EPIPE, not SIGPIPE.
  const char freed = 'f';
  void (*const old_pipe)(int) = signal(SIGPIPE, SIG_IGN);
  const bool told = write(down[1], &freed, 1) == 1;
  signal(SIGPIPE, old_pipe);
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  CHECK(told);
  close(up[0]);
  close(down[1]);
}

}  // namespace
