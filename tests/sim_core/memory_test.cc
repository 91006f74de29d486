// kfdsim memory: apertures, ACQUIRE_VM, the BO table (handles, domains,
// accounting), MAP/UNMAP progress semantics, CPU mappings of BOs and of
// the kfd fd, dma-buf.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <utility>
#include <vector>

#include "tests/sim_core/sim_fixture.h"

namespace {

using namespace simtest;

TEST_CASE("sim GET_PROCESS_APERTURES_NEW counts with 0 nodes and fills at most the capacity") {
  Sim s(TwoGpuBoard());
  k::GetProcessAperturesNewArgs a{};
  REQUIRE(s.Io(k::kIocGetProcessAperturesNew, &a) == 0);
  CHECK(a.num_of_nodes == 2);

  k::ProcessDeviceApertures pa[3];
  std::memset(pa, 0xA5, sizeof(pa));
  a.kfd_process_device_apertures_ptr = reinterpret_cast<uintptr_t>(pa);
  a.num_of_nodes = 1;
  REQUIRE(s.Io(k::kIocGetProcessAperturesNew, &a) == 0);
  CHECK(a.num_of_nodes == 1);
  CHECK(pa[0].gpu_id == kGpuA);
  CHECK(pa[0].lds_base == (1ull << 48));
  CHECK(pa[0].lds_limit == ((1ull << 48) | 0xFFFFFFFFull));
  CHECK(pa[0].scratch_base == (2ull << 48));
  CHECK(pa[0].scratch_limit == ((2ull << 48) | 0xFFFFFFFFull));
  CHECK(pa[0].gpuvm_base == 0x1000000ull);
  CHECK(pa[0].gpuvm_limit == 0x7FFFFFFFFFFFull);
  CHECK(pa[1].gpu_id == 0xA5A5A5A5u);  // beyond the capacity: untouched

  a.num_of_nodes = 3;  // the thunk passes the sysfs node count
  REQUIRE(s.Io(k::kIocGetProcessAperturesNew, &a) == 0);
  CHECK(a.num_of_nodes == 2);
  CHECK(pa[1].gpu_id == kGpuB);

  a.kfd_process_device_apertures_ptr = 16;
  CHECK(s.Io(k::kIocGetProcessAperturesNew, &a) == EFAULT);
}

TEST_CASE("sim apertures of a gfx8 dGPU use the 1 << 61 hole and a 40-bit SVM range") {
  kfdsim::GpuDesc g = Gfx90a();
  g.gfx_target_version = 80003;
  Sim s(MakeBoard({g}));
  k::GetProcessAperturesArgs a{};
  REQUIRE(s.Io(k::kIocGetProcessApertures, &a) == 0);
  CHECK(a.num_of_nodes == 1);
  CHECK(a.process_apertures[0].lds_base == (1ull << 61));
  CHECK(a.process_apertures[0].scratch_base == (1ull << 61) + 0x100000000ull);
  CHECK(a.process_apertures[0].gpuvm_limit == (1ull << 40) - 1);
}

TEST_CASE("sim ACQUIRE_VM checks the fd and the gpu and binds one DRM file per GPU") {
  Sim s(TwoGpuBoard());
  k::AcquireVmArgs a{};
  a.drm_fd = 100000;
  a.gpu_id = kGpuA;
  CHECK(s.Io(k::kIocAcquireVm, &a) == EINVAL);  // not a descriptor
  a.drm_fd = static_cast<uint32_t>(s.render[128]);
  a.gpu_id = 7;
  CHECK(s.Io(k::kIocAcquireVm, &a) == EINVAL);  // unknown gpu
  a.gpu_id = kGpuA;
  a.drm_fd = static_cast<uint32_t>(s.kfd);
  CHECK(s.Io(k::kIocAcquireVm, &a) == EINVAL);  // not a render file
  a.drm_fd = static_cast<uint32_t>(s.render[129]);
  CHECK(s.Io(k::kIocAcquireVm, &a) == EINVAL);  // render file of another GPU
  CHECK_FALSE(s.sim->VmAcquired(kGpuA));
  CHECK(s.Acquire(kGpuA, 128) == 0);
  CHECK(s.sim->VmAcquired(kGpuA));
  a.drm_fd = static_cast<uint32_t>(fcntl(s.render[128], F_DUPFD_CLOEXEC, 0));
  CHECK(s.Io(k::kIocAcquireVm, &a) == 0);  // same file through a dup
  close(static_cast<int>(a.drm_fd));
  int other = -1;
  REQUIRE(s.sim->Open("/dev/dri/renderD128", O_RDWR, &other) == 0);
  a.drm_fd = static_cast<uint32_t>(other);
  CHECK(s.Io(k::kIocAcquireVm, &a) == EBUSY);  // a different file
  s.sim->Close(other);
}

TEST_CASE("sim ALLOC_MEMORY_OF_GPU validates size, gpu and VM binding") {
  Sim s(TwoGpuBoard());
  k::AllocMemoryOfGpuArgs a;
  CHECK(s.Alloc(kGpuA, 4096, kVramFlags, &a) == ENODEV);  // no ACQUIRE_VM yet
  s.AcquireAll();
  CHECK(s.Alloc(kGpuA, 0, kVramFlags, &a) == EINVAL);
  CHECK(s.Alloc(99, 4096, kVramFlags, &a) == EINVAL);
  CHECK(s.Alloc(kGpuA, 4096, k::kAllocMemWritable, &a) == EINVAL);  // no domain
  // PUBLIC VRAM needs a large BAR: GPU B has 16 of 32 MiB visible.
  CHECK(s.Alloc(kGpuB, 4096, kVramFlags | k::kAllocMemPublic, &a) == EINVAL);
  CHECK(s.Alloc(kGpuA, 4096, kVramFlags | k::kAllocMemPublic, &a) == 0);
  CHECK(s.sim->BoCount() == 1);
}

TEST_CASE("sim BO handles are gpu_id << 32 | lowest free index") {
  Sim s(TwoGpuBoard());
  s.AcquireAll();
  k::AllocMemoryOfGpuArgs a0, a1, a2, b0;
  REQUIRE(s.Alloc(kGpuA, 4096, kVramFlags, &a0) == 0);
  REQUIRE(s.Alloc(kGpuA, 4096, kGttFlags, &a1) == 0);
  REQUIRE(s.Alloc(kGpuB, 4096, kVramFlags, &b0) == 0);
  CHECK(a0.handle == (uint64_t{kGpuA} << 32 | 0));
  CHECK(a1.handle == (uint64_t{kGpuA} << 32 | 1));
  CHECK(b0.handle == (uint64_t{kGpuB} << 32 | 0));
  CHECK(a0.mmap_offset != a1.mmap_offset);
  CHECK(a0.mmap_offset % 4096 == 0);
  REQUIRE(s.Free(a0.handle) == 0);
  REQUIRE(s.Alloc(kGpuA, 4096, kVramFlags, &a2) == 0);
  CHECK(a2.handle == a0.handle);
  CHECK(s.Free(a0.handle + 50) == EINVAL);            // unknown index
  CHECK(s.Free(uint64_t{77} << 32) == EINVAL);        // unknown gpu
}

TEST_CASE("sim freed BO indexes are reused lowest first, across bitmap words") {
  Sim s(TwoGpuBoard());
  s.AcquireAll();
  std::vector<uint64_t> handles;
  for (uint32_t i = 0; i < 140; ++i) {
    k::AllocMemoryOfGpuArgs a;
    REQUIRE(s.Alloc(kGpuA, 4096, kGttFlags, &a) == 0);
    REQUIRE(a.handle == (uint64_t{kGpuA} << 32 | i));
    handles.push_back(a.handle);
  }
  for (uint32_t idx : {130u, 3u, 139u, 64u, 0u, 127u, 63u}) REQUIRE(s.Free(handles[idx]) == 0);
  CHECK(s.Free(handles[64]) == EINVAL);  // gone
  CHECK(s.sim->BoCount() == 133);
  for (uint32_t want : {0u, 3u, 63u, 64u, 127u, 130u, 139u, 140u}) {
    k::AllocMemoryOfGpuArgs a;
    REQUIRE(s.Alloc(kGpuA, 4096, kGttFlags, &a) == 0);
    CHECK(a.handle == (uint64_t{kGpuA} << 32 | want));
  }
  k::AllocMemoryOfGpuArgs b;
  REQUIRE(s.Alloc(kGpuB, 4096, kGttFlags, &b) == 0);
  CHECK(b.handle == (uint64_t{kGpuB} << 32 | 0));  // each GPU has its own indexes
}

TEST_CASE("sim render-node mmap finds the BO holding the offset, aliases included") {
  Sim s(TwoGpuBoard());
  s.AcquireAll();
  const int fd = s.render[128];
  // Three BOs back to back in the backing file, of 1, 3 and 2 pages.
  k::AllocMemoryOfGpuArgs b1, b3, b2;
  REQUIRE(s.Alloc(kGpuA, 4096, kGttFlags, &b1) == 0);
  REQUIRE(s.Alloc(kGpuA, 3 * 4096, kGttFlags, &b3) == 0);
  REQUIRE(s.Alloc(kGpuA, 2 * 4096, kGttFlags, &b2) == 0);
  REQUIRE(b3.mmap_offset == b1.mmap_offset + 4096);
  REQUIRE(b2.mmap_offset == b3.mmap_offset + 3 * 4096);
  std::vector<std::pair<void*, size_t>> maps;
  auto map = [&](uint64_t offset, size_t length) -> volatile uint32_t* {
    void* p = nullptr;
    const int r = s.sim->Mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, offset, &p);
    if (r != 0) return nullptr;
    maps.emplace_back(p, length);
    return static_cast<volatile uint32_t*>(p);
  };
  auto mappable = [&](uint64_t offset, size_t length) { return map(offset, length) != nullptr; };
  volatile uint32_t* whole3 = map(b3.mmap_offset, 3 * 4096);
  REQUIRE(static_cast<bool>(whole3));
  // An offset inside the BO maps the BO from there to at most its end.
  volatile uint32_t* mid3 = map(b3.mmap_offset + 2 * 4096, 4096);
  REQUIRE(static_cast<bool>(mid3));
  whole3[2 * 1024] = 0xB3;
  CHECK(mid3[0] == 0xB3);
  CHECK_FALSE(mappable(b3.mmap_offset + 2 * 4096, 2 * 4096));  // past its end
  CHECK_FALSE(mappable(b1.mmap_offset + 4096 - 1, 4096));       // into the next BO: past b1's end
  volatile uint32_t* last2 = map(b2.mmap_offset + 4096, 4096);
  REQUIRE(static_cast<bool>(last2));
  // A freed BO's range maps nothing; its neighbours still do.
  REQUIRE(s.Free(b3.handle) == 0);
  CHECK_FALSE(mappable(b3.mmap_offset, 4096));
  CHECK_FALSE(mappable(b3.mmap_offset + 4096, 4096));
  CHECK(mappable(b1.mmap_offset, 4096));
  CHECK(mappable(b2.mmap_offset, 2 * 4096));
  // A dma-buf import aliases b2's storage: it stays mappable while either
  // BO lives, not through the dma-buf alone.
  k::ExportDmabufArgs ex{};
  ex.handle = b2.handle;
  ex.flags = O_CLOEXEC;
  REQUIRE(s.Io(k::kIocExportDmabuf, &ex) == 0);
  k::ImportDmabufArgs im{};
  im.gpu_id = kGpuA;
  im.dmabuf_fd = ex.dmabuf_fd;
  REQUIRE(s.Io(k::kIocImportDmabuf, &im) == 0);
  REQUIRE(s.Free(b2.handle) == 0);
  volatile uint32_t* alias = map(b2.mmap_offset + 4096, 4096);
  REQUIRE(static_cast<bool>(alias));
  last2[5] = 0xA11A5;
  CHECK(alias[5] == 0xA11A5);
  REQUIRE(s.Free(im.handle) == 0);
  CHECK_FALSE(mappable(b2.mmap_offset, 4096));
  // A new BO in the freed range is found there.
  k::AllocMemoryOfGpuArgs again;
  REQUIRE(s.Alloc(kGpuA, 3 * 4096, kGttFlags, &again) == 0);
  CHECK(again.mmap_offset == b3.mmap_offset);
  CHECK(mappable(again.mmap_offset + 2 * 4096, 4096));
  close(static_cast<int>(ex.dmabuf_fd));
  for (const auto& [p, n] : maps) munmap(p, n);
}

TEST_CASE("sim accounts VRAM per GPU and fails with ENOMEM when it is exhausted") {
  Sim s(TwoGpuBoard());
  s.AcquireAll();
  k::AllocMemoryOfGpuArgs big, small, more;
  REQUIRE(s.Alloc(kGpuA, kVramA - 8192, kVramFlags, &big) == 0);
  REQUIRE(s.Alloc(kGpuA, 100, kVramFlags, &small) == 0);  // rounded to a page
  uint64_t vram = 0, gtt = 0;
  REQUIRE(s.sim->MemoryUsage(kGpuA, &vram, &gtt) == 0);
  CHECK(vram == kVramA - 4096);
  CHECK(gtt == 0);
  CHECK(s.Alloc(kGpuA, 8192, kVramFlags, &more) == ENOMEM);
  k::GetAvailableMemoryArgs av{};
  av.gpu_id = kGpuA;
  REQUIRE(s.Io(k::kIocAvailableMemory, &av) == 0);
  CHECK(av.available == 4096);
  CHECK(s.Alloc(kGpuB, 8192, kVramFlags, &more) == 0);  // the other GPU has its own
  REQUIRE(s.Free(big.handle) == 0);
  CHECK(s.Alloc(kGpuA, 8192, kVramFlags, &more) == 0);
  av.gpu_id = 3;
  CHECK(s.Io(k::kIocAvailableMemory, &av) == EINVAL);
}

TEST_CASE("sim DOORBELL and MMIO_REMAP BOs need their exact sizes and get kfd mmap offsets") {
  Sim s(TwoGpuBoard());
  s.AcquireAll();
  k::AllocMemoryOfGpuArgs a;
  const uint32_t db = k::kAllocMemDoorbell | k::kAllocMemWritable;
  CHECK(s.Alloc(kGpuA, 4096, db, &a) == EINVAL);  // gfx9: 2 pages of 8-byte doorbells
  REQUIRE(s.Alloc(kGpuA, 8192, db, &a) == 0);
  CHECK(a.mmap_offset == (3ull << 62 | uint64_t{kGpuA} << 46));
  const uint32_t mmio = k::kAllocMemMmioRemap | k::kAllocMemWritable;
  CHECK(s.Alloc(kGpuA, 8192, mmio, &a) == EINVAL);
  REQUIRE(s.Alloc(kGpuA, 4096, mmio, &a) == 0);
  CHECK(a.mmap_offset == (uint64_t{kGpuA} << 46));
}

TEST_CASE("sim USERPTR BOs keep the user address as mmap offset") {
  Sim s(TwoGpuBoard());
  s.AcquireAll();
  k::AllocMemoryOfGpuArgs a{};
  a.va_addr = 0x7f1234000000ull;
  a.size = 2 << 20;
  a.mmap_offset = 0x7f1234000000ull;
  a.gpu_id = kGpuA;
  a.flags = k::kAllocMemUserptr | k::kAllocMemWritable;
  REQUIRE(s.Io(k::kIocAllocMemoryOfGpu, &a) == 0);
  CHECK(a.mmap_offset == 0x7f1234000000ull);
  uint64_t vram = 1;
  REQUIRE(s.sim->MemoryUsage(kGpuA, &vram, nullptr) == 0);
  CHECK(vram == 0);
}

TEST_CASE("sim MAP_MEMORY_TO_GPU validates counts and reports progress in n_success") {
  Sim s(TwoGpuBoard());
  s.AcquireAll();
  k::AllocMemoryOfGpuArgs bo;
  REQUIRE(s.Alloc(kGpuA, 4096, kVramFlags, &bo) == 0);
  uint32_t ids[3] = {kGpuA, 0xBAD, kGpuB};
  k::MapMemoryToGpuArgs m{};
  m.handle = bo.handle;
  m.device_ids_array_ptr = reinterpret_cast<uintptr_t>(ids);
  m.n_devices = 0;
  CHECK(s.Io(k::kIocMapMemoryToGpu, &m) == EINVAL);
  m.n_devices = 1;
  m.n_success = 2;
  CHECK(s.Io(k::kIocMapMemoryToGpu, &m) == EINVAL);
  m.n_success = 0;
  m.handle = bo.handle + 9;
  CHECK(s.Io(k::kIocMapMemoryToGpu, &m) == ENOMEM);  // unknown handle (sic)
  m.handle = bo.handle;
  m.n_devices = 3;
  CHECK(s.Io(k::kIocMapMemoryToGpu, &m) == EINVAL);  // unknown peer at index 1
  CHECK(m.n_success == 1);                           // copied back despite the failure
  ids[1] = kGpuB;
  m.n_success = 1;  // resume where it stopped
  CHECK(s.Io(k::kIocMapMemoryToGpu, &m) == 0);
  CHECK(m.n_success == 3);
  m.device_ids_array_ptr = 8;
  m.n_success = 0;
  CHECK(s.Io(k::kIocMapMemoryToGpu, &m) == EFAULT);

  k::UnmapMemoryFromGpuArgs u{};
  u.handle = bo.handle;
  u.device_ids_array_ptr = reinterpret_cast<uintptr_t>(ids);
  u.n_devices = 2;
  REQUIRE(s.Io(k::kIocUnmapMemoryFromGpu, &u) == 0);
  CHECK(u.n_success == 2);
  u.n_success = 0;
  CHECK(s.Io(k::kIocUnmapMemoryFromGpu, &u) == EINVAL);  // no longer mapped there
  CHECK(u.n_success == 0);
}

TEST_CASE("sim CPU mappings of a BO through the render fd alias the same memory") {
  Sim s(TwoGpuBoard());
  s.AcquireAll();
  k::AllocMemoryOfGpuArgs bo;
  REQUIRE(s.Alloc(kGpuA, 3 * 4096, kVramFlags | k::kAllocMemPublic, &bo) == 0);
  const int fd = s.render[128];
  // Reserve an address range like the thunk, then map over it with MAP_FIXED.
  void* va = mmap(nullptr, 3 * 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  REQUIRE(va != MAP_FAILED);
  void* p1 = nullptr;
  REQUIRE(s.sim->Mmap(va, 3 * 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd,
                      bo.mmap_offset, &p1) == 0);
  CHECK(p1 == va);
  void* p2 = nullptr;
  REQUIRE(s.sim->Mmap(nullptr, 4096, PROT_READ, MAP_SHARED, fd, bo.mmap_offset + 4096, &p2) == 0);
  static_cast<volatile uint32_t*>(p1)[1024] = 0xC0FFEE;
  CHECK(static_cast<volatile uint32_t*>(p2)[0] == 0xC0FFEE);
  // A PROT_NONE private mapping (VRAM without host access) also works.
  void* p3 = nullptr;
  CHECK(s.sim->Mmap(nullptr, 4096, PROT_NONE, MAP_PRIVATE, fd, bo.mmap_offset, &p3) == 0);
  // Past the BO, or not at any BO: EINVAL.
  void* bad = nullptr;
  CHECK(s.sim->Mmap(nullptr, 4 * 4096, PROT_READ, MAP_SHARED, fd, bo.mmap_offset, &bad) == EINVAL);
  CHECK(s.sim->Mmap(nullptr, 4096, PROT_READ, MAP_SHARED, fd, 1ull << 40, &bad) == EINVAL);
  // Another DRM file of the same GPU may not map the VM's BOs.
  int other = -1;
  REQUIRE(s.sim->Open("/dev/dri/renderD128", O_RDWR, &other) == 0);
  CHECK(s.sim->Mmap(nullptr, 4096, PROT_READ, MAP_SHARED, other, bo.mmap_offset, &bad) == EACCES);
  s.sim->Close(other);
  CHECK(bad == nullptr);
  CHECK(s.sim->Munmap(p1, 3 * 4096) == 0);
  CHECK(s.sim->Munmap(p2, 4096) == 0);
  CHECK(s.sim->Munmap(p3, 4096) == 0);
}

TEST_CASE("sim freed BO memory reads as zero when the range is reused") {
  Sim s(TwoGpuBoard());
  s.AcquireAll();
  k::AllocMemoryOfGpuArgs bo, bo2;
  REQUIRE(s.Alloc(kGpuA, 4096, kGttFlags, &bo) == 0);
  void* p = nullptr;
  REQUIRE(s.sim->Mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, s.render[128],
                      bo.mmap_offset, &p) == 0);
  static_cast<volatile uint32_t*>(p)[0] = 0x1234;
  REQUIRE(s.Free(bo.handle) == 0);
  REQUIRE(s.Alloc(kGpuA, 4096, kGttFlags, &bo2) == 0);
  CHECK(bo2.mmap_offset == bo.mmap_offset);
  CHECK(static_cast<volatile uint32_t*>(p)[0] == 0);
  munmap(p, 4096);
}

TEST_CASE("sim kfd-fd mmaps of MMIO and doorbell pages check size and gpu") {
  Sim s(TwoGpuBoard());
  s.AcquireAll();
  const uint64_t mmio = uint64_t{kGpuA} << 46;
  const uint64_t doorbell = 3ull << 62 | uint64_t{kGpuA} << 46;
  void* p = nullptr;
  CHECK(s.sim->Mmap(nullptr, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, s.kfd, mmio, &p) == EINVAL);
  REQUIRE(s.sim->Mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, s.kfd, mmio, &p) == 0);
  static_cast<volatile uint32_t*>(p)[0] = 1;
  munmap(p, 4096);
  CHECK(s.sim->Mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, s.kfd, doorbell, &p) ==
        EINVAL);
  REQUIRE(s.sim->Mmap(nullptr, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, s.kfd, doorbell, &p) == 0);
  munmap(p, 8192);
  CHECK(s.sim->Mmap(nullptr, 4096, PROT_READ, MAP_SHARED, s.kfd, uint64_t{0x777} << 46, &p) ==
        ENODEV);
  CHECK(s.sim->Mmap(nullptr, 4096, PROT_READ, MAP_SHARED, s.kfd, 2ull << 62, &p) == EINVAL);  // no event page
}

TEST_CASE("sim exported dma-bufs can be described and imported on the same GPU") {
  Sim s(TwoGpuBoard());
  s.AcquireAll();
  k::AllocMemoryOfGpuArgs bo;
  REQUIRE(s.Alloc(kGpuA, 8192, kVramFlags, &bo) == 0);
  k::ExportDmabufArgs ex{};
  ex.handle = bo.handle;
  ex.flags = O_CLOEXEC;
  REQUIRE(s.Io(k::kIocExportDmabuf, &ex) == 0);
  k::GetDmabufInfoArgs info{};
  info.dmabuf_fd = ex.dmabuf_fd;
  REQUIRE(s.Io(k::kIocGetDmabufInfo, &info) == 0);
  CHECK(info.size == 8192);
  CHECK(info.gpu_id == kGpuA);
  CHECK(info.flags == kVramFlags);
  k::ImportDmabufArgs im{};
  im.gpu_id = kGpuA;
  im.dmabuf_fd = ex.dmabuf_fd;
  REQUIRE(s.Io(k::kIocImportDmabuf, &im) == 0);
  CHECK(im.handle == (uint64_t{kGpuA} << 32 | 1));
  im.gpu_id = kGpuB;
  CHECK(s.Io(k::kIocImportDmabuf, &im) == EINVAL);
  info.dmabuf_fd = static_cast<uint32_t>(s.kfd);
  CHECK(s.Io(k::kIocGetDmabufInfo, &info) == EINVAL);
  // Freeing the original keeps the import's memory (and the VRAM charge is gone).
  REQUIRE(s.Free(bo.handle) == 0);
  CHECK(s.sim->BoCount() == 1);
  close(static_cast<int>(ex.dmabuf_fd));
}

}  // namespace

TEST_CASE("sim DKMS IPC handles: export names the storage, import on the same GPU aliases it") {
  Sim s(TwoGpuBoard());
  s.AcquireAll();
  k::AllocMemoryOfGpuArgs a{};
  REQUIRE(s.Alloc(kGpuA, 8192, kVramFlags, &a) == 0);
  k::IpcExportHandleArgs e{};
  e.handle = a.handle;
  e.gpu_id = kGpuA;
  REQUIRE(s.Io(k::kIocIpcExportHandle, &e) == 0);
  CHECK((e.share_handle[0] | e.share_handle[1] | e.share_handle[2] | e.share_handle[3]) != 0);
  k::IpcImportHandleArgs i{};
  for (int w = 0; w < 4; ++w) i.share_handle[w] = e.share_handle[w];
  i.gpu_id = kGpuB;
  CHECK(s.Io(k::kIocIpcImportHandle, &i) == EINVAL);  // another GPU
  i.gpu_id = kGpuA;
  i.va_addr = 0x200000000ull;
  REQUIRE(s.Io(k::kIocIpcImportHandle, &i) == 0);
  CHECK((i.handle >> 32) == kGpuA);
  CHECK(i.handle != a.handle);
  CHECK(i.mmap_offset == a.mmap_offset);  // the same storage
  CHECK(i.flags == kVramFlags);
  i.share_handle[2] ^= 1;
  CHECK(s.Io(k::kIocIpcImportHandle, &i) == EINVAL);  // unknown words
  e.handle = a.handle + 77;
  CHECK(s.Io(k::kIocIpcExportHandle, &e) == EINVAL);  // unknown BO
}
