// kfdsim memory subsystem: per-GPU process state (VM binding, apertures),
// the BO table (ALLOC/FREE/MAP/UNMAP_MEMORY_OF_GPU, AVAILABLE_MEMORY), the
// dma-buf ioctls and every mmap of a simulated fd.
//
// Model:
//  - Each GPU has one backing memfd; a VRAM or GTT BO is a page-aligned
//    range of it (first fit from a free list, else a bump pointer; the file
//    grows with ftruncate and freed ranges are hole-punched). The BO's
//    mmap_offset is its offset in that memfd, and a CPU mmap of a render fd
//    at that offset maps the same memfd range, so all aliases (the user's
//    mappings, the simulator's event-page view) stay coherent.
//  - Handles are (gpu_id << 32) | lowest free per-GPU index, as the kernel's
//    IDR gives them. VRAM use is accounted against GpuDesc::vram_bytes and
//    GTT against gtt_bytes (when nonzero): ENOMEM past either.
//  - DOORBELL BOs return the kfd doorbell mmap offset of their GPU, MMIO_REMAP
//    BOs the kfd MMIO offset; USERPTR BOs leave mmap_offset as passed in
//    (the user address). The doorbell slice (8 KiB with 64-bit SOC15
//    doorbells, else 4 KiB) and the MMIO page are per-GPU memfds.
//
// Kernel facts followed (kfd_chardev.c): size 0 -> EINVAL; unknown gpu ->
// EINVAL; PUBLIC VRAM without a large BAR -> EINVAL; no ACQUIRE_VM yet ->
// ENODEV (process-device bind); doorbell size != slice -> EINVAL; MMIO size
// != PAGE_SIZE -> EINVAL; VA overlapping an SVM range -> EADDRINUSE; FREE
// of the event-page BO -> EPERM; MAP/UNMAP: n_devices 0 or n_success >
// n_devices -> EINVAL, unknown handle -> ENOMEM, unknown peer -> EINVAL,
// resumable from n_success; UNMAP of a BO not mapped there -> EINVAL;
// UNMAP (from the queue's GPU) or FREE of a buffer a live queue holds ->
// EBUSY (queue_buffers.cc, from KFD 1.17).
//
// Threading: everything here runs under proc_mu_ (taken after dev_mu_ when
// a device file must be looked up or pinned).
#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <iterator>

#include "platform/sim/core/simulator.h"
#include "platform/sim/core/util.h"

namespace kfdsim {

namespace k = hke::kfd;

namespace {

constexpr uint64_t kSvmUserBase = 0x1000000ull;  // low 16 MiB reserved by the kernel
constexpr uint64_t MmapOffset(uint32_t type, uint32_t gpu_id) {
  return (static_cast<uint64_t>(type) << k::kMmapTypeShift) |
         ((static_cast<uint64_t>(gpu_id) & 0xFFFFull) << k::kMmapGpuIdShift);
}

}  // namespace

int Simulator::GpuIndex(uint32_t gpu_id) const {
  if (gpu_id == 0) return -1;
  const auto& g = board_.desc.gpus;
  for (size_t i = 0; i < g.size(); ++i) {
    if (g[i].gpu_id == gpu_id) return static_cast<int>(i);
  }
  return -1;
}

bool Simulator::IsSoc15(int gpu) const {
  return board_.desc.gpus[static_cast<size_t>(gpu)].gfx_target_version >= 90000;
}

uint64_t Simulator::DoorbellSlice(int gpu) const {
  const uint64_t doorbell_bytes = IsSoc15(gpu) ? 8 : 4;
  return AlignUp(doorbell_bytes * 1024, page_size_);
}

int Simulator::Bind(int gpu) const {
  return gpus_[static_cast<size_t>(gpu)].vm_acquired ? 0 : ENODEV;
}

// Aperture layout of kfd_flat_memory.c: gfx9 and later program LDS and
// scratch through the top 16 bits (1 << 48, 2 << 48, 4 GiB each) and give
// a canonical SVM range above the kernel's reserved 16 MiB; gfx7/8 use the
// 1 << 61 hole for LDS and scratch and a canonical 40-bit SVM range. Since
// amdkfd dropped its IOMMUv2 path (kfd_init_apertures_vi lost the
// use_iommu_v2 branch) gfx7/8 APUs get that SVM range too; the per-node
// non-canonical GPUVM aperture they had before ((node + 1) << 61) is gone,
// and the simulator follows current kernels.
void Simulator::FillApertures(int gpu, k::ProcessDeviceApertures* out) const {
  const GpuDesc& d = board_.desc.gpus[static_cast<size_t>(gpu)];
  std::memset(out, 0, sizeof(*out));
  if (d.gfx_target_version >= 90000 || d.gfx_target_version == 0) {
    out->lds_base = 1ull << 48;
    out->scratch_base = 2ull << 48;
    out->gpuvm_base = kSvmUserBase;
    out->gpuvm_limit = (1ull << 47) - 1;
  } else {
    out->lds_base = 1ull << 61;
    out->scratch_base = (1ull << 61) + 0x100000000ull;
    const uint64_t vm_size = 1ull << 40;
    out->gpuvm_base = kSvmUserBase;
    out->gpuvm_limit = vm_size - 1;
  }
  out->lds_limit = (out->lds_base & 0xFFFFFFFF00000000ull) | 0xFFFFFFFFull;
  out->scratch_limit = (out->scratch_base & 0xFFFFFFFF00000000ull) | 0xFFFFFFFFull;
  out->gpu_id = d.gpu_id;
}

int Simulator::IocGetProcessApertures(IoctlCtx&, void* d) {
  auto* a = static_cast<k::GetProcessAperturesArgs*>(d);
  const size_t n = std::min<size_t>(board_.desc.gpus.size(), k::kOldAperturesMaxGpus);
  for (size_t i = 0; i < n; ++i) FillApertures(static_cast<int>(i), &a->process_apertures[i]);
  a->num_of_nodes = static_cast<uint32_t>(n);
  return 0;
}

int Simulator::IocGetProcessAperturesNew(IoctlCtx&, void* d) {
  auto* a = static_cast<k::GetProcessAperturesNewArgs*>(d);
  const uint32_t count = static_cast<uint32_t>(board_.desc.gpus.size());
  if (a->num_of_nodes == 0) {
    a->num_of_nodes = count;
    return 0;
  }
  const uint32_t n = std::min(count, a->num_of_nodes);
  std::vector<k::ProcessDeviceApertures> pa(n);
  for (uint32_t i = 0; i < n; ++i) FillApertures(static_cast<int>(i), &pa[i]);
  a->num_of_nodes = n;
  return UserWrite(a->kfd_process_device_apertures_ptr, pa.data(), n * sizeof(pa[0]));
}

int Simulator::IocAcquireVm(IoctlCtx&, void* d) {
  auto* a = static_cast<k::AcquireVmArgs*>(d);
  IoctlCtx drm;
  const int lookup = LookupFd(static_cast<int>(a->drm_fd), &drm);
  if (lookup == EBADF) return EINVAL;  // fget failed
  const int gpu = GpuIndex(a->gpu_id);
  if (gpu < 0) return EINVAL;
  std::lock_guard<std::mutex> dl(dev_mu_);
  std::lock_guard<std::mutex> pl(proc_mu_);
  GpuProc& g = gpus_[static_cast<size_t>(gpu)];
  if (g.vm_acquired) return (lookup == 0 && g.vm_file == drm.key) ? 0 : EBUSY;
  // The file must be a render file of this very device.
  if (lookup != 0 || drm.kind != DevKind::kRender || drm.gpu != gpu) return EINVAL;
  auto it = files_.find(drm.key);
  if (it == files_.end()) return EINVAL;
  if (it->second.pin_fd < 0) {
    it->second.pin_fd = fcntl(static_cast<int>(a->drm_fd), F_DUPFD_CLOEXEC, 0);
    if (it->second.pin_fd < 0) return ENOMEM;
  }
  g.vm_acquired = true;
  g.vm_file = drm.key;
  return 0;
}

int Simulator::EnsureFd(int* fd, const char* name, uint64_t size) {
  if (*fd >= 0) return 0;
  const int f = memfd_create(name, MFD_CLOEXEC);
  if (f < 0) return errno;
  if (size != 0 && ftruncate(f, static_cast<off_t>(size)) != 0) {
    const int e = errno;
    close(f);
    return e;
  }
  *fd = f;
  return 0;
}

int Simulator::EnsureDoorbellPage(int gpu) {
  GpuProc& g = gpus_[static_cast<size_t>(gpu)];
  if (g.doorbell_fd >= 0) return 0;
  const uint64_t slice = DoorbellSlice(gpu);
  const int r = EnsureFd(&g.doorbell_fd, "kfdsim-doorbell", slice);
  if (r != 0) return r;
  void* m = mmap(nullptr, static_cast<size_t>(slice), PROT_READ | PROT_WRITE, MAP_SHARED,
                 g.doorbell_fd, 0);
  if (m == MAP_FAILED) return errno;
  g.doorbell_map = static_cast<volatile uint8_t*>(m);
  return 0;
}

int Simulator::AllocBacking(int gpu, uint64_t size, uint64_t* offset) {
  GpuProc& g = gpus_[static_cast<size_t>(gpu)];
  char name[40];
  std::snprintf(name, sizeof(name), "kfdsim-gpu%u-bo", board_.desc.gpus[static_cast<size_t>(gpu)].gpu_id);
  int r = EnsureFd(&g.backing_fd, name, 0);
  if (r != 0) return r;
  ReclaimRetiredLocked(gpu);  // ranges other processes held until now (share.cc)
  for (auto it = g.free_ranges.begin(); it != g.free_ranges.end(); ++it) {
    if (it->second < size) continue;
    *offset = it->first;
    const uint64_t rest = it->second - size;
    const uint64_t rest_at = it->first + size;
    g.free_ranges.erase(it);
    if (rest != 0) g.free_ranges[rest_at] = rest;
    return 0;
  }
  if (g.top > ~0ull / 2 - size) return ENOMEM;
  const uint64_t at = g.top;
  if (at + size > g.backing_len) {
    if (ftruncate(g.backing_fd, static_cast<off_t>(at + size)) != 0) return ENOMEM;
    g.backing_len = at + size;
  }
  g.top = at + size;
  *offset = at;
  return 0;
}

void Simulator::FreeBacking(int gpu, uint64_t offset, uint64_t size) {
  GpuProc& g = gpus_[static_cast<size_t>(gpu)];
  // Return the pages to the host and make the next BO here read as zero.
  fallocate(g.backing_fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, static_cast<off_t>(offset),
            static_cast<off_t>(size));
  auto it = g.free_ranges.emplace(offset, size).first;
  auto next = std::next(it);
  if (next != g.free_ranges.end() && it->first + it->second == next->first) {
    it->second += next->second;
    g.free_ranges.erase(next);
  }
  if (it != g.free_ranges.begin()) {
    auto prev = std::prev(it);
    if (prev->first + prev->second == it->first) {
      prev->second += it->second;
      g.free_ranges.erase(it);
      it = prev;
    }
  }
  if (it->first + it->second == g.top) {
    g.top = it->first;
    g.free_ranges.erase(it);
  }
}

uint32_t Simulator::AddBoLocked(GpuProc& g, Bo bo) {
  Storage* s = bo.storage.get();
  // A storage's offset and size never change; ranges of live storages
  // are disjoint, so a non-empty one has its offset to itself.
  if (s != nullptr && s->size != 0 && s->kfd_bos++ == 0) g.bo_storages.emplace(s->offset, s);
  return g.bos.Add(std::move(bo));
}

void Simulator::EraseBoLocked(GpuProc& g, uint32_t idx) {
  Storage* s = g.bos.Find(idx)->storage.get();
  if (s != nullptr && s->size != 0 && --s->kfd_bos == 0) g.bo_storages.erase(s->offset);
  g.bos.Erase(idx);
}

const Simulator::Storage* Simulator::BoStorageAtLocked(const GpuProc& g, uint64_t offset) const {
  auto it = g.bo_storages.find(offset);
  if (it != g.bo_storages.end()) return it->second;
  for (const auto& [idx, bo] : g.bos) {
    (void)idx;
    const Storage* s = bo.storage.get();
    if (s != nullptr && offset >= s->offset && offset < s->offset + s->size) return s;
  }
  return nullptr;
}

void Simulator::DropStorage(const std::shared_ptr<Storage>& s) {
  if (!s) return;
  if (--s->refs != 0) return;
  // Another process of the machine may still hold a shared range (share.cc).
  if (!ReleaseShareLocked(s.get())) FreeBacking(s->gpu, s->offset, s->size);
  GpuProc& g = gpus_[static_cast<size_t>(s->gpu)];
  if (s->account == 1) g.vram_used -= std::min(g.vram_used, s->size);
  if (s->account == 2) g.gtt_used -= std::min(g.gtt_used, s->size);
}

int Simulator::IocAllocMemory(IoctlCtx&, void* d) {
  auto* a = static_cast<k::AllocMemoryOfGpuArgs*>(d);
  if (a->size == 0) return EINVAL;
  // USERPTR BOs belong to the primary process (they die with the mm).
  if (IsSecondary() && (a->flags & k::kAllocMemUserptr) != 0) return EOPNOTSUPP;
  std::lock_guard<std::mutex> pl(proc_mu_);
  const uint32_t flags = a->flags;
  // An SVM range the host unmapped behind the simulator's back is gone
  // (the kernel's MMU notifier would have removed it): re-check first.
  if (flags & k::kAllocMemUserptr) {
    SvmPruneLocked(a->mmap_offset, a->mmap_offset + a->size);
    if (SvmOverlaps(a->mmap_offset, a->size)) return EADDRINUSE;
  } else if (!((flags & k::kAllocMemVram) && a->va_addr == 0)) {
    SvmPruneLocked(a->va_addr, a->va_addr + a->size);
    if (SvmOverlaps(a->va_addr, a->size)) return EADDRINUSE;
  }
  const int gpu = GpuIndex(a->gpu_id);
  if (gpu < 0) return EINVAL;
  const GpuDesc& desc = board_.desc.gpus[static_cast<size_t>(gpu)];
  const bool large_bar = desc.vram_visible_bytes == 0 || desc.vram_visible_bytes >= desc.vram_bytes;
  if ((flags & k::kAllocMemPublic) && (flags & k::kAllocMemVram) && !large_bar) return EINVAL;
  if (int r = Bind(gpu)) return r;
  GpuProc& g = gpus_[static_cast<size_t>(gpu)];
  if ((flags & k::kAllocMemDoorbell) && a->size != DoorbellSlice(gpu)) return EINVAL;
  if ((flags & k::kAllocMemMmioRemap) && (a->size != page_size_ || page_size_ > 4096)) {
    return a->size != page_size_ ? EINVAL : ENOMEM;
  }

  Bo bo;
  bo.va = a->va_addr;
  bo.size = a->size;
  bo.flags = flags;
  const uint64_t bytes = AlignUp(a->size, page_size_);
  if (bytes < a->size) return EINVAL;
  if (flags & (k::kAllocMemVram | k::kAllocMemGtt)) {
    const bool vram = (flags & k::kAllocMemVram) != 0;
    if (vram && (g.vram_used > desc.vram_bytes || bytes > desc.vram_bytes - g.vram_used)) {
      return ENOMEM;
    }
    if (!vram && desc.gtt_bytes != 0 &&
        (g.gtt_used > desc.gtt_bytes || bytes > desc.gtt_bytes - g.gtt_used)) {
      return ENOMEM;
    }
    auto s = std::make_shared<Storage>();
    s->gpu = gpu;
    s->size = bytes;
    s->refs = 1;
    if (int r = AllocBacking(gpu, bytes, &s->offset)) return r;
    bo.storage = s;
    bo.counts_vram = vram;
    bo.mmap_offset = s->offset;
    (vram ? g.vram_used : g.gtt_used) += bytes;
  } else if (flags & k::kAllocMemUserptr) {
    bo.userptr = a->mmap_offset;
    bo.mmap_offset = a->mmap_offset;
  } else if (flags & k::kAllocMemDoorbell) {
    if (int r = EnsureDoorbellPage(gpu)) return r;
    bo.mmap_offset = MmapOffset(k::kMmapTypeDoorbell, desc.gpu_id);
  } else if (flags & k::kAllocMemMmioRemap) {
    if (int r = EnsureFd(&g.mmio_fd, "kfdsim-mmio", page_size_)) return r;
    bo.mmap_offset = MmapOffset(k::kMmapTypeMmio, desc.gpu_id);
  } else {
    return EINVAL;  // no memory domain
  }
  a->mmap_offset = bo.mmap_offset;
  const uint32_t idx = AddBoLocked(g, std::move(bo));
  a->handle = (static_cast<uint64_t>(desc.gpu_id) << 32) | idx;
  return 0;
}

int Simulator::IocFreeMemory(IoctlCtx&, void* d) {
  auto* a = static_cast<k::FreeMemoryOfGpuArgs*>(d);
  std::lock_guard<std::mutex> pl(proc_mu_);
  if (event_page_handle_ != 0 && a->handle == event_page_handle_) return EPERM;
  const int gpu = GpuIndex(static_cast<uint32_t>(a->handle >> 32));
  if (gpu < 0) return EINVAL;
  GpuProc& g = gpus_[static_cast<size_t>(gpu)];
  const uint32_t idx = static_cast<uint32_t>(a->handle);
  Bo* found = g.bos.Find(idx);
  if (found == nullptr) return EINVAL;
  Bo& bo = *found;
  if (QueueHoldsLocked(-1, bo)) return EBUSY;  // a live queue's buffer (queue_buffers.cc)
  if (bo.storage) {
    const uint64_t bytes = AlignUp(bo.size, page_size_);
    if (bo.counts_vram) {
      g.vram_used -= std::min(g.vram_used, bytes);
    } else if (bo.flags & k::kAllocMemGtt) {
      g.gtt_used -= std::min(g.gtt_used, bytes);
    }
    DropStorage(bo.storage);
  }
  EraseBoLocked(g, idx);
  return 0;
}

namespace {

template <typename Args>
int MapUnmapCommon(Args* a, std::vector<uint32_t>* ids) {
  if (a->n_devices == 0) return EINVAL;
  if (a->n_success > a->n_devices) return EINVAL;
  if (a->n_devices > (1u << 20)) return ENOMEM;
  ids->resize(a->n_devices);
  return UserRead(ids->data(), a->device_ids_array_ptr, ids->size() * sizeof(uint32_t));
}

}  // namespace

int Simulator::IocMapMemory(IoctlCtx&, void* d) {
  auto* a = static_cast<k::MapMemoryToGpuArgs*>(d);
  std::vector<uint32_t> ids;
  if (int r = MapUnmapCommon(a, &ids)) return r;
  std::lock_guard<std::mutex> pl(proc_mu_);
  const int gpu = GpuIndex(static_cast<uint32_t>(a->handle >> 32));
  if (gpu < 0) return EINVAL;
  if (int r = Bind(gpu)) return r;
  GpuProc& g = gpus_[static_cast<size_t>(gpu)];
  Bo* found = g.bos.Find(static_cast<uint32_t>(a->handle));
  if (found == nullptr) return ENOMEM;
  Bo& bo = *found;
  for (uint32_t i = a->n_success; i < a->n_devices; ++i) {
    const int peer = GpuIndex(ids[i]);
    if (peer < 0) return EINVAL;
    if (int r = Bind(peer)) return r;
    if (std::find(bo.mapped.begin(), bo.mapped.end(), ids[i]) == bo.mapped.end()) {
      bo.mapped.push_back(ids[i]);
    }
    a->n_success = i + 1;
  }
  return 0;
}

int Simulator::IocUnmapMemory(IoctlCtx&, void* d) {
  auto* a = static_cast<k::UnmapMemoryFromGpuArgs*>(d);
  std::vector<uint32_t> ids;
  if (int r = MapUnmapCommon(a, &ids)) return r;
  std::lock_guard<std::mutex> pl(proc_mu_);
  const int gpu = GpuIndex(static_cast<uint32_t>(a->handle >> 32));
  if (gpu < 0) return EINVAL;
  if (int r = Bind(gpu)) return r;
  GpuProc& g = gpus_[static_cast<size_t>(gpu)];
  Bo* found = g.bos.Find(static_cast<uint32_t>(a->handle));
  if (found == nullptr) return ENOMEM;
  Bo& bo = *found;
  for (uint32_t i = a->n_success; i < a->n_devices; ++i) {
    const int peer = GpuIndex(ids[i]);
    if (peer < 0) return EINVAL;
    if (int r = Bind(peer)) return r;
    auto m = std::find(bo.mapped.begin(), bo.mapped.end(), ids[i]);
    if (m == bo.mapped.end()) return EINVAL;  // not mapped on that VM
    if (QueueHoldsLocked(peer, bo)) return EBUSY;  // a live queue's buffer there
    bo.mapped.erase(m);
    a->n_success = i + 1;
  }
  return 0;
}

int Simulator::IocAvailableMemory(IoctlCtx&, void* d) {
  auto* a = static_cast<k::GetAvailableMemoryArgs*>(d);
  std::lock_guard<std::mutex> pl(proc_mu_);
  const int gpu = GpuIndex(a->gpu_id);
  if (gpu < 0) return EINVAL;
  const GpuDesc& desc = board_.desc.gpus[static_cast<size_t>(gpu)];
  const GpuProc& g = gpus_[static_cast<size_t>(gpu)];
  if (desc.is_apu) {
    a->available = desc.gtt_bytes > g.gtt_used ? desc.gtt_bytes - g.gtt_used : 0;
  } else {
    a->available = desc.vram_bytes > g.vram_used ? desc.vram_bytes - g.vram_used : 0;
  }
  return 0;
}

// dma-buf: EXPORT gives a fresh memfd standing for the BO (recognised by
// inode; core/gem.cc NewDmabufLocked); render-node exports (gem.cc) are
// dma-bufs too. GET_DMABUF_INFO describes one, IMPORT makes a new handle on
// the same storage of the same GPU. Kernel facts (kfd_ioctl_get_dmabuf_info,
// amdgpu_amdkfd_get_dmabuf_info): only VRAM or GTT BOs (else EINVAL); the
// flags are VRAM or GTT by the preferred domains, plus PUBLIC for
// CPU_ACCESS_REQUIRED; with a metadata_ptr the metadata size is written
// (also when the buffer is too small: EINVAL, gpu_id and flags left as
// passed) and the bytes copied; without one, metadata_size is left as
// passed. Importing on another GPU and foreign dma-bufs are not
// supported (EINVAL).
int Simulator::IocExportDmabuf(IoctlCtx&, void* d) {
  auto* a = static_cast<k::ExportDmabufArgs*>(d);
  std::lock_guard<std::mutex> pl(proc_mu_);
  const int gpu = GpuIndex(static_cast<uint32_t>(a->handle >> 32));
  if (gpu < 0) return EINVAL;
  if (int r = Bind(gpu)) return r;
  GpuProc& g = gpus_[static_cast<size_t>(gpu)];
  const Bo* bo = g.bos.Find(static_cast<uint32_t>(a->handle));
  if (bo == nullptr || !bo->storage) return EINVAL;
  // Published machine-wide so another process can import the descriptor
  // (best effort: without a registry the dma-buf stays process-local).
  (void)PublishLocked(bo->storage, bo->flags);
  int fd = -1;
  if (int r = NewDmabufLocked(bo->storage, bo->flags, nullptr,
                              (a->flags & O_CLOEXEC) != 0, &fd, nullptr)) {
    return r;
  }
  a->dmabuf_fd = static_cast<uint32_t>(fd);
  return 0;
}

namespace {
bool DmabufKey(uint32_t fd, FileKey* key) {
  struct stat st{};
  if (fstat(static_cast<int>(fd), &st) != 0) return false;
  *key = FileKey{static_cast<uint64_t>(st.st_dev), static_cast<uint64_t>(st.st_ino)};
  return true;
}
}  // namespace

int Simulator::IocGetDmabufInfo(IoctlCtx&, void* d) {
  auto* a = static_cast<k::GetDmabufInfoArgs*>(d);
  std::lock_guard<std::mutex> pl(proc_mu_);
  FileKey key;
  if (!DmabufKey(a->dmabuf_fd, &key)) return EINVAL;
  auto it = dmabufs_.find(key);
  ShareKey share;
  if (it == dmabufs_.end() && ForeignDmabufKey(a->dmabuf_fd, &share)) {
    // Another process's KFD export (share.cc): no metadata.
    ShareInfo info;
    if (SharesLocked() == nullptr || shares_->Lookup(share, &info) != 0 || GpuIndex(info.gpu_id) < 0) {
      return EINVAL;
    }
    a->size = info.size;
    if (a->metadata_ptr != 0) a->metadata_size = 0;
    a->gpu_id = info.gpu_id;
    a->flags = info.flags & (k::kAllocMemVram | k::kAllocMemGtt | k::kAllocMemPublic);
    return 0;
  }
  if (it == dmabufs_.end()) return EINVAL;
  const Dmabuf& buf = it->second;
  const uint32_t flags = DmabufKfdFlags(buf);
  if ((flags & (k::kAllocMemVram | k::kAllocMemGtt)) == 0) return EINVAL;
  a->size = buf.storage->size;
  if (a->metadata_ptr != 0) {
    static const std::vector<uint8_t> kNone;
    const std::vector<uint8_t>& meta = buf.gem ? buf.gem->metadata : kNone;
    const uint32_t capacity = a->metadata_size;
    a->metadata_size = static_cast<uint32_t>(meta.size());
    if (capacity < meta.size()) return EINVAL;
    if (!meta.empty() && UserWrite(a->metadata_ptr, meta.data(), meta.size()) != 0) return EFAULT;
  }
  a->gpu_id = board_.desc.gpus[static_cast<size_t>(buf.storage->gpu)].gpu_id;
  a->flags = flags;
  return 0;
}

int Simulator::IocImportDmabuf(IoctlCtx&, void* d) {
  auto* a = static_cast<k::ImportDmabufArgs*>(d);
  std::lock_guard<std::mutex> pl(proc_mu_);
  const int gpu = GpuIndex(a->gpu_id);
  if (gpu < 0) return EINVAL;
  if (int r = Bind(gpu)) return r;
  FileKey key;
  if (!DmabufKey(a->dmabuf_fd, &key)) return EINVAL;
  auto it = dmabufs_.find(key);
  ShareKey share;
  if (it == dmabufs_.end() && ForeignDmabufKey(a->dmabuf_fd, &share)) {
    // Another process's KFD export (share.cc).
    std::shared_ptr<Storage> s;
    ShareInfo info;
    if (int r = ImportShareLocked(share, gpu, &s, &info)) return r;
    const uint32_t flags = info.flags & (k::kAllocMemVram | k::kAllocMemGtt | k::kAllocMemPublic);
    a->handle = AddAliasBo(gpu, a->gpu_id, a->va_addr, s, flags);
    return 0;
  }
  if (it == dmabufs_.end() || it->second.storage->gpu != gpu) return EINVAL;
  uint32_t flags = DmabufKfdFlags(it->second);
  if ((flags & (k::kAllocMemVram | k::kAllocMemGtt)) == 0) return EINVAL;
  // A render-node BO becomes a writable, executable KFD BO of its domain.
  if (it->second.gem) flags |= k::kAllocMemWritable | k::kAllocMemExecutable;
  a->handle = AddAliasBo(gpu, a->gpu_id, a->va_addr, it->second.storage, flags);
  return 0;
}

// A new handle on an existing storage (dma-buf and IPC imports).
uint64_t Simulator::AddAliasBo(int gpu, uint32_t gpu_id, uint64_t va,
                               const std::shared_ptr<Storage>& storage, uint32_t flags) {
  GpuProc& g = gpus_[static_cast<size_t>(gpu)];
  Bo bo;
  bo.va = va;
  bo.size = storage->size;
  bo.flags = flags;
  bo.storage = storage;
  bo.storage->refs++;
  bo.mmap_offset = bo.storage->offset;
  const uint32_t idx = AddBoLocked(g, std::move(bo));
  return (static_cast<uint64_t>(gpu_id) << 32) | idx;
}

// IPC share handles (the DKMS driver's IPC_EXPORT/IMPORT_HANDLE): EXPORT
// gives 4 words naming the BO's storage (the same words for every export
// of a BO, as the driver keeps one IPC object per BO); IMPORT of those
// words on the same GPU, in this or another process of the machine
// (share.cc), makes a new handle on the same storage at the given VA.
// Unknown words, another GPU, userptr/doorbell/MMIO BOs -> EINVAL. A share
// lives as long as a BO of its storage does in some process (no release
// ioctl exists). Without a share registry (its file cannot be opened) the
// words are known to this process only, and live as long as it.
int Simulator::IocIpcExport(IoctlCtx&, void* d) {
  auto* a = static_cast<k::IpcExportHandleArgs*>(d);
  std::lock_guard<std::mutex> pl(proc_mu_);
  const int gpu = GpuIndex(a->gpu_id);
  if (gpu < 0 || static_cast<uint32_t>(a->handle >> 32) != a->gpu_id) return EINVAL;
  if (int r = Bind(gpu)) return r;
  GpuProc& g = gpus_[static_cast<size_t>(gpu)];
  const Bo* bo = g.bos.Find(static_cast<uint32_t>(a->handle));
  if (bo == nullptr || !bo->storage) return EINVAL;
  const std::shared_ptr<Storage>& storage = bo->storage;
  // The machine-wide share words (share.cc); without a registry, words
  // only this process knows.
  std::array<uint32_t, 4> key{0x4b465349u /* "KFSI" */, a->gpu_id, ++ipc_serial_,
                              static_cast<uint32_t>(storage->offset >> 12)};
  if (PublishLocked(storage, bo->flags) == 0) {
    // The share lives as long as a BO of the storage does, in any process.
    for (int i = 0; i < 4; ++i) a->share_handle[i] = storage->share[static_cast<size_t>(i)];
    return 0;
  }
  IpcShare share;
  share.storage = bo->storage;
  share.storage->refs++;
  share.flags = bo->flags;
  ipc_[key] = share;
  for (int i = 0; i < 4; ++i) a->share_handle[i] = key[static_cast<size_t>(i)];
  return 0;
}

int Simulator::IocIpcImport(IoctlCtx&, void* d) {
  auto* a = static_cast<k::IpcImportHandleArgs*>(d);
  std::lock_guard<std::mutex> pl(proc_mu_);
  const int gpu = GpuIndex(a->gpu_id);
  if (gpu < 0) return EINVAL;
  if (int r = Bind(gpu)) return r;
  const std::array<uint32_t, 4> key{a->share_handle[0], a->share_handle[1], a->share_handle[2],
                                    a->share_handle[3]};
  auto it = ipc_.find(key);
  if (it == ipc_.end()) {
    // Another process's share (share.cc), or one this process imported already.
    std::shared_ptr<Storage> s;
    ShareInfo info;
    if (int r = ImportShareLocked(key, gpu, &s, &info)) return r;
    a->handle = AddAliasBo(gpu, a->gpu_id, a->va_addr, s, info.flags);
    a->mmap_offset = s->offset;
    a->flags = info.flags;
    return 0;
  }
  if (it->second.storage->gpu != gpu) return EINVAL;
  a->handle = AddAliasBo(gpu, a->gpu_id, a->va_addr, it->second.storage, it->second.flags);
  a->mmap_offset = it->second.storage->offset;
  a->flags = it->second.flags;
  return 0;
}

// ---- mmap ----

int Simulator::MmapKfd(void* addr, size_t length, int prot, int flags, uint64_t offset,
                       void** out) {
  const uint32_t type = static_cast<uint32_t>(offset >> k::kMmapTypeShift);
  const uint32_t gpu_id16 = static_cast<uint32_t>((offset & k::kMmapGpuIdMask) >> k::kMmapGpuIdShift);
  int fd = -1;
  uint64_t file_off = 0;
  if (type == k::kMmapTypeEvents) {
    std::lock_guard<std::mutex> el(ev_mu_);
    if (length > k::kMaxEventsMapping) return EINVAL;
    if (page_fd_ < 0) return EINVAL;  // no signal page yet
    void* p = mmap(addr, length, prot, flags, page_fd_, static_cast<off_t>(page_fd_offset_));
    if (p == MAP_FAILED) return errno;
    signal_mapped_size_ = length;
    *out = p;
    return 0;
  }
  std::lock_guard<std::mutex> pl(proc_mu_);
  int gpu = -1;
  for (size_t i = 0; i < board_.desc.gpus.size(); ++i) {
    if ((board_.desc.gpus[i].gpu_id & 0xFFFFu) == gpu_id16) gpu = static_cast<int>(i);
  }
  if (gpu < 0) return ENODEV;
  GpuProc& g = gpus_[static_cast<size_t>(gpu)];
  void* p = MAP_FAILED;
  switch (type) {
    case k::kMmapTypeDoorbell:
      if (length != DoorbellSlice(gpu)) return EINVAL;
      if (int r = EnsureDoorbellPage(gpu)) return r;
      fd = g.doorbell_fd;
      break;
    case k::kMmapTypeMmio:
      if (length != page_size_ || page_size_ != 4096) return EINVAL;
      if (int r = EnsureFd(&g.mmio_fd, "kfdsim-mmio", page_size_)) return r;
      fd = g.mmio_fd;
      break;
    default:  // RESERVED_MEM: the CWSR trap-handler pages (TBA + TMA)
      if (length != 2 * page_size_) return EINVAL;
      p = mmap(addr, length, prot, (flags & ~MAP_PRIVATE) | MAP_SHARED | MAP_ANONYMOUS, -1, 0);
      if (p == MAP_FAILED) return errno;
      *out = p;
      return 0;
  }
  p = mmap(addr, length, prot, flags, fd, static_cast<off_t>(file_off));
  if (p == MAP_FAILED) return errno;
  *out = p;
  return 0;
}

int Simulator::MmapRender(const IoctlCtx& ctx, void* addr, size_t length, int prot, int flags,
                          uint64_t offset, void** out) {
  std::lock_guard<std::mutex> pl(proc_mu_);
  GpuProc& g = gpus_[static_cast<size_t>(ctx.gpu)];
  if (length == 0) return EINVAL;
  // A render-node BO this file holds a handle to (core/gem.cc).
  const int gem = MmapGemLocked(ctx, addr, length, prot, flags, offset, out);
  if (gem != ENOENT) return gem;
  const uint64_t len = AlignUp(length, page_size_);
  const Storage* hit = BoStorageAtLocked(g, offset);
  if (hit == nullptr) return EINVAL;  // no BO at this offset
  // KFD BOs are accessible only through the DRM file the VM was acquired on.
  if (!g.vm_acquired || !(g.vm_file == ctx.key)) return EACCES;
  if (offset + len > hit->offset + hit->size) return EINVAL;
  const uint64_t file_off = StorageFileOffset(*hit) + (offset - hit->offset);
  void* p = mmap(addr, length, prot, flags, StorageFd(*hit), static_cast<off_t>(file_off));
  if (p == MAP_FAILED) return errno;
  *out = p;
  return 0;
}

int Simulator::MemoryUsage(uint32_t gpu_id, uint64_t* vram_used, uint64_t* gtt_used) {
  std::lock_guard<std::mutex> pl(proc_mu_);
  DmabufCollectLocked();  // dma-bufs nobody holds no longer keep memory
  const int gpu = GpuIndex(gpu_id);
  if (gpu < 0) return EINVAL;
  if (vram_used != nullptr) *vram_used = gpus_[static_cast<size_t>(gpu)].vram_used;
  if (gtt_used != nullptr) *gtt_used = gpus_[static_cast<size_t>(gpu)].gtt_used;
  return 0;
}

size_t Simulator::BoCount() {
  std::lock_guard<std::mutex> pl(proc_mu_);
  size_t n = 0;
  for (const GpuProc& g : gpus_) n += g.bos.size();
  return n;
}

bool Simulator::VmAcquired(uint32_t gpu_id) {
  std::lock_guard<std::mutex> pl(proc_mu_);
  const int gpu = GpuIndex(gpu_id);
  return gpu >= 0 && gpus_[static_cast<size_t>(gpu)].vm_acquired;
}

}  // namespace kfdsim
