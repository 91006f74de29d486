// Kernel buffer objects: ALLOC/FREE/MAP/UNMAP_MEMORY_OF_GPU with the
// replies checked, and the release of a whole memory object.
#include "lib/core/errno.h"
#include "lib/core/text.h"
#include "lib/device/kfd_device.h"
#include "lib/memory/memory_internal.h"

namespace hke::memory::internal {

Status AllocBo(Context& ctx, const MemoryState& m, uint16_t gpu, uint32_t kfd_flags, uint64_t va,
               uint64_t size, uint64_t userptr, uint64_t* out_handle,
               uint64_t* out_mmap_offset) {
  kfd::AllocRequest req{};
  req.gpu_id = m.gpus[gpu].gpu_id;
  req.flags = kfd_flags;
  req.va_addr = va;
  req.size = size;
  req.userptr = userptr;
  req.page_size = m.page_size;
  kfd::AllocMemoryOfGpuArgs sent{};
  Status s = kfd::EncodeAllocMemoryOfGpu(req, &sent);
  if (!s.ok()) return ctx.diag().Error(s, kArea, "the allocation request is invalid");
  kfd::AllocMemoryOfGpuArgs reply = sent;
  s = device::Ioctl(ctx, &reply);
  if (!s.ok()) return ctx.diag().Failed(s, kArea, "ALLOC_MEMORY_OF_GPU");
  kfd::AllocResult r{};
  if (HandleHeld(m, reply.handle)) {
    // A BO this library already holds: never free it; whatever the kernel
    // really made cannot be named.
    return ctx.diag().Error(Protocol(), kArea,
                            "ALLOC_MEMORY_OF_GPU reply is malformed: the handle of a live buffer");
  }
  s = kfd::DecodeAllocMemoryOfGpu(sent, reply, &r);
  if (!s.ok()) {
    // The kernel created something we cannot describe; release it if the
    // handle at least names our GPU, so nothing leaks.
    if (kfd::HandleGpuId(reply.handle) == req.gpu_id) (void)FreeBo(ctx, reply.handle);
    return ctx.diag().Error(s, kArea, "ALLOC_MEMORY_OF_GPU reply is malformed");
  }
  *out_handle = r.handle;
  *out_mmap_offset = r.mmap_offset;
  return Status::Ok();
}

Status FreeBo(Context& ctx, uint64_t handle) {
  kfd::FreeMemoryOfGpuArgs a{};
  Status s = kfd::EncodeFreeMemoryOfGpu(handle, &a);
  if (s.ok()) s = device::Ioctl(ctx, &a);
  if (!s.ok()) {
    FixedText<96> t;
    t.Append("FREE_MEMORY_OF_GPU failed: ").Append(StatusName(s));
    return ctx.diag().Report(HKE_DIAG_WARNING, s, kArea, t.c_str());
  }
  return Status::Ok();
}

namespace {

// The gpu_ids of a set, in GPU index order.
uint32_t GpuIds(const MemoryState& m, const GpuSet& gpus, uint32_t* ids) {
  uint32_t n = 0;
  for (uint32_t g = 0; g < m.num_gpus; ++g) {
    if (gpus.Has(g)) ids[n++] = m.gpus[g].gpu_id;
  }
  return n;
}

template <typename Args, Status (*Encode)(const kfd::MapRequest&, Args*),
          Status (*Progress)(const Args&, const Args&, bool, uint32_t*)>
Status MapOrUnmap(Context& ctx, const MemoryState& m, uint64_t handle, const GpuSet& gpus,
                  uint32_t request, const char* name, bool* out_claims_done) {
  if (out_claims_done != nullptr) *out_claims_done = false;
  uint32_t ids[config::kMaxGpus];
  const uint32_t n = GpuIds(m, gpus, ids);
  if (n == 0) return Status::Ok();
  uint32_t done = 0;
  // A call that made progress and failed with EINTR/EAGAIN (or an
  // interrupted resumable call) continues from n_success; bounded by the
  // device count plus the platform's own retry bound.
  for (uint32_t attempt = 0; attempt <= n; ++attempt) {
    kfd::MapRequest req{handle, reinterpret_cast<uintptr_t>(ids), n, done};
    Args sent{};
    Status s = Encode(req, &sent);
    if (!s.ok()) return ctx.diag().Error(s, kArea, "the map request is invalid");
    Args reply = sent;
    const Status io = device::KfdIoctl(ctx, request, &reply);
    uint32_t now = done;
    s = Progress(sent, reply, io.ok(), &now);
    if (!s.ok()) {
      // A malformed reply that still claims every device done (n_success
      // at or above n_devices after a successful call) is taken at its
      // word for the state (the caller records the GPUs as done) but the
      // call reports the protocol error.
      if (out_claims_done != nullptr) *out_claims_done = io.ok() && reply.n_success >= n;
      FixedText<96> t;
      t.Append(name).Append(" reply is malformed");
      return ctx.diag().Error(s, kArea, t.c_str());
    }
    if (io.ok()) return Status::Ok();
    const bool retryable = io.is_errno(err::kEINTR) || io.is_errno(err::kEAGAIN);
    if (!retryable || now == done) return ctx.diag().Failed(io, kArea, name);
    done = now;
  }
  return ctx.diag().Error(Status::Errno(err::kEINTR), kArea, "mapping kept being interrupted");
}

}  // namespace

Status MapBo(Context& ctx, const MemoryState& m, uint64_t handle, const GpuSet& gpus) {
  return MapOrUnmap<kfd::MapMemoryToGpuArgs, &kfd::EncodeMapMemoryToGpu, &kfd::DecodeMapProgress>(
      ctx, m, handle, gpus, kfd::kIocMapMemoryToGpu, "MAP_MEMORY_TO_GPU", nullptr);
}

Status UnmapBo(Context& ctx, const MemoryState& m, uint64_t handle, const GpuSet& gpus,
               bool* out_claims_done) {
  return MapOrUnmap<kfd::UnmapMemoryFromGpuArgs, &kfd::EncodeUnmapMemoryFromGpu,
                    &kfd::DecodeUnmapProgress>(ctx, m, handle, gpus,
                                               kfd::kIocUnmapMemoryFromGpu,
                                               "UNMAP_MEMORY_FROM_GPU", out_claims_done);
}

namespace {

// The end of a kernel-kept object: its pages become PROT_NONE, its
// reservation stays mapped and is recorded as the kept range; the slot and
// the indexes are released.
Status KeepVa(Context& ctx, MemoryState& m, MemObject* o) {
  void* got = nullptr;
  const Status s = ctx.platform().Mmap(
      reinterpret_cast<void*>(static_cast<uintptr_t>(o->reserve_base)),
      static_cast<size_t>(o->reserve_size), HKE_PROT_NONE,
      HKE_MAP_PRIVATE | HKE_MAP_ANONYMOUS | HKE_MAP_NORESERVE | HKE_MAP_FIXED, -1, 0, &got);
  if (!s.ok()) {
    // The pages stay mapped (the kernel's BO behind them): still nobody
    // else's, so the range is kept all the same.
    (void)ctx.diag().Report(HKE_DIAG_WARNING, s, kArea,
                            "cannot drop the CPU view of a kernel-kept buffer; it stays mapped");
  }
  if (m.kept_size == 0) {
    m.kept_base = o->reserve_base;
    m.kept_size = o->reserve_size;
  }
  Unindex(m, o);
  ReleaseSlot(m, SlotOf(m, o));
  return Status::Ok();
}

}  // namespace

Status DestroyObject(Context& ctx, MemoryState& m, MemObject* o, bool force) {
  // A scratch range's backing slices go before its VA.
  if (o->kind == ObjectKind::kScratch) HKE_RETURN_IF_ERROR(ReleaseScratchSlices(ctx, m, *o, force));
  if (o->kernel_owned) {
    // The kernel keeps the BO, and its GPU VA, for the process's lifetime:
    // drop our view and keep the reservation so no later object gets the VA.
    UnindexHandle(m, o);
    o->handle = 0;
    o->mapped.Clear();
    return KeepVa(ctx, m, o);
  }
  if (o->handle != 0 && !o->mapped.Empty()) {
    const Status s = UnmapBo(ctx, m, o->handle, o->mapped);
    if (s.ok()) {
      o->mapped.Clear();
      o->map_count = 0;
    } else if (!force) {
      return s;  // still mapped: the object stays as it was
    }
    // force (teardown): FREE unmaps a still-mapped BO in the kernel.
  }
  VaRange r{o->va, o->reserve_base, o->reserve_size, o->va_source};
  // Reserved mode: the CPU view goes first, while a failure still leaves
  // the object whole (GPU mappings aside, which a retry re-establishes).
  HKE_RETURN_IF_ERROR(DropCpuView(ctx, r));
  r.cpu_view_dropped = true;
  if (o->handle != 0) {
    const Status s = FreeBo(ctx, o->handle);
    if (!s.ok()) return s;  // the kernel still holds it: keep the object for a retry
    o->handle = 0;
    o->mapped.Clear();
    o->map_count = 0;
  }
  const Status v = ReleaseVa(ctx, m, r);
  Unindex(m, o);
  ReleaseSlot(m, SlotOf(m, o));
  return v;
}

}  // namespace hke::memory::internal
