// hsaKmtAllocMemory(Align) and hsaKmtFreeMemory.
//
// Checks (upstream's order): a valid node; the page size from the PageSize
// field (4 KiB, 64 KiB, 2 MiB, 1 GiB); Alignment 0 or a power of two of at
// least that page size; a nonzero size that is a multiple of it;
// FixedAddress with an address; CoarseGrain + ExtendedCoherent and
// ExtendedCoherent + Uncached are contradictions; Contiguous needs KFD
// 1.16; Scratch with an Alignment is NOT_IMPLEMENTED upstream and here.
// Then one of three paths:
//  - system memory (a CPU node, paged memory, or GTTAccess): on an APU
//    plain anonymous pages; on a dGPU either anonymous pages plus a userptr
//    BO (paged; the pages bound to a NUMA node, numa.h) or a GTT BO CPU-mapped from the render node (non-paged),
//    created on the node's GPU, else the GPU it is placed near
//    (AllocArgs::place_near), else the first GPU;
//  - device memory (a GPU node, NonPaged): a VRAM BO, CPU-mapped from the
//    render node at its VA (PROT_NONE without HostAccess), NoAddress in
//    the handle aperture (no CPU view), OnlyAddress as a bare reservation;
//  - scratch: a 64 KiB-granular VA range of a GPU, programmed with
//    SET_SCRATCH_BACKING_VA (in 64 KiB units); on a dGPU its backing is
//    allocated slice by slice as the caller maps parts of it (scratch.cc),
//    on an APU it is host memory (read/write anonymous pages), as upstream.
// KFD flags: WRITABLE unless ReadOnly, EXECUTABLE with ExecuteAccess (as
// current upstream; 5.2.3 set it always), COHERENT unless CoarseGrain,
// UNCACHED with Uncached, EXT_COHERENT with ExtendedCoherent,
// AQL_QUEUE_MEM|UNCACHED with AQLQueueMemory (the VA and the BO are then
// twice the size; the kernel maps the ring twice), PUBLIC for VRAM with
// HostAccess, CONTIGUOUS with Contiguous, NO_SUBSTITUTE always.
// Every failure undoes the steps done so far: no slot, BO, mapping or VA
// outlives a failed call, and *out is written only on success.
#include "lib/core/checked.h"
#include "lib/core/errno.h"
#include "lib/core/text.h"
#include "lib/device/kfd_device.h"
#include "lib/memory/memory_internal.h"

namespace hke::memory {

using namespace internal;

namespace {

uint64_t FlagPageSize(const HsaMemFlags& f) {
  switch (f.ui32.PageSize) {
    case 1: return 64ull << 10;
    case 2: return 2ull << 20;
    case 3: return 1ull << 30;
    default: return 4096;
  }
}

uint32_t AttrFlags(const HsaMemFlags& f) {
  uint32_t k = kfd::kAllocMemNoSubstitute;
  if (!f.ui32.ReadOnly) k |= kfd::kAllocMemWritable;
  if (f.ui32.ExecuteAccess) k |= kfd::kAllocMemExecutable;
  if (!f.ui32.CoarseGrain) k |= kfd::kAllocMemCoherent;
  if (f.ui32.Uncached) k |= kfd::kAllocMemUncached;
  if (f.ui32.ExtendedCoherent) k |= kfd::kAllocMemExtCoherent;
  if (f.ui32.AQLQueueMemory) k |= kfd::kAllocMemAqlQueueMem | kfd::kAllocMemUncached;
  return k;
}

uint32_t CpuProt(const HsaMemFlags& f) {
  uint32_t p = HKE_PROT_READ;
  if (!f.ui32.ReadOnly) p |= HKE_PROT_WRITE;
  if (f.ui32.ExecuteAccess) p |= HKE_PROT_EXEC;
  return p;
}

Status Invalid(Context& ctx, const char* why) {
  return ctx.diag().Error(InvalidArgument(), kArea, why);
}

Status CheckArgs(Context& ctx, const MemoryState& m, const AllocArgs& a, const HsaMemFlags& f) {
  if (!IsValidNode(m, a.node)) {
    FixedText<96> t;
    t.Append("node ").AppendU64(a.node).Append(" does not exist");
    return ctx.diag().Error(InvalidNode(), kArea, t.c_str());
  }
  const uint64_t page = FlagPageSize(f);
  if (page < m.page_size) return Invalid(ctx, "PageSize is below the system page size");
  if (a.align != 0 && (!IsPowerOfTwo(a.align) || a.align < page)) {
    return Invalid(ctx, "Alignment must be 0 or a power of two of at least the page size");
  }
  if (a.size == 0 || a.size % page != 0) {
    return Invalid(ctx, "the size must be a nonzero multiple of the page size");
  }
  if (f.ui32.FixedAddress && a.address == 0) return Invalid(ctx, "FixedAddress needs an address");
  if (f.ui32.FixedAddress && a.address % page != 0) {
    return Invalid(ctx, "a fixed address must be page aligned");
  }
  if (f.ui32.CoarseGrain && f.ui32.ExtendedCoherent) {
    return Invalid(ctx, "CoarseGrain and ExtendedCoherent contradict each other");
  }
  if (f.ui32.ExtendedCoherent && f.ui32.Uncached) {
    return Invalid(ctx, "ExtendedCoherent and Uncached contradict each other");
  }
  if (f.ui32.NoAddress && f.ui32.OnlyAddress) {
    return Invalid(ctx, "NoAddress and OnlyAddress contradict each other");
  }
  if (f.ui32.Scratch && a.align != 0) {
    return ctx.diag().Error(NotImplemented(), kArea, "Scratch memory with an Alignment");
  }
  if (f.ui32.GDSMemory) {
    return ctx.diag().Error(Unsupported(), kArea, "GDS allocation is not supported by the KFD");
  }
  return Status::Ok();
}

// What the path decided, before any resource is taken.
struct Plan {
  ObjectKind kind;
  VaSource source;
  uint16_t gpu;          // BO owner
  uint32_t kfd_flags;    // 0: no BO
  uint64_t va_size;      // VA (and BO) bytes
  uint64_t cpu_size;     // bytes to CPU-map
  uint64_t align;
  uint32_t cpu_prot;
  bool cpu_map_bo;       // mmap the BO from the render node
  bool anon_pages;       // anonymous pages at the VA
  bool bo_va_zero;       // the BO gets va 0 (handle aperture)
};

Status MakePlan(Context& ctx, const MemoryState& m, const AllocArgs& a, const HsaMemFlags& f,
                Plan* out) {
  Plan p{};
  p.gpu = GpuOfNode(m, a.node);
  p.cpu_size = a.size;
  p.va_size = a.size;
  if (f.ui32.AQLQueueMemory && !CheckedMul(a.size, uint64_t{2}, &p.va_size)) return Overflow();
  p.align = AutoAlign(m, p.va_size, a.align);
  p.cpu_prot = CpuProt(f);
  const bool coarse = f.ui32.CoarseGrain != 0;
  const VaSource svm = m.reserved_mode
                           ? (coarse ? VaSource::kSvmArena : VaSource::kSvmCoherentArena)
                           : VaSource::kMmap;
  if (f.ui32.Contiguous && device::KfdMinor(ctx) < kfd::kMinorContiguousVram) {
    return ctx.diag().Error(Unsupported(), kArea, "Contiguous needs KFD 1.16");
  }
  if (f.ui32.Scratch) {
    if (p.gpu == kNoGpu) return Invalid(ctx, "scratch memory needs a GPU node");
    p.kind = ObjectKind::kScratch;
    p.source = svm;
    if (!CheckedAlignUp(a.size, kScratchAlign, &p.va_size)) return Overflow();
    p.align = kScratchAlign > p.align ? kScratchAlign : p.align;
    if (!m.dgpu) {
      // An APU's scratch is host memory the GPU reaches as is.
      p.source = VaSource::kMmap;
      p.anon_pages = true;
      p.cpu_size = p.va_size;
      p.cpu_prot = HKE_PROT_READ | HKE_PROT_WRITE;
    }
    *out = p;
    return Status::Ok();
  }
  const bool host = p.gpu == kNoGpu || !f.ui32.NonPaged || f.ui32.GTTAccess;
  if (f.ui32.OnlyAddress) {
    p.kind = ObjectKind::kVaOnly;
    p.source = svm;
    p.gpu = p.gpu == kNoGpu ? kNoGpu : p.gpu;
    *out = p;
    return Status::Ok();
  }
  if (host) {
    if (!m.dgpu || m.num_gpus == 0) {
      p.kind = ObjectKind::kHostCpu;
      p.source = VaSource::kMmap;
      p.anon_pages = true;
      p.gpu = kNoGpu;
      *out = p;
      return Status::Ok();
    }
    if (p.gpu == kNoGpu) {
      // The GPU the memory belongs to holds its BO (place_near), else the
      // first GPU.
      const uint16_t near = a.place_near ? GpuOfNode(m, a.place_node) : kNoGpu;
      p.gpu = near == kNoGpu ? 0 : near;
    }
    p.source = svm;
    p.kfd_flags = AttrFlags(f);
    if (!f.ui32.NonPaged) {
      // Paged system memory of a dGPU is a userptr BO.
      HKE_RETURN_IF_ERROR(RequirePrimary(
          ctx, kArea, "paged system memory on a dGPU (a userptr BO; allocate it NonPaged)"));
      p.kind = ObjectKind::kHostPaged;
      p.kfd_flags |= kfd::kAllocMemUserptr;
      p.anon_pages = true;
    } else {
      p.kind = ObjectKind::kHostGtt;
      p.kfd_flags |= kfd::kAllocMemGtt;
      p.cpu_map_bo = f.ui32.HostAccess != 0;
    }
    *out = p;
    return Status::Ok();
  }
  p.kfd_flags = AttrFlags(f) | kfd::kAllocMemVram;
  if (f.ui32.HostAccess) p.kfd_flags |= kfd::kAllocMemPublic;
  if (f.ui32.Contiguous) p.kfd_flags |= kfd::kAllocMemContiguous;
  if (f.ui32.NoAddress) {
    p.kind = ObjectKind::kNoAddress;
    p.source = VaSource::kHandleArena;
    p.bo_va_zero = true;
    *out = p;
    return Status::Ok();
  }
  p.kind = ObjectKind::kDevice;
  p.source = svm;
  p.cpu_map_bo = true;
  if (!f.ui32.HostAccess) p.cpu_prot = HKE_PROT_NONE;
  *out = p;
  return Status::Ok();
}

// Programs the GPU's scratch base (SH_HIDDEN_PRIVATE_BASE): the KFD takes
// the address in 64 KiB units.
Status SetScratchBacking(Context& ctx, const MemoryState& m, uint16_t gpu, uint64_t va) {
  kfd::SetScratchBackingVaArgs a{};
  a.va_addr = va >> 16;
  a.gpu_id = m.gpus[gpu].gpu_id;
  const Status s = device::Ioctl(ctx, &a);
  if (!s.ok()) return ctx.diag().Failed(s, kArea, "SET_SCRATCH_BACKING_VA");
  return Status::Ok();
}

}  // namespace

Status Alloc(Context& ctx, const AllocArgs& args, uint64_t* out_addr) {
  if (out_addr == nullptr) return InvalidArgument();
  HKE_RETURN_IF_ERROR(EnsureVm(ctx));
  LockGuard lock(ctx.memory_lock());
  MemoryState& m = ctx.memory();
  if (!m.initialized) return FailedPrecondition();
  HsaMemFlags f;
  f.Value = args.flags;
  HKE_RETURN_IF_ERROR(CheckArgs(ctx, m, args, f));
  Plan p{};
  HKE_RETURN_IF_ERROR(MakePlan(ctx, m, args, f, &p));

  uint32_t slot = kNoSlot;
  HKE_RETURN_IF_ERROR(TakeSlot(ctx, m, &slot));
  MemObject* o = &m.objects[slot];
  o->kind = p.kind;
  o->gpu = p.gpu;
  o->node = args.node;
  o->mem_flags = args.flags;
  o->owner = args.owner;
  o->request_size = args.size;
  o->size = p.va_size;
  o->va_source = p.source;

  VaRange r{};
  Status s = ReserveVaForSlot(ctx, m, slot, p.source, p.va_size, p.align,
                              f.ui32.FixedAddress ? args.address : 0, &r);
  HKE_RETURN_IF_ERROR(s);
  AdoptVa(o, r);
  const Platform& pf = ctx.platform();
  void* va_ptr = reinterpret_cast<void*>(static_cast<uintptr_t>(r.va));
  if (p.anon_pages) {
    void* got = nullptr;
    s = pf.Mmap(va_ptr, static_cast<size_t>(p.cpu_size), p.cpu_prot,
                HKE_MAP_PRIVATE | HKE_MAP_ANONYMOUS | HKE_MAP_FIXED, -1, 0, &got);
    if (!s.ok()) s = ctx.diag().Error(s, kArea, "cannot map anonymous pages at the reserved VA");
    if (s.ok() && p.kind == ObjectKind::kHostPaged) {
      s = PlacePages(ctx, m.numa, args.place_near ? args.place_node : args.node, args.flags, r.va,
                     p.cpu_size);
      // GPU-visible pages are not inherited by a fork child.
      if (s.ok()) (void)pf.Madvise(va_ptr, static_cast<size_t>(p.cpu_size), HKE_ADVICE_DONTFORK);
    }
  }
  if (s.ok() && p.kfd_flags != 0) {
    const uint64_t userptr = (p.kfd_flags & kfd::kAllocMemUserptr) != 0 ? r.va : 0;
    s = AllocBo(ctx, m, p.gpu, p.kfd_flags, p.bo_va_zero ? 0 : r.va, p.va_size, userptr,
                &o->handle, &o->mmap_offset);
  }
  if (s.ok() && p.cpu_map_bo) {
    void* got = nullptr;
    const uint32_t share = p.cpu_prot == HKE_PROT_NONE ? HKE_MAP_PRIVATE : HKE_MAP_SHARED;
    s = pf.Mmap(va_ptr, static_cast<size_t>(p.cpu_size), p.cpu_prot, share | HKE_MAP_FIXED,
                m.gpus[p.gpu].render_fd, o->mmap_offset, &got);
    if (!s.ok()) {
      s = ctx.diag().Error(s, kArea, "cannot map the buffer from the render node");
    } else {
      (void)pf.Madvise(va_ptr, static_cast<size_t>(p.cpu_size), HKE_ADVICE_DONTFORK);
    }
  }
  if (s.ok() && p.kind == ObjectKind::kScratch) s = SetScratchBacking(ctx, m, p.gpu, r.va);
  if (s.ok()) s = Index(ctx, m, o);
  if (!s.ok()) {
    // Undo in reverse: the BO (never mapped to a GPU yet), then the VA and
    // any CPU pages in it, then the slot.
    if (o->handle != 0) (void)FreeBo(ctx, o->handle);
    o->handle = 0;
    (void)ReleaseVa(ctx, m, r);
    ReleaseSlot(m, slot);
    return s;
  }
  *out_addr = r.va;
  return Status::Ok();
}

Status Free(Context& ctx, uint64_t addr, Owner caller) {
  HKE_RETURN_IF_ERROR(device::CheckOpen(ctx));
  LockGuard lock(ctx.memory_lock());
  MemoryState& m = ctx.memory();
  if (!m.initialized) return ctx.diag().Error(NotFound(), kArea, "no memory has been allocated");
  MemObject* o = nullptr;
  const Status found = FindForCall(ctx, m, addr, 0, caller, "FreeMemory", &o);
  if (found.is_api(HKE_STATUS_NOT_FOUND) || (found.ok() && o->kind == ObjectKind::kUserptr)) {
    return ctx.diag().Error(NotFound(), kArea, "FreeMemory: no allocation starts at that address");
  }
  HKE_RETURN_IF_ERROR(found);
  return DestroyObject(ctx, m, o);
}

}  // namespace hke::memory
