// kfdsim render-node GEM (core/gem.cc): BOs created, described, mapped,
// exported, imported (by the render node and by the KFD) and freed the way
// libdrm's amdgpu_bo_* calls drive them, with the kernel's errno values.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <libdrm/amdgpu_drm.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>

#include "platform/sim/core/gem_abi.h"
#include "platform/sim/core/util.h"
#include "tests/sim_core/sim_fixture.h"

namespace {

using namespace simtest;
namespace gem = kfdsim::gem;

// The own layouts and request numbers equal libdrm's (the UAPI).
static_assert(gem::kIocGemClose == DRM_IOCTL_GEM_CLOSE);
static_assert(gem::kIocPrimeHandleToFd == DRM_IOCTL_PRIME_HANDLE_TO_FD);
static_assert(gem::kIocPrimeFdToHandle == DRM_IOCTL_PRIME_FD_TO_HANDLE);
static_assert(gem::kIocGemCreate == DRM_IOCTL_AMDGPU_GEM_CREATE);
static_assert(gem::kIocGemMmap == DRM_IOCTL_AMDGPU_GEM_MMAP);
static_assert(gem::kIocGemMetadata == DRM_IOCTL_AMDGPU_GEM_METADATA);
static_assert(gem::kIocGemWaitIdle == DRM_IOCTL_AMDGPU_GEM_WAIT_IDLE);
static_assert(gem::kIocGemOp == DRM_IOCTL_AMDGPU_GEM_OP);
static_assert(gem::kIocGemUserptr == DRM_IOCTL_AMDGPU_GEM_USERPTR);
static_assert(sizeof(gem::GemMetadata) == sizeof(drm_amdgpu_gem_metadata));
static_assert(offsetof(gem::GemMetadata, data.data_size_bytes) ==
              offsetof(drm_amdgpu_gem_metadata, data.data_size_bytes));
static_assert(sizeof(gem::GemMetadata::data.data) == sizeof(drm_amdgpu_gem_metadata::data.data));
static_assert(offsetof(gem::GemUserptr, handle) == offsetof(drm_amdgpu_gem_userptr, handle));
static_assert(offsetof(gem::PrimeHandle, fd) == offsetof(drm_prime_handle, fd));
static_assert(gem::kDomainVram == AMDGPU_GEM_DOMAIN_VRAM && gem::kDomainGtt == AMDGPU_GEM_DOMAIN_GTT &&
              gem::kDomainCpu == AMDGPU_GEM_DOMAIN_CPU && gem::kDomainMask == AMDGPU_GEM_DOMAIN_MASK);
static_assert(gem::kCreateCpuAccessRequired == AMDGPU_GEM_CREATE_CPU_ACCESS_REQUIRED &&
              gem::kCreateNoCpuAccess == AMDGPU_GEM_CREATE_NO_CPU_ACCESS &&
              gem::kCreateVmAlwaysValid == AMDGPU_GEM_CREATE_VM_ALWAYS_VALID &&
              gem::kCreateEncrypted == AMDGPU_GEM_CREATE_ENCRYPTED);
static_assert(gem::kUserptrReadonly == AMDGPU_GEM_USERPTR_READONLY &&
              gem::kUserptrValidate == AMDGPU_GEM_USERPTR_VALIDATE &&
              gem::kUserptrRegister == AMDGPU_GEM_USERPTR_REGISTER);
static_assert(gem::kMetadataOpSet == AMDGPU_GEM_METADATA_OP_SET_METADATA &&
              gem::kMetadataOpGet == AMDGPU_GEM_METADATA_OP_GET_METADATA);
static_assert(gem::kPrimeCloexec == DRM_CLOEXEC && gem::kPrimeRdwr == DRM_RDWR);
static_assert(gem::kFamilyCz == AMDGPU_FAMILY_CZ);

constexpr uint32_t kMinorA = 128;

int Create(Sim& s, uint64_t size, uint64_t domains, uint64_t flags, uint32_t* handle,
           uint32_t minor = kMinorA) {
  gem::GemCreate c{};
  c.in.bo_size = size;
  c.in.alignment = 4096;
  c.in.domains = domains;
  c.in.domain_flags = flags;
  const int r = s.sim->Ioctl(s.render[minor], gem::kIocGemCreate, &c);
  if (r == 0) *handle = c.out.handle;
  return r;
}

int Close(Sim& s, uint32_t handle, int fd) {
  gem::GemClose c{handle, 0};
  return s.sim->Ioctl(fd, gem::kIocGemClose, &c);
}

int Export(Sim& s, uint32_t handle, int* fd, uint32_t flags = gem::kPrimeCloexec | gem::kPrimeRdwr) {
  gem::PrimeHandle p{handle, flags, -1};
  const int r = s.sim->Ioctl(s.render[kMinorA], gem::kIocPrimeHandleToFd, &p);
  if (r == 0) *fd = p.fd;
  return r;
}

int Import(Sim& s, int render_fd, int dmabuf, uint32_t* handle) {
  gem::PrimeHandle p{0, 0, dmabuf};
  const int r = s.sim->Ioctl(render_fd, gem::kIocPrimeFdToHandle, &p);
  if (r == 0) *handle = p.handle;
  return r;
}

void* CpuMap(Sim& s, int render_fd, uint32_t handle, size_t size, int* error = nullptr) {
  gem::GemMmap m{};
  m.in.handle = handle;
  int r = s.sim->Ioctl(render_fd, gem::kIocGemMmap, &m);
  void* p = nullptr;
  if (r == 0) {
    r = s.sim->Mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, render_fd, m.out.addr_ptr, &p);
  }
  if (error != nullptr) *error = r;
  return r == 0 ? p : nullptr;
}

int SetMetadata(Sim& s, uint32_t handle, const void* data, uint32_t size, uint64_t flags,
                uint64_t tiling = 0) {
  gem::GemMetadata m{};
  m.handle = handle;
  m.op = gem::kMetadataOpSet;
  m.data.flags = flags;
  m.data.tiling_info = tiling;
  m.data.data_size_bytes = size;
  std::memcpy(m.data.data, data, std::min<size_t>(size, sizeof(m.data.data)));
  return s.sim->Ioctl(s.render[kMinorA], gem::kIocGemMetadata, &m);
}

uint64_t VramUsed(Sim& s, uint32_t gpu_id = kGpuA) {
  uint64_t vram = 0;
  REQUIRE(s.sim->MemoryUsage(gpu_id, &vram, nullptr) == 0);
  return vram;
}

TEST_CASE("sim GEM_CREATE places VRAM, accounts it until the last reference, and GEM_OP reports the create info") {
  Sim s(TwoGpuBoard());
  uint32_t h1 = 0, h2 = 0;
  REQUIRE(Create(s, 5000, gem::kDomainVram, gem::kCreateCpuAccessRequired, &h1) == 0);
  REQUIRE(Create(s, 4096, gem::kDomainGtt, 0, &h2) == 0);
  CHECK(h1 == 1);  // the DRM file's IDR starts at 1
  CHECK(h2 == 2);
  CHECK(VramUsed(s) == 8192);
  uint64_t gtt = 0;
  REQUIRE(s.sim->MemoryUsage(kGpuA, nullptr, &gtt) == 0);
  CHECK(gtt == 4096);
  gem::GemCreateIn info{};
  gem::GemOp op{h1, gem::kOpGetGemCreateInfo, reinterpret_cast<uintptr_t>(&info)};
  REQUIRE(s.sim->Ioctl(s.render[kMinorA], gem::kIocGemOp, &op) == 0);
  CHECK(info.bo_size == 8192);
  CHECK(info.alignment == 4096);
  CHECK(info.domains == gem::kDomainVram);
  CHECK(info.domain_flags == gem::kCreateCpuAccessRequired);
  // AVAILABLE_MEMORY sees it.
  k::GetAvailableMemoryArgs avail{};
  avail.gpu_id = kGpuA;
  REQUIRE(s.Io(k::kIocAvailableMemory, &avail) == 0);
  CHECK(avail.available == kVramA - 8192);
  // GEM_CLOSE frees; the handle is gone.
  REQUIRE(Close(s, h1, s.render[kMinorA]) == 0);
  CHECK(VramUsed(s) == 0);
  CHECK(Close(s, h1, s.render[kMinorA]) == EINVAL);
  CHECK(s.sim->Ioctl(s.render[kMinorA], gem::kIocGemOp, &op) == ENOENT);
  // The lowest free handle is reused.
  REQUIRE(Create(s, 4096, gem::kDomainVram, 0, &h1) == 0);
  CHECK(h1 == 1);
}

TEST_CASE("sim GEM_CREATE retries VRAM-only in GTT when VRAM is full, and refuses what the kernel refuses") {
  Sim s(TwoGpuBoard());
  uint32_t h = 0;
  REQUIRE(Create(s, kVramA, gem::kDomainVram, 0, &h) == 0);
  uint32_t h2 = 0;
  REQUIRE(Create(s, 1 << 20, gem::kDomainVram, 0, &h2) == 0);  // into GTT
  uint64_t gtt = 0;
  REQUIRE(s.sim->MemoryUsage(kGpuA, nullptr, &gtt) == 0);
  CHECK(gtt == (1u << 20));
  gem::GemCreateIn info{};
  gem::GemOp op{h2, gem::kOpGetGemCreateInfo, reinterpret_cast<uintptr_t>(&info)};
  REQUIRE(s.sim->Ioctl(s.render[kMinorA], gem::kIocGemOp, &op) == 0);
  CHECK(info.domains == (gem::kDomainVram | gem::kDomainGtt));
  CHECK(Create(s, 4096, gem::kDomainVram | gem::kDomainCpu, 0, &h2) == 0);  // system pages
  uint32_t none = 77;
  CHECK(Create(s, 4096, gem::kDomainDoorbell, 0, &none) == EINVAL);
  CHECK(Create(s, 4096, gem::kDomainGtt, 1u << 5, &none) == EINVAL);  // VRAM_CONTIGUOUS: not from user space
  CHECK(Create(s, 4096, gem::kDomainGtt, gem::kCreateEncrypted, &none) == EINVAL);  // no TMZ
  CHECK(Create(s, 4096, 0x100, 0, &none) == EINVAL);
  CHECK(Create(s, 1ull << 40, gem::kDomainGtt, 0, &none) == ENOMEM);
  CHECK(none == 77);
}

TEST_CASE("sim GEM_MMAP offsets map the BO through render files holding a handle only") {
  Sim s(TwoGpuBoard());
  uint32_t h = 0;
  REQUIRE(Create(s, 8192, gem::kDomainVram, gem::kCreateCpuAccessRequired, &h) == 0);
  auto* p = static_cast<uint32_t*>(CpuMap(s, s.render[kMinorA], h, 8192));
  REQUIRE(p != nullptr);
  p[1000] = 0xC0FFEE;
  // A second mapping aliases the same pages.
  auto* q = static_cast<uint32_t*>(CpuMap(s, s.render[kMinorA], h, 8192));
  REQUIRE(q != nullptr);
  CHECK(q[1000] == 0xC0FFEE);
  // Another DRM file of the same GPU has no handle: EACCES.
  int other = -1;
  REQUIRE(s.sim->Open("/dev/dri/renderD128", O_RDWR | O_CLOEXEC, &other) == 0);
  gem::GemMmap m{};
  m.in.handle = h;
  REQUIRE(s.sim->Ioctl(s.render[kMinorA], gem::kIocGemMmap, &m) == 0);
  void* r = nullptr;
  CHECK(s.sim->Mmap(nullptr, 4096, PROT_READ, MAP_SHARED, other, m.out.addr_ptr, &r) == EACCES);
  CHECK(s.sim->Ioctl(other, gem::kIocGemMmap, &m) == ENOENT);
  // NO_CPU_ACCESS and userptr objects cannot be mapped.
  uint32_t hidden = 0;
  REQUIRE(Create(s, 4096, gem::kDomainVram, gem::kCreateNoCpuAccess, &hidden) == 0);
  int error = 0;
  CHECK(CpuMap(s, s.render[kMinorA], hidden, 4096, &error) == nullptr);
  CHECK(error == EPERM);
  munmap(p, 8192);
  munmap(q, 8192);
  s.sim->Close(other);
}

TEST_CASE("sim GEM_METADATA keeps up to 256 bytes, its flags and the tiling info") {
  Sim s(TwoGpuBoard());
  uint32_t h = 0;
  REQUIRE(Create(s, 4096, gem::kDomainVram, 0, &h) == 0);
  uint8_t blob[256];
  for (size_t i = 0; i < sizeof(blob); ++i) blob[i] = static_cast<uint8_t>(i * 7 + 1);
  REQUIRE(SetMetadata(s, h, blob, 200, 0x55, 0x1234) == 0);
  gem::GemMetadata g{};
  g.handle = h;
  g.op = gem::kMetadataOpGet;
  REQUIRE(s.sim->Ioctl(s.render[kMinorA], gem::kIocGemMetadata, &g) == 0);
  CHECK(g.data.data_size_bytes == 200);
  CHECK(g.data.flags == 0x55);
  CHECK(g.data.tiling_info == 0x1234);
  CHECK(std::memcmp(g.data.data, blob, 200) == 0);
  CHECK(SetMetadata(s, h, blob, 257, 0) == EINVAL);
  // Size 0 clears the bytes and keeps the flags.
  REQUIRE(SetMetadata(s, h, blob, 0, 0x99, 0) == 0);
  REQUIRE(s.sim->Ioctl(s.render[kMinorA], gem::kIocGemMetadata, &g) == 0);
  CHECK(g.data.data_size_bytes == 0);
  CHECK(g.data.flags == 0x55);
  CHECK(g.data.tiling_info == 0);
  g.handle = 99;
  CHECK(s.sim->Ioctl(s.render[kMinorA], gem::kIocGemMetadata, &g) == ENOENT);
  // A tile split above 6 is refused on families up to CZ only.
  kfdsim::GpuDesc cz = Gfx90a();
  cz.drm_family = gem::kFamilyCz;
  Sim old(MakeBoard({cz}));
  REQUIRE(Create(old, 4096, gem::kDomainVram, 0, &h) == 0);
  gem::GemMetadata m{};
  m.handle = h;
  m.op = gem::kMetadataOpSet;
  m.data.tiling_info = uint64_t{7} << gem::kTilingTileSplitShift;
  CHECK(old.sim->Ioctl(old.render[kMinorA], gem::kIocGemMetadata, &m) == EINVAL);
  CHECK(SetMetadata(s, 1, blob, 0, 0, uint64_t{7} << gem::kTilingTileSplitShift) == 0);
}

TEST_CASE("sim PRIME export and import: one dma-buf per BO, the same handle per file, aliasing pages") {
  Sim s(TwoGpuBoard());
  uint32_t h = 0;
  REQUIRE(Create(s, 4096, gem::kDomainGtt, 0, &h) == 0);
  int fd1 = -1, fd2 = -1;
  REQUIRE(Export(s, h, &fd1) == 0);
  REQUIRE(Export(s, h, &fd2, 0) == 0);
  struct stat a{}, b{};
  REQUIRE(fstat(fd1, &a) == 0);
  REQUIRE(fstat(fd2, &b) == 0);
  CHECK(a.st_ino == b.st_ino);  // the same dma-buf
  CHECK((fcntl(fd1, F_GETFD) & FD_CLOEXEC) != 0);
  CHECK((fcntl(fd2, F_GETFD) & FD_CLOEXEC) == 0);
  CHECK(lseek(fd1, 0, SEEK_END) == 4096);  // libdrm's import reads the size this way
  uint32_t same = 0;
  REQUIRE(Import(s, s.render[kMinorA], fd2, &same) == 0);
  CHECK(same == h);
  int other = -1;
  REQUIRE(s.sim->Open("/dev/dri/renderD128", O_RDWR | O_CLOEXEC, &other) == 0);
  uint32_t there = 0;
  REQUIRE(Import(s, other, fd1, &there) == 0);
  CHECK(there == 1);
  auto* p = static_cast<uint32_t*>(CpuMap(s, s.render[kMinorA], h, 4096));
  auto* q = static_cast<uint32_t*>(CpuMap(s, other, there, 4096));
  REQUIRE(p != nullptr);
  REQUIRE(q != nullptr);
  p[7] = 0xABCD;
  CHECK(q[7] == 0xABCD);
  // Refusals.
  int none = -1;
  CHECK(Export(s, h, &none, 0x1) == EINVAL);
  CHECK(Export(s, 42, &none) == ENOENT);
  uint32_t nh = 0;
  CHECK(Import(s, s.render[kMinorA], 1000000, &nh) == EBADF);
  CHECK(Import(s, s.render[kMinorA], s.kfd, &nh) == EINVAL);   // not a dma-buf
  CHECK(Import(s, s.render[129], fd1, &nh) == EINVAL);         // another GPU: not modelled
  munmap(p, 4096);
  munmap(q, 4096);
  s.sim->Close(other);
  close(fd1);
  close(fd2);
}

TEST_CASE("sim the KFD imports a render-node BO's dma-buf: GET_DMABUF_INFO with metadata, IMPORT over the same pages") {
  Sim s(TwoGpuBoard());
  s.AcquireAll();
  uint32_t h = 0;
  REQUIRE(Create(s, 12288, gem::kDomainVram, gem::kCreateCpuAccessRequired, &h) == 0);
  const char meta[] = "image-descriptor-v1";
  REQUIRE(SetMetadata(s, h, meta, sizeof(meta), 3) == 0);
  auto* p = static_cast<uint32_t*>(CpuMap(s, s.render[kMinorA], h, 12288));
  REQUIRE(p != nullptr);
  p[2048] = 0x5151;
  int fd = -1;
  REQUIRE(Export(s, h, &fd) == 0);
  // Upstream thunks ask with a 64-byte buffer first.
  uint8_t small[8] = {};
  k::GetDmabufInfoArgs info{};
  info.dmabuf_fd = static_cast<uint32_t>(fd);
  info.metadata_ptr = reinterpret_cast<uintptr_t>(small);
  info.metadata_size = sizeof(small);
  info.gpu_id = 0xdead;
  CHECK(s.Io(k::kIocGetDmabufInfo, &info) == EINVAL);
  CHECK(info.metadata_size == sizeof(meta));  // the size needed
  CHECK(info.gpu_id == 0xdead);               // left as passed
  char buf[64] = {};
  info.metadata_ptr = reinterpret_cast<uintptr_t>(buf);
  info.metadata_size = sizeof(buf);
  REQUIRE(s.Io(k::kIocGetDmabufInfo, &info) == 0);
  CHECK(info.size == 12288);
  CHECK(info.gpu_id == kGpuA);
  CHECK(info.flags == (k::kAllocMemVram | k::kAllocMemPublic));
  CHECK(info.metadata_size == sizeof(meta));
  CHECK(std::string(buf) == meta);
  // Without a buffer the size is left as passed.
  info.metadata_ptr = 0;
  info.metadata_size = 5;
  REQUIRE(s.Io(k::kIocGetDmabufInfo, &info) == 0);
  CHECK(info.metadata_size == 5);
  k::ImportDmabufArgs im{};
  im.gpu_id = kGpuA;
  im.dmabuf_fd = static_cast<uint32_t>(fd);
  im.va_addr = 0x7f1000000000ull;
  REQUIRE(s.Io(k::kIocImportDmabuf, &im) == 0);
  uint32_t ids[1] = {kGpuA};
  k::MapMemoryToGpuArgs m{};
  m.handle = im.handle;
  m.device_ids_array_ptr = reinterpret_cast<uintptr_t>(ids);
  m.n_devices = 1;
  REQUIRE(s.Io(k::kIocMapMemoryToGpu, &m) == 0);
  // (tests/sim_engines/interop_test.cc: the GPU reads those pages.)
  // Everything freed: the memory goes once the last reference does.
  munmap(p, 12288);
  REQUIRE(Close(s, h, s.render[kMinorA]) == 0);
  close(fd);
  CHECK(VramUsed(s) == 12288);  // the KFD import keeps it
  k::UnmapMemoryFromGpuArgs um{};
  um.handle = im.handle;
  um.device_ids_array_ptr = reinterpret_cast<uintptr_t>(ids);
  um.n_devices = 1;
  REQUIRE(s.Io(k::kIocUnmapMemoryFromGpu, &um) == 0);
  REQUIRE(s.Free(im.handle) == 0);
  CHECK(VramUsed(s) == 0);
  CHECK(s.sim->GemObjectCount() == 0);
}

TEST_CASE("sim an exported BO lives while its dma-buf descriptor does") {
  Sim s(TwoGpuBoard());
  uint32_t h = 0;
  REQUIRE(Create(s, 4096, gem::kDomainVram, 0, &h) == 0);
  int fd = -1;
  REQUIRE(Export(s, h, &fd) == 0);
  REQUIRE(Close(s, h, s.render[kMinorA]) == 0);
  CHECK(s.sim->GemObjectCount() == 1);
  CHECK(VramUsed(s) == 4096);
  // Imported again from the still-open dma-buf: the same object.
  uint32_t back = 0;
  REQUIRE(Import(s, s.render[kMinorA], fd, &back) == 0);
  close(fd);
  CHECK(s.sim->GemObjectCount() == 1);
  REQUIRE(Close(s, back, s.render[kMinorA]) == 0);
  CHECK(s.sim->GemObjectCount() == 0);
  CHECK(VramUsed(s) == 0);
}

TEST_CASE("sim closing a render file releases its GEM handles") {
  Sim s(TwoGpuBoard());
  int fd = -1;
  REQUIRE(s.sim->Open("/dev/dri/renderD128", O_RDWR | O_CLOEXEC, &fd) == 0);
  gem::GemCreate c{};
  c.in.bo_size = 4096;
  c.in.domains = gem::kDomainVram;
  REQUIRE(s.sim->Ioctl(fd, gem::kIocGemCreate, &c) == 0);
  CHECK(VramUsed(s) == 4096);
  const int dup_fd = dup(fd);
  gem::GemWaitIdle w{};
  w.in.handle = c.out.handle;
  REQUIRE(s.sim->Ioctl(dup_fd, gem::kIocGemWaitIdle, &w) == 0);  // the dup reaches the same handles
  REQUIRE(s.sim->Close(fd) == 0);
  CHECK(VramUsed(s) == 4096);  // the file is still open through the dup
  REQUIRE(s.sim->Close(dup_fd) == 0);
  CHECK(VramUsed(s) == 0);
  CHECK(s.sim->GemObjectCount() == 0);
}

TEST_CASE("sim GEM_USERPTR checks alignment, flags and the pages; userptr BOs neither map nor export") {
  Sim s(TwoGpuBoard());
  void* host = mmap(nullptr, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(host != MAP_FAILED);
  gem::GemUserptr u{};
  u.addr = reinterpret_cast<uintptr_t>(host);
  u.size = 8192;
  u.flags = gem::kUserptrRegister | gem::kUserptrValidate | gem::kUserptrAnononly;
  REQUIRE(s.sim->Ioctl(s.render[kMinorA], gem::kIocGemUserptr, &u) == 0);
  const uint32_t h = u.handle;
  CHECK(h == 1);
  int error = 0;
  CHECK(CpuMap(s, s.render[kMinorA], h, 8192, &error) == nullptr);
  CHECK(error == EPERM);
  int fd = -1;
  CHECK(Export(s, h, &fd) == EPERM);
  gem::GemOp op{h, gem::kOpSetPlacement, gem::kDomainVram};
  CHECK(s.sim->Ioctl(s.render[kMinorA], gem::kIocGemOp, &op) == EPERM);
  u.flags = 0;  // writable without an MMU notifier
  CHECK(s.sim->Ioctl(s.render[kMinorA], gem::kIocGemUserptr, &u) == EACCES);
  u.flags = gem::kUserptrReadonly | 0x100;
  CHECK(s.sim->Ioctl(s.render[kMinorA], gem::kIocGemUserptr, &u) == EINVAL);
  u.flags = gem::kUserptrReadonly;
  u.addr += 16;
  CHECK(s.sim->Ioctl(s.render[kMinorA], gem::kIocGemUserptr, &u) == EINVAL);
  munmap(host, 8192);
  // Pages that are not mapped: EFAULT. The freed addresses may be mapped
  // again by another thread (a sanitizer's runtime, say) before or during
  // the call, so only a call that the hole outlived counts; a new hole is
  // made otherwise.
  u.flags = gem::kUserptrReadonly | gem::kUserptrValidate;
  void* hole = host;
  int counted = 0;
  for (int attempt = 0; attempt < 16 && counted == 0; ++attempt) {
    u.addr = reinterpret_cast<uintptr_t>(hole);
    const int r = s.sim->Ioctl(s.render[kMinorA], gem::kIocGemUserptr, &u);
    if (!kfdsim::HostRangeMapped(u.addr, u.size)) {
      CHECK(r == EFAULT);
      ++counted;
      break;
    }
    hole = mmap(nullptr, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    REQUIRE(hole != MAP_FAILED);
    REQUIRE(munmap(hole, 8192) == 0);
  }
  CHECK(counted == 1);
  CHECK(VramUsed(s) == 0);
}

TEST_CASE("sim GEM_CLOSE, GEM_OP and GEM_WAIT_IDLE on unknown handles, and the trace names") {
  Sim s(TwoGpuBoard());
  std::string trace;
  s.sim->SetTraceSink([](void* u, const char* line, size_t n) { static_cast<std::string*>(u)->append(line, n); },
                      &trace);
  gem::GemWaitIdle w{};
  w.in.handle = 3;
  CHECK(s.sim->Ioctl(s.render[kMinorA], gem::kIocGemWaitIdle, &w) == ENOENT);
  uint32_t h = 0;
  REQUIRE(Create(s, 4096, gem::kDomainGtt, 0, &h) == 0);
  w.in.handle = h;
  w.out.status = 1;
  REQUIRE(s.sim->Ioctl(s.render[kMinorA], gem::kIocGemWaitIdle, &w) == 0);
  CHECK(w.out.status == 0);
  gem::GemOp op{h, 9, 0};
  CHECK(s.sim->Ioctl(s.render[kMinorA], gem::kIocGemOp, &op) == EINVAL);
  CHECK(trace.find("name=DRM_IOCTL_AMDGPU_GEM_CREATE") != std::string::npos);
  CHECK(trace.find("name=DRM_IOCTL_AMDGPU_GEM_WAIT_IDLE") != std::string::npos);
  CHECK(trace.find(" unknown") == std::string::npos);
  CHECK(s.sim->unknown_requests() == 0);
  s.sim->SetTraceSink(nullptr, nullptr);
}

TEST_CASE("sim FD_TO_HANDLE of a KFD BO's dma-buf gives a GEM handle on the same pages") {
  Sim s(TwoGpuBoard());
  s.AcquireAll();
  k::AllocMemoryOfGpuArgs bo;
  REQUIRE(s.Alloc(kGpuA, 8192, kVramFlags | k::kAllocMemPublic, &bo) == 0);
  k::ExportDmabufArgs ex{};
  ex.handle = bo.handle;
  ex.flags = O_CLOEXEC;
  REQUIRE(s.Io(k::kIocExportDmabuf, &ex) == 0);
  uint32_t h = 0;
  REQUIRE(Import(s, s.render[kMinorA], static_cast<int>(ex.dmabuf_fd), &h) == 0);
  gem::GemCreateIn info{};
  gem::GemOp op{h, gem::kOpGetGemCreateInfo, reinterpret_cast<uintptr_t>(&info)};
  REQUIRE(s.sim->Ioctl(s.render[kMinorA], gem::kIocGemOp, &op) == 0);
  CHECK(info.bo_size == 8192);
  CHECK(info.domains == gem::kDomainVram);
  CHECK(info.domain_flags == gem::kCreateCpuAccessRequired);
  auto* p = static_cast<uint32_t*>(CpuMap(s, s.render[kMinorA], h, 8192));
  REQUIRE(p != nullptr);
  void* kfd_view = nullptr;
  REQUIRE(s.sim->Mmap(nullptr, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, s.render[kMinorA],
                      bo.mmap_offset, &kfd_view) == 0);
  p[3] = 0x77;
  CHECK(static_cast<uint32_t*>(kfd_view)[3] == 0x77);
  munmap(p, 8192);
  munmap(kfd_view, 8192);
  close(static_cast<int>(ex.dmabuf_fd));
}

}  // namespace
