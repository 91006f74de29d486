// kfdsim render-node GEM: the requests a graphics stack (libdrm's
// amdgpu_bo_*) uses to create, map, describe, export, import and free a
// BO: DRM_IOCTL_GEM_CLOSE, PRIME_HANDLE_TO_FD / FD_TO_HANDLE and amdgpu's
// GEM_CREATE, GEM_MMAP, GEM_METADATA, GEM_WAIT_IDLE, GEM_OP and
// GEM_USERPTR. DrmIoctl (drm.cc) hands every request it does not serve
// itself to DrmGemIoctl; the argument is copied as drm_ioctl() does (in
// when both directions write, back when both read, also after a failure).
//
// Model:
//  - A GEM object lives in the backing memfd of its render node's GPU like
//    a KFD BO; its mmap offset (GEM_MMAP) is its storage offset, so a CPU
//    mapping through any render file that holds a handle aliases the same
//    pages as a KFD import of its dma-buf. Handles are per DRM file (the
//    memfd inode), lowest free from 1; closing the file's last descriptor
//    releases them. The object lives while a handle or its dma-buf does.
//  - Accounting: VRAM objects count against GpuDesc::vram_bytes and GTT
//    objects against gtt_bytes, in the same counters as KFD BOs
//    (AVAILABLE_MEMORY sees them), until the last reference to their
//    memory goes (a KFD import keeps it).
//  - dma-buf: PRIME_HANDLE_TO_FD makes one dma-buf per object (later
//    exports are new descriptors of the same file); FD_TO_HANDLE of a
//    dma-buf of this GPU (a render-node or KFD export) gives the object's
//    handle in this file, creating the GEM view of a KFD BO on first use.
//    GET_DMABUF_INFO and IMPORT_DMABUF on /dev/kfd accept these dma-bufs;
//    GET_DMABUF_INFO returns the metadata (memory.cc).
//
// Kernel facts followed (amdgpu_gem.c, amdgpu_object.c, drm_prime.c,
// drm_gem.c, Linux 6.x):
//  - GEM_CREATE: the DOORBELL domain, a flag outside CPU_ACCESS_REQUIRED |
//    NO_CPU_ACCESS | CPU_GTT_USWC | VRAM_CLEARED | VM_ALWAYS_VALID |
//    EXPLICIT_SYNC | ENCRYPTED | DISCARDABLE | GFX12_DCC, or a domain bit
//    outside the mask -> EINVAL; ENCRYPTED without TMZ -> EINVAL (no TMZ
//    here). VRAM larger than the CPU-visible part drops
//    CPU_ACCESS_REQUIRED; VRAM-only that does not fit is retried in
//    VRAM|GTT (kept as the preferred domains); what fits nowhere ->
//    ENOMEM. CPU (or no) domain: system pages, not accounted. The size is
//    rounded up to pages; GEM_OP reports it, the alignment rounded up to a
//    page (0 stays 0), the preferred domains and the flags.
//  - GEM_MMAP: unknown handle -> ENOENT; userptr or NO_CPU_ACCESS -> EPERM.
//    mmap of the render node at the offset: EACCES from a file without a
//    handle to the object (KFD BOs: only the file the VM was acquired on).
//  - GEM_METADATA: unknown handle -> ENOENT. SET: more than 256 bytes ->
//    EINVAL; a tile split above 6 on a family up to CZ -> EINVAL; the
//    tiling is set, then the metadata (size 0 clears it and leaves the
//    flags; otherwise bytes and flags are replaced). GET: tiling, flags,
//    size and bytes. Another op -> 0, nothing done.
//  - GEM_USERPTR: address or size not page aligned -> EINVAL; unknown flags
//    -> EINVAL; writable without REGISTER -> EACCES; VALIDATE of pages
//    that are not host memory -> EFAULT. The object is GTT, not accounted
//    (the pages are the user's), and neither mappable nor exportable.
//  - GEM_CLOSE: unknown handle -> EINVAL.
//  - PRIME_HANDLE_TO_FD: flags other than CLOEXEC | RDWR -> EINVAL; unknown
//    handle -> ENOENT; userptr or VM_ALWAYS_VALID -> EPERM.
//  - PRIME_FD_TO_HANDLE: not a descriptor -> EBADF; not a dma-buf -> EINVAL.
//  - GEM_WAIT_IDLE: unknown handle -> ENOENT; always idle (nothing renders).
//  - GEM_OP: unknown handle -> ENOENT; GET_GEM_CREATE_INFO writes the create
//    info (EFAULT); SET_PLACEMENT of a userptr -> EPERM, else sets the
//    preferred domains (VRAM | GTT | CPU bits; nothing moves); else EINVAL.
//
// Not modelled (EINVAL): GDS/GWS/OA objects, dma-bufs of another GPU or
// process, GEM_VA and command submission. A CPU mapping does not keep a
// closed object's memory alive (the pages read as zero once freed), and a
// dma-buf fd maps its own memory, not the object's. The ANONONLY check of
// userptrs (file-backed pages refused) is not made.
//
// Threading: the GEM tables live under proc_mu_.
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <set>

#include "platform/sim/core/gem_abi.h"
#include "platform/sim/core/simulator.h"
#include "platform/sim/core/util.h"

namespace kfdsim {

namespace k = hke::kfd;

namespace {

struct GemEntry {
  uint8_t nr;
  const char* name;
  uint32_t cmd;  // the kernel's definition (direction and size)
  Simulator::Handler handler;
};

bool KeyOf(int fd, FileKey* key) {
  struct stat st{};
  if (fd < 0 || fstat(fd, &st) != 0) return false;
  *key = FileKey{static_cast<uint64_t>(st.st_dev), static_cast<uint64_t>(st.st_ino)};
  return true;
}

}  // namespace

int Simulator::DrmGemIoctl(IoctlCtx& c, unsigned long request, void* arg, const char** trace_name,
                           bool* unknown) {
  using S = Simulator;
  static const GemEntry kTable[] = {
      {gem::kNrGemClose, "DRM_IOCTL_GEM_CLOSE", gem::kIocGemClose, &S::IocGemClose},
      {gem::kNrPrimeHandleToFd, "DRM_IOCTL_PRIME_HANDLE_TO_FD", gem::kIocPrimeHandleToFd,
       &S::IocPrimeHandleToFd},
      {gem::kNrPrimeFdToHandle, "DRM_IOCTL_PRIME_FD_TO_HANDLE", gem::kIocPrimeFdToHandle,
       &S::IocPrimeFdToHandle},
      {gem::kNrAmdgpuGemCreate, "DRM_IOCTL_AMDGPU_GEM_CREATE", gem::kIocGemCreate, &S::IocGemCreate},
      {gem::kNrAmdgpuGemMmap, "DRM_IOCTL_AMDGPU_GEM_MMAP", gem::kIocGemMmap, &S::IocGemMmap},
      {gem::kNrAmdgpuGemMetadata, "DRM_IOCTL_AMDGPU_GEM_METADATA", gem::kIocGemMetadata,
       &S::IocGemMetadata},
      {gem::kNrAmdgpuGemWaitIdle, "DRM_IOCTL_AMDGPU_GEM_WAIT_IDLE", gem::kIocGemWaitIdle,
       &S::IocGemWaitIdle},
      {gem::kNrAmdgpuGemOp, "DRM_IOCTL_AMDGPU_GEM_OP", gem::kIocGemOp, &S::IocGemOp},
      {gem::kNrAmdgpuGemUserptr, "DRM_IOCTL_AMDGPU_GEM_USERPTR", gem::kIocGemUserptr,
       &S::IocGemUserptr},
  };
  const uint32_t req = static_cast<uint32_t>(request);
  const GemEntry* e = nullptr;
  for (const GemEntry& x : kTable) {
    if (x.nr == k::IocNr(req)) e = &x;
  }
  if (e == nullptr) {
    *unknown = true;
    return EINVAL;
  }
  *trace_name = e->name;
  const uint8_t both = static_cast<uint8_t>(k::IocDir(req) & k::IocDir(e->cmd));
  const uint32_t usize = k::IocSize(req);
  const uint32_t in_size = (both & k::kIocWrite) ? usize : 0;
  const uint32_t out_size = (both & k::kIocRead) ? usize : 0;
  std::vector<uint8_t> kdata(std::max({in_size, out_size, k::IocSize(e->cmd)}), 0);
  if (in_size != 0 && UserRead(kdata.data(), reinterpret_cast<uintptr_t>(arg), in_size) != 0) {
    return EFAULT;
  }
  int result = (this->*(e->handler))(c, kdata.data());
  if (out_size != 0 && UserWrite(reinterpret_cast<uintptr_t>(arg), kdata.data(), out_size) != 0) {
    result = EFAULT;
  }
  return result;
}

Simulator::GemRef Simulator::NewGemLocked(int gpu, const std::shared_ptr<Storage>& storage) {
  GemRef g(new GemObject(), [this](GemObject* o) {
    DropStorage(o->storage);  // the object's own reference
    delete o;
  });
  g->gpu = gpu;
  g->storage = storage;
  return g;
}

Simulator::GemRef* Simulator::GemLookupLocked(const IoctlCtx& c, uint32_t handle) {
  auto f = gem_files_.find(c.key);
  if (f == gem_files_.end()) return nullptr;
  auto h = f->second.handles.find(handle);
  return h == f->second.handles.end() ? nullptr : &h->second;
}

int Simulator::IocGemCreate(IoctlCtx& c, void* d) {
  auto* a = static_cast<gem::GemCreate*>(d);
  const gem::GemCreateIn in = a->in;
  uint64_t flags = in.domain_flags;
  uint64_t domains = in.domains & 0xFFFFFFFFull;
  if (in.domains & gem::kDomainDoorbell) return EINVAL;
  if (flags & ~gem::kCreateUserFlags) return EINVAL;
  if (in.domains & ~gem::kDomainMask) return EINVAL;
  if (flags & gem::kCreateEncrypted) return EINVAL;  // no TMZ
  if (domains & (gem::kDomainGds | gem::kDomainGws | gem::kDomainOa)) return EINVAL;  // not modelled
  const uint64_t bytes = AlignUp(in.bo_size, page_size_);
  if (in.bo_size == 0 || bytes < in.bo_size) return EINVAL;
  std::lock_guard<std::mutex> pl(proc_mu_);
  const GpuDesc& desc = board_.desc.gpus[static_cast<size_t>(c.gpu)];
  GpuProc& g = gpus_[static_cast<size_t>(c.gpu)];
  if ((domains & gem::kDomainVram) && (flags & gem::kCreateCpuAccessRequired) &&
      desc.vram_visible_bytes != 0 && bytes > desc.vram_visible_bytes) {
    flags &= ~gem::kCreateCpuAccessRequired;  // the kernel's first retry
  }
  const bool vram_fits = g.vram_used <= desc.vram_bytes && bytes <= desc.vram_bytes - g.vram_used;
  const bool gtt_fits =
      desc.gtt_bytes == 0 || (g.gtt_used <= desc.gtt_bytes && bytes <= desc.gtt_bytes - g.gtt_used);
  if (domains == gem::kDomainVram && !vram_fits) domains |= gem::kDomainGtt;  // the second retry
  // Placement in the kernel's order of preference: VRAM, GTT, system pages.
  int account = 0;
  if ((domains & gem::kDomainVram) && vram_fits) {
    account = 1;
  } else if ((domains & gem::kDomainGtt) && gtt_fits) {
    account = 2;
  } else if ((domains & (gem::kDomainVram | gem::kDomainGtt)) != 0 &&
             (domains & gem::kDomainCpu) == 0) {
    return ENOMEM;
  }
  auto s = std::make_shared<Storage>();
  s->gpu = c.gpu;
  s->size = bytes;
  s->refs = 1;
  if (int r = AllocBacking(c.gpu, bytes, &s->offset)) return r;
  s->account = account;
  if (account == 1) g.vram_used += bytes;
  if (account == 2) g.gtt_used += bytes;
  GemRef obj = NewGemLocked(c.gpu, s);
  obj->size = bytes;
  obj->alignment = in.alignment == 0 ? 0 : AlignUp(in.alignment, page_size_);
  obj->domains = domains;
  obj->flags = flags;
  GemFile& f = gem_files_[c.key];
  const uint32_t handle = f.ids.Take();
  f.handles.emplace(handle, std::move(obj));
  std::memset(a, 0, sizeof(*a));
  a->out.handle = handle;
  return 0;
}

int Simulator::IocGemUserptr(IoctlCtx& c, void* d) {
  auto* a = static_cast<gem::GemUserptr*>(d);
  if (((a->addr | a->size) & (page_size_ - 1)) != 0) return EINVAL;
  const uint32_t known = gem::kUserptrReadonly | gem::kUserptrAnononly | gem::kUserptrValidate |
                         gem::kUserptrRegister;
  if (a->flags & ~known) return EINVAL;
  if (!(a->flags & gem::kUserptrReadonly) && !(a->flags & gem::kUserptrRegister)) return EACCES;
  if (a->size == 0 || a->addr + a->size < a->addr) return EINVAL;
  if ((a->flags & gem::kUserptrValidate) && !HostRangeMapped(a->addr, a->size)) return EFAULT;
  std::lock_guard<std::mutex> pl(proc_mu_);
  GemRef obj = NewGemLocked(c.gpu, nullptr);
  obj->size = a->size;
  obj->domains = gem::kDomainGtt;
  obj->userptr = a->addr;
  GemFile& f = gem_files_[c.key];
  const uint32_t handle = f.ids.Take();
  f.handles.emplace(handle, std::move(obj));
  a->handle = handle;
  return 0;
}

int Simulator::IocGemMmap(IoctlCtx& c, void* d) {
  auto* a = static_cast<gem::GemMmap*>(d);
  const uint32_t handle = a->in.handle;
  std::memset(a, 0, sizeof(*a));
  std::lock_guard<std::mutex> pl(proc_mu_);
  GemRef* obj = GemLookupLocked(c, handle);
  if (obj == nullptr) return ENOENT;
  if (!(*obj)->storage || ((*obj)->flags & gem::kCreateNoCpuAccess)) return EPERM;
  a->out.addr_ptr = (*obj)->storage->offset;
  return 0;
}

int Simulator::IocGemMetadata(IoctlCtx& c, void* d) {
  auto* a = static_cast<gem::GemMetadata*>(d);
  std::lock_guard<std::mutex> pl(proc_mu_);
  GemRef* ref = GemLookupLocked(c, a->handle);
  if (ref == nullptr) return ENOENT;
  GemObject& obj = **ref;
  if (a->op == gem::kMetadataOpGet) {
    a->data.tiling_info = obj.tiling;
    a->data.data_size_bytes = static_cast<uint32_t>(obj.metadata.size());
    std::memcpy(a->data.data, obj.metadata.data(), obj.metadata.size());
    a->data.flags = obj.metadata_flags;
    return 0;
  }
  if (a->op != gem::kMetadataOpSet) return 0;  // the kernel does nothing and succeeds
  if (a->data.data_size_bytes > gem::kMetadataMaxBytes) return EINVAL;
  const GpuDesc& desc = board_.desc.gpus[static_cast<size_t>(c.gpu)];
  const uint64_t split = (a->data.tiling_info >> gem::kTilingTileSplitShift) & gem::kTilingTileSplitMask;
  if (desc.drm_family != 0 && desc.drm_family <= gem::kFamilyCz && split > 6) return EINVAL;
  obj.tiling = a->data.tiling_info;
  if (a->data.data_size_bytes == 0) {
    obj.metadata.clear();
    return 0;
  }
  const auto* bytes = reinterpret_cast<const uint8_t*>(a->data.data);
  obj.metadata.assign(bytes, bytes + a->data.data_size_bytes);
  obj.metadata_flags = a->data.flags;
  return 0;
}

int Simulator::IocGemWaitIdle(IoctlCtx& c, void* d) {
  auto* a = static_cast<gem::GemWaitIdle*>(d);
  std::lock_guard<std::mutex> pl(proc_mu_);
  if (GemLookupLocked(c, a->in.handle) == nullptr) return ENOENT;
  std::memset(a, 0, sizeof(*a));  // idle
  return 0;
}

int Simulator::IocGemOp(IoctlCtx& c, void* d) {
  auto* a = static_cast<gem::GemOp*>(d);
  std::lock_guard<std::mutex> pl(proc_mu_);
  GemRef* ref = GemLookupLocked(c, a->handle);
  if (ref == nullptr) return ENOENT;
  GemObject& obj = **ref;
  if (a->op == gem::kOpGetGemCreateInfo) {
    gem::GemCreateIn info{};
    info.bo_size = obj.size;
    info.alignment = obj.alignment;
    info.domains = obj.domains;
    info.domain_flags = obj.flags;
    return UserWrite(a->value, &info, sizeof(info));
  }
  if (a->op == gem::kOpSetPlacement) {
    if (!obj.storage) return EPERM;
    obj.domains = a->value & (gem::kDomainVram | gem::kDomainGtt | gem::kDomainCpu);
    return 0;
  }
  return EINVAL;
}

int Simulator::IocGemClose(IoctlCtx& c, void* d) {
  auto* a = static_cast<gem::GemClose*>(d);
  std::lock_guard<std::mutex> pl(proc_mu_);
  auto f = gem_files_.find(c.key);
  if (f == gem_files_.end()) return EINVAL;
  auto h = f->second.handles.find(a->handle);
  if (h == f->second.handles.end()) return EINVAL;
  const bool exported = h->second->exported;
  f->second.handles.erase(h);
  f->second.ids.Release(a->handle);
  if (f->second.handles.empty()) gem_files_.erase(f);
  if (exported) DmabufCollectLocked();
  return 0;
}

int Simulator::NewDmabufLocked(const std::shared_ptr<Storage>& storage, uint32_t kfd_flags,
                               GemRef gem, bool cloexec, int* out_fd, FileKey* out_key) {
  // A published storage's dma-buf names its share (share.cc).
  char name[64] = "kfdsim-dmabuf";
  if (storage->shared) {
    std::snprintf(name, sizeof(name), "kfdsim-dmabuf-%08x%08x%08x%08x", storage->share[0],
                  storage->share[1], storage->share[2], storage->share[3]);
  }
  const int fd = memfd_create(name, cloexec ? MFD_CLOEXEC : 0u);
  if (fd < 0) return errno;
  FileKey key;
  if (ftruncate(fd, static_cast<off_t>(storage->size)) != 0 || !KeyOf(fd, &key)) {
    close(fd);
    return EIO;
  }
  Dmabuf buf;
  buf.storage = storage;
  buf.storage->refs++;
  buf.flags = kfd_flags;
  buf.gem = std::move(gem);
  buf.pin_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
  dmabufs_[key] = std::move(buf);
  *out_fd = fd;
  if (out_key != nullptr) *out_key = key;
  return 0;
}

uint32_t Simulator::DmabufKfdFlags(const Dmabuf& b) {
  if (!b.gem) return b.flags;
  uint32_t f = (b.gem->domains & gem::kDomainVram) ? k::kAllocMemVram : k::kAllocMemGtt;
  if (b.gem->flags & gem::kCreateCpuAccessRequired) f |= k::kAllocMemPublic;
  return f;
}

int Simulator::IocPrimeHandleToFd(IoctlCtx& c, void* d) {
  auto* a = static_cast<gem::PrimeHandle*>(d);
  if (a->flags & ~(gem::kPrimeCloexec | gem::kPrimeRdwr)) return EINVAL;
  const bool cloexec = (a->flags & gem::kPrimeCloexec) != 0;
  std::lock_guard<std::mutex> pl(proc_mu_);
  GemRef* ref = GemLookupLocked(c, a->handle);
  if (ref == nullptr) return ENOENT;
  GemRef obj = *ref;
  if (!obj->storage || (obj->flags & gem::kCreateVmAlwaysValid)) return EPERM;
  if (obj->exported) {
    auto it = dmabufs_.find(obj->dmabuf);
    if (it != dmabufs_.end()) {  // the same dma-buf, a new descriptor
      const int fd = fcntl(it->second.pin_fd, cloexec ? F_DUPFD_CLOEXEC : F_DUPFD, 0);
      if (fd < 0) return errno;
      a->fd = fd;
      return 0;
    }
  }
  int fd = -1;
  FileKey key;
  if (int r = NewDmabufLocked(obj->storage, 0, obj, cloexec, &fd, &key)) return r;
  obj->exported = true;
  obj->dmabuf = key;
  a->fd = fd;
  return 0;
}

int Simulator::IocPrimeFdToHandle(IoctlCtx& c, void* d) {
  auto* a = static_cast<gem::PrimeHandle*>(d);
  FileKey key;
  if (!KeyOf(a->fd, &key)) return EBADF;
  std::lock_guard<std::mutex> pl(proc_mu_);
  auto it = dmabufs_.find(key);
  if (it == dmabufs_.end()) return EINVAL;  // not a dma-buf of this process
  Dmabuf& buf = it->second;
  if (buf.storage->gpu != c.gpu) return EINVAL;  // another device's: not modelled
  if (!buf.gem) {
    // A KFD BO's dma-buf: its GEM object, as the kernel's import finds it.
    buf.storage->refs++;
    GemRef obj = NewGemLocked(c.gpu, buf.storage);
    obj->size = buf.storage->size;
    obj->domains = (buf.flags & k::kAllocMemVram) ? gem::kDomainVram : gem::kDomainGtt;
    obj->flags = (buf.flags & k::kAllocMemPublic) ? gem::kCreateCpuAccessRequired : 0;
    obj->exported = true;
    obj->dmabuf = key;
    buf.gem = std::move(obj);
  }
  GemFile& f = gem_files_[c.key];
  for (const auto& [handle, obj] : f.handles) {
    if (obj == buf.gem) {
      a->handle = handle;
      return 0;
    }
  }
  const uint32_t handle = f.ids.Take();
  f.handles.emplace(handle, buf.gem);
  a->handle = handle;
  return 0;
}

void Simulator::DmabufCollectLocked() {
  if (dmabufs_.empty()) return;
  DIR* dir = opendir("/proc/self/fd");
  if (dir == nullptr) return;  // cannot tell: keep everything
  std::map<FileKey, int> open;
  while (struct dirent* e = readdir(dir)) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    FileKey key;
    if (KeyOf(std::atoi(e->d_name), &key) && dmabufs_.count(key) != 0) ++open[key];
  }
  closedir(dir);
  for (auto it = dmabufs_.begin(); it != dmabufs_.end();) {
    if (open[it->first] > 1) {  // a descriptor besides the simulator's pin
      ++it;
      continue;
    }
    if (it->second.pin_fd >= 0) close(it->second.pin_fd);
    DropStorage(it->second.storage);
    it = dmabufs_.erase(it);  // releases the GEM reference
  }
}

void Simulator::GemFileClosedLocked(const FileKey& key) {
  auto f = gem_files_.find(key);
  if (f == gem_files_.end()) return;
  gem_files_.erase(f);
  DmabufCollectLocked();
}

int Simulator::MmapGemLocked(const IoctlCtx& ctx, void* addr, size_t length, int prot, int flags,
                             uint64_t offset, void** out) {
  auto holds = [&](const GemRef& obj) {
    const Storage* s = obj->storage.get();
    return s != nullptr && s->gpu == ctx.gpu && offset >= s->offset && offset < s->offset + s->size;
  };
  auto f = gem_files_.find(ctx.key);
  if (f != gem_files_.end()) {
    for (const auto& [handle, obj] : f->second.handles) {
      (void)handle;
      if (!holds(obj)) continue;
      const Storage* s = obj->storage.get();
      if (offset + AlignUp(length, page_size_) > s->offset + s->size) return EINVAL;
      const uint64_t file_off = StorageFileOffset(*s) + (offset - s->offset);
      void* p = mmap(addr, length, prot, flags, StorageFd(*s), static_cast<off_t>(file_off));
      if (p == MAP_FAILED) return errno;
      *out = p;
      return 0;
    }
  }
  // An object other files (or only its dma-buf) hold: this file may not
  // map it (drm_vma_node_is_allowed).
  for (const auto& [key, file] : gem_files_) {
    (void)key;
    for (const auto& [handle, obj] : file.handles) {
      (void)handle;
      if (holds(obj)) return EACCES;
    }
  }
  for (const auto& [key, buf] : dmabufs_) {
    (void)key;
    if (buf.gem && holds(buf.gem)) return EACCES;
  }
  return ENOENT;
}

size_t Simulator::GemObjectCount() {
  std::lock_guard<std::mutex> pl(proc_mu_);
  DmabufCollectLocked();
  std::set<const GemObject*> live;
  for (const auto& [key, f] : gem_files_) {
    (void)key;
    for (const auto& [handle, obj] : f.handles) {
      (void)handle;
      live.insert(obj.get());
    }
  }
  for (const auto& [key, buf] : dmabufs_) {
    (void)key;
    if (buf.gem) live.insert(buf.gem.get());
  }
  return live.size();
}

}  // namespace kfdsim
