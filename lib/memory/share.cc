// Sharing memory: dma-buf import (hsaKmtRegisterGraphicsHandleToNodes),
// IPC share handles (hsaKmtShareMemory / hsaKmtRegisterSharedHandle).
//
// Graphics import: GET_DMABUF_INFO names the exporting GPU, the size and the
// allocation flags; the import gets a VA 256 KiB aligned in the SVM space
// when nodes are given or the caller requires an address, otherwise in the
// handle aperture (the KFD then gets va 0 and the buffer cannot be mapped),
// and IMPORT_DMABUF makes the BO. The metadata comes back in the same
// GET_DMABUF_INFO, into a 256-byte buffer on the stack (the most amdgpu
// keeps per BO, so one call always suffices; upstream tries 64 bytes, then
// the size the kernel asks for); a blob is then kept in one of the
// context's fixed metadata slots (config::kMaxGraphicsMetadata) until the
// import is deregistered, and HsaGraphicsResourceInfo::Metadata points
// there. A dma-buf without metadata reports NULL and size 0 (upstream: a
// zeroed 64-byte buffer and size 0). All slots taken: RESOURCE_EXHAUSTED,
// nothing imported.
//
// IPC: the share handle (8 words) holds the KFD's 4 share words, the
// aperture kind the buffer lives in, its size in pages and the exporting
// gpu_id. Import reserves VA of that size in the same kind of aperture,
// issues IPC_IMPORT_HANDLE on the exporting GPU and, when the buffer is
// host-accessible (GTT, or VRAM with PUBLIC), maps it from the render node;
// QueryPointerInfo then reports the flags the KFD returned as HsaMemFlags
// and a CPU address only for a CPU-mapped import. These ioctls exist only in AMD's DKMS driver; an upstream
// kernel answers ENOTTY, reported as HSAKMT_STATUS_ERROR by the API (as
// upstream does).
#include "lib/core/checked.h"
#include "lib/core/errno.h"
#include "lib/core/text.h"
#include "lib/device/kfd_device.h"
#include "lib/memory/memory_internal.h"

namespace hke::memory {

using namespace internal;

namespace {

constexpr uint64_t kGraphicsAlign = 256 * 1024;

uint16_t GpuOfId(const MemoryState& m, uint32_t gpu_id) {
  for (uint16_t g = 0; g < m.num_gpus; ++g) {
    if (m.gpus[g].gpu_id == gpu_id) return g;
  }
  return kNoGpu;
}

// The HsaMemFlags an imported buffer reports, from its KFD allocation flags.
uint32_t MemFlagsOf(uint32_t kfd_flags) {
  HsaMemFlags f;
  f.Value = 0;
  const bool vram = (kfd_flags & kfd::kAllocMemVram) != 0;
  const bool gtt = (kfd_flags & kfd::kAllocMemGtt) != 0;
  f.ui32.NonPaged = (vram || gtt) ? 1 : 0;
  f.ui32.HostAccess = (gtt || (vram && (kfd_flags & kfd::kAllocMemPublic) != 0)) ? 1 : 0;
  f.ui32.ReadOnly = (kfd_flags & kfd::kAllocMemWritable) == 0 ? 1 : 0;
  f.ui32.ExecuteAccess = (kfd_flags & kfd::kAllocMemExecutable) != 0 ? 1 : 0;
  f.ui32.CoarseGrain = (kfd_flags & kfd::kAllocMemCoherent) == 0 ? 1 : 0;
  f.ui32.Uncached = (kfd_flags & kfd::kAllocMemUncached) != 0 ? 1 : 0;
  f.ui32.ExtendedCoherent = (kfd_flags & kfd::kAllocMemExtCoherent) != 0 ? 1 : 0;
  f.ui32.AQLQueueMemory = (kfd_flags & kfd::kAllocMemAqlQueueMem) != 0 ? 1 : 0;
  return f.Value;
}

void RegisterTo(MemObject* o, const GpuSet& set) {
  o->registered = set;
  o->registered_explicitly = true;
}

// The common end of an import: with the kernel call's status `s`, either
// index the object holding `handle`, or undo everything (the BO too, once
// made) and return the failure.
Status FinishImport(Context& ctx, MemoryState& m, MemObject* o, uint32_t slot, const VaRange& r,
                    uint64_t handle, Status s) {
  if (s.ok()) {
    o->handle = handle;
    s = Index(ctx, m, o);
    if (!s.ok()) (void)FreeBo(ctx, handle);
  }
  if (!s.ok()) {
    o->handle = 0;
    (void)ReleaseVa(ctx, m, r);
    ReleaseSlot(m, slot);
  }
  return s;
}

// Share-handle layout (HsaSharedMemoryHandle words).
constexpr uint32_t kWordKind = 4, kWordPages = 5, kWordGpu = 6, kWordMagic = 7;
constexpr uint32_t kShareMagic = 0x48534831u;  // "HSH1"

}  // namespace

Status RegisterGraphics(Context& ctx, const GraphicsArgs& a, HsaGraphicsResourceInfo* out) {
  if (out == nullptr) return InvalidArgument();
  HKE_RETURN_IF_ERROR(device::CheckOpen(ctx));
  if (a.dmabuf_fd > 0x7fffffffu) return InvalidArgument();
  if (a.nodes == nullptr && a.num_nodes != 0) return InvalidArgument();
  HKE_RETURN_IF_ERROR(EnsureVm(ctx));
  LockGuard lock(ctx.memory_lock());
  MemoryState& m = ctx.memory();
  GpuSet set;
  set.Clear();
  if (a.nodes != nullptr) HKE_RETURN_IF_ERROR(NodesToGpus(ctx, m, a.nodes, a.num_nodes, &set));

  alignas(8) unsigned char meta[kGraphicsMetadataBytes];
  kfd::GetDmabufInfoArgs info{};
  info.dmabuf_fd = static_cast<uint32_t>(a.dmabuf_fd);
  info.metadata_ptr = reinterpret_cast<uintptr_t>(meta);
  info.metadata_size = sizeof(meta);
  Status s = device::Ioctl(ctx, &info);
  if (!s.ok() && info.metadata_size > sizeof(meta)) {
    return ctx.diag().Error(Protocol(), kArea,
                            "GET_DMABUF_INFO asks for more metadata than amdgpu keeps (256 bytes)");
  }
  if (!s.ok()) return ctx.diag().Error(s, kArea, "GET_DMABUF_INFO failed");
  if (info.metadata_size > sizeof(meta)) {
    return ctx.diag().Error(Protocol(), kArea,
                            "GET_DMABUF_INFO reports more metadata than the buffer it was given");
  }
  uint32_t meta_slot = config::kMaxGraphicsMetadata;
  if (info.metadata_size != 0) {
    for (uint32_t i = 0; i < config::kMaxGraphicsMetadata; ++i) {
      if (!m.metadata[i].in_use) {
        meta_slot = i;
        break;
      }
    }
    if (meta_slot == config::kMaxGraphicsMetadata) {
      FixedText<128> t;
      t.Append("all ").AppendU64(config::kMaxGraphicsMetadata).Append(
          " graphics metadata slots are in use (raise hke::config::kMaxGraphicsMetadata)");
      return ctx.diag().Error(Exhausted(), kArea, t.c_str());
    }
  }
  const uint16_t gpu = GpuOfId(m, info.gpu_id);
  uint64_t size = 0;
  if (gpu == kNoGpu || info.size == 0 || !CheckedAlignUp(info.size, uint64_t{m.page_size}, &size)) {
    return ctx.diag().Error(Protocol(), kArea, "GET_DMABUF_INFO named no GPU of this process or no size");
  }
  const bool with_va = a.nodes != nullptr || a.requires_va;
  uint32_t slot = kNoSlot;
  HKE_RETURN_IF_ERROR(TakeSlot(ctx, m, &slot));
  MemObject* o = &m.objects[slot];
  VaRange r{};
  const VaSource src = !with_va ? VaSource::kHandleArena
                                : (m.reserved_mode ? VaSource::kSvmArena : VaSource::kMmap);
  s = ReserveVaForSlot(ctx, m, slot, src, size, with_va ? kGraphicsAlign : m.page_size, 0, &r);
  HKE_RETURN_IF_ERROR(s);
  kfd::ImportDmabufArgs imp{};
  imp.va_addr = with_va ? r.va : 0;
  imp.gpu_id = info.gpu_id;
  imp.dmabuf_fd = static_cast<uint32_t>(a.dmabuf_fd);
  s = device::Ioctl(ctx, &imp);
  if (!s.ok()) s = ctx.diag().Error(s, kArea, "IMPORT_DMABUF failed");
  if (s.ok() && (kfd::HandleGpuId(imp.handle) != info.gpu_id || HandleHeld(m, imp.handle))) {
    s = ctx.diag().Error(Protocol(), kArea,
                         "IMPORT_DMABUF returned a handle of another GPU or of a live buffer");
  }
  o->kind = ObjectKind::kDmabufImport;
  o->va = r.va;
  o->size = size;
  o->request_size = info.size;
  o->reserve_base = r.reserve_base;
  o->reserve_size = r.reserve_size;
  o->va_source = r.source;
  o->gpu = gpu;
  o->node = m.gpus[gpu].node;
  o->mem_flags = MemFlagsOf(info.flags);
  o->register_count = 1;
  if (a.nodes != nullptr) RegisterTo(o, set);
  HKE_RETURN_IF_ERROR(FinishImport(ctx, m, o, slot, r, imp.handle, s));
  HsaGraphicsResourceInfo res{};
  res.MemoryAddress = reinterpret_cast<void*>(static_cast<uintptr_t>(r.va));
  res.SizeInBytes = info.size;
  res.Metadata = nullptr;
  res.MetadataSizeInBytes = 0;
  if (meta_slot != config::kMaxGraphicsMetadata) {
    GraphicsMetadata& g = m.metadata[meta_slot];
    for (uint32_t i = 0; i < info.metadata_size; ++i) g.bytes[i] = meta[i];
    g.size = info.metadata_size;
    g.in_use = true;
    o->metadata = static_cast<uint16_t>(meta_slot + 1);
    res.Metadata = g.bytes;
    res.MetadataSizeInBytes = g.size;
  }
  res.NodeId = o->node;
  *out = res;
  return Status::Ok();
}

Status ShareMemory(Context& ctx, uint64_t addr, uint64_t size, HsaSharedMemoryHandle* out) {
  if (out == nullptr) return InvalidArgument();
  HKE_RETURN_IF_ERROR(device::CheckOpen(ctx));
  if (addr == 0) return InvalidArgument();
  HKE_RETURN_IF_ERROR(EnsureVm(ctx));
  LockGuard lock(ctx.memory_lock());
  MemoryState& m = ctx.memory();
  MemObject* o = nullptr;
  const Status found = FindForCall(ctx, m, addr, 0, Owner::kCaller, "ShareMemory", &o);
  if (!found.ok() && !found.is_api(HKE_STATUS_NOT_FOUND)) return found;
  if (o == nullptr || o->handle == 0 || o->gpu == kNoGpu || IsInternal(o->kind) ||
      o->kind == ObjectKind::kUserptr) {
    return ctx.diag().Error(NotFound(), kArea, "ShareMemory: no shareable buffer starts there");
  }
  const uint64_t pages = o->size / m.page_size;
  if (size > o->size || pages > 0xffffffffu) {
    return ctx.diag().Error(OutOfRange(), kArea, "ShareMemory: the size does not fit the handle");
  }
  kfd::IpcExportHandleArgs e{};
  e.handle = o->handle;
  e.gpu_id = m.gpus[o->gpu].gpu_id;
  e.flags = o->mem_flags;
  const Status s = device::Ioctl(ctx, &e);
  if (!s.ok()) return ctx.diag().Error(s, kArea, "IPC_EXPORT_HANDLE failed");
  HsaSharedMemoryHandle h = {};
  for (uint32_t i = 0; i < 4; ++i) h[i] = e.share_handle[i];
  h[kWordKind] = static_cast<uint32_t>(o->va_source == VaSource::kHandleArena ? VaSource::kHandleArena
                                                                              : VaSource::kMmap);
  h[kWordPages] = static_cast<uint32_t>(pages);
  h[kWordGpu] = e.gpu_id;
  h[kWordMagic] = kShareMagic;
  for (uint32_t i = 0; i < 8; ++i) (*out)[i] = h[i];
  return Status::Ok();
}

Status RegisterShared(Context& ctx, const HsaSharedMemoryHandle* handle, const uint32_t* nodes,
                      uint32_t num_nodes, uint64_t* out_addr, uint64_t* out_size) {
  if (out_addr == nullptr || out_size == nullptr) return InvalidArgument();
  HKE_RETURN_IF_ERROR(device::CheckOpen(ctx));
  if (handle == nullptr || (nodes == nullptr && num_nodes != 0)) return InvalidArgument();
  const HSAuint32* h = *handle;
  if (h[kWordMagic] != kShareMagic || h[kWordPages] == 0) {
    return InvalidArgument();
  }
  HKE_RETURN_IF_ERROR(EnsureVm(ctx));
  LockGuard lock(ctx.memory_lock());
  MemoryState& m = ctx.memory();
  GpuSet set;
  set.Clear();
  if (nodes != nullptr) HKE_RETURN_IF_ERROR(NodesToGpus(ctx, m, nodes, num_nodes, &set));
  const uint16_t gpu = GpuOfId(m, h[kWordGpu]);
  if (gpu == kNoGpu) {
    return ctx.diag().Error(InvalidArgument(), kArea, "the share handle names a GPU this process does not see");
  }
  uint64_t size = 0;
  if (!CheckedMul(uint64_t{h[kWordPages]}, uint64_t{m.page_size}, &size)) return Overflow();
  const bool no_address = h[kWordKind] == static_cast<uint32_t>(VaSource::kHandleArena);
  uint32_t slot = kNoSlot;
  HKE_RETURN_IF_ERROR(TakeSlot(ctx, m, &slot));
  MemObject* o = &m.objects[slot];
  VaRange r{};
  const VaSource src = no_address ? VaSource::kHandleArena
                                  : (m.reserved_mode ? VaSource::kSvmArena : VaSource::kMmap);
  Status s = ReserveVaForSlot(ctx, m, slot, src, size, AutoAlign(m, size, 0), 0, &r);
  HKE_RETURN_IF_ERROR(s);
  kfd::IpcImportHandleArgs imp{};
  for (uint32_t i = 0; i < 4; ++i) imp.share_handle[i] = h[i];
  imp.va_addr = no_address ? 0 : r.va;
  imp.gpu_id = h[kWordGpu];
  s = device::Ioctl(ctx, &imp);
  if (!s.ok()) s = ctx.diag().Error(s, kArea, "IPC_IMPORT_HANDLE failed");
  // A handle of another GPU or of a live buffer is not ours to free.
  if (s.ok() && (kfd::HandleGpuId(imp.handle) != imp.gpu_id || HandleHeld(m, imp.handle))) {
    s = ctx.diag().Error(Protocol(), kArea,
                         "IPC_IMPORT_HANDLE returned a handle of another GPU or of a live buffer");
  }
  if (s.ok() && (imp.mmap_offset & (static_cast<uint64_t>(m.page_size) - 1)) != 0) {
    (void)FreeBo(ctx, imp.handle);
    s = ctx.diag().Error(Protocol(), kArea, "IPC_IMPORT_HANDLE returned an unaligned mmap offset");
  }
  HsaMemFlags imported;
  imported.Value = MemFlagsOf(imp.flags);
  if (s.ok() && !no_address && imported.ui32.HostAccess) {
    void* got = nullptr;
    s = ctx.platform().Mmap(reinterpret_cast<void*>(static_cast<uintptr_t>(r.va)),
                            static_cast<size_t>(size), HKE_PROT_READ | HKE_PROT_WRITE,
                            HKE_MAP_SHARED | HKE_MAP_FIXED, m.gpus[gpu].render_fd, imp.mmap_offset,
                            &got);
    if (!s.ok()) {
      (void)FreeBo(ctx, imp.handle);
      s = ctx.diag().Error(s, kArea, "cannot map the imported buffer");
    }
  }
  o->kind = ObjectKind::kDmabufImport;
  o->ipc_import = true;
  o->mem_flags = imported.Value;
  AdoptVa(o, r);
  o->size = size;
  o->request_size = size;
  o->gpu = gpu;
  o->node = m.gpus[gpu].node;
  o->mmap_offset = imp.mmap_offset;
  o->register_count = 1;
  if (nodes != nullptr) RegisterTo(o, set);
  HKE_RETURN_IF_ERROR(FinishImport(ctx, m, o, slot, r, imp.handle, s));
  *out_addr = r.va;
  *out_size = size;
  return Status::Ok();
}

}  // namespace hke::memory
