// Scratch backing: a scratch range (hsaKmtAllocMemory with Scratch) is VA
// only, programmed as the GPU's SH_HIDDEN_PRIVATE_BASE at allocation; the
// runtime backs it slice by slice with hsaKmtMapMemoryToGPU(base + offset,
// length) and releases each slice with hsaKmtUnmapMemoryToGPU(base +
// offset), as upstream's _fmm_map_to_gpu_scratch /
// _fmm_unmap_from_gpu_scratch do: one BO per slice, VRAM, writable, at the
// slice's VA on the range's GPU only. (Upstream takes GTT and a CPU
// mapping instead while the legacy debugger has the node registered; no
// current kernel accepts that registration, DBG_REGISTER is EPERM, so
// slices are always VRAM.) On an APU (upstream's !is_dgpu) the range is
// host memory the GPU reaches as is: mapping and unmapping do nothing.
//
// A slice is a memory object of its own (ObjectKind::kScratchSlice,
// Owner::kScratch) indexed only in owned_index, since its VA lies inside
// the range's: the range's address calls find it there and nothing else
// does (the caller cannot free, share or export it). Freeing the range
// releases its slices first. Everything here runs under the memory lock.
#include "lib/core/checked.h"
#include "lib/core/text.h"
#include "lib/memory/memory_internal.h"

namespace hke::memory::internal {

namespace {

Status Invalid(Context& ctx, const char* why) {
  return ctx.diag().Error(InvalidArgument(), kArea, why);
}

}  // namespace

Status MapScratchSlice(Context& ctx, MemoryState& m, const MemObject& range, uint64_t addr,
                       uint64_t size, const GpuSet* want) {
  if (!m.dgpu) return Status::Ok();
  GpuSet one;
  one.Clear();
  one.Add(range.gpu);
  if (want != nullptr && !(*want == one)) {
    return Invalid(ctx, "scratch memory maps to the GPU that owns it only");
  }
  const uint64_t page = m.page_size;
  if (addr % page != 0) return Invalid(ctx, "a scratch slice must start on a page boundary");
  if (size == 0) return Invalid(ctx, "a scratch slice needs a size");
  uint64_t rounded = 0, end = 0;
  if (!CheckedAlignUp(size, page, &rounded) || !CheckedAdd(addr, rounded, &end) ||
      end > range.va + range.size) {
    return Invalid(ctx, "the scratch slice reaches past the end of the scratch range");
  }
  MemObject* o = FindOwnedOverlapping(m, addr, rounded);
  if (o != nullptr) {
    if (o->kind != ObjectKind::kScratchSlice || o->va != addr || o->size != rounded) {
      return Invalid(ctx, "the scratch slice overlaps another mapped slice of the range");
    }
    if (!o->mapped.Empty()) {
      ++o->map_count;
      return Status::Ok();
    }
    // Its BO outlived a refused FREE at the last unmap: map it again.
    HKE_RETURN_IF_ERROR(MapBo(ctx, m, o->handle, one));
    o->mapped = one;
    o->map_count = 1;
    return Status::Ok();
  }
  uint32_t slot = kNoSlot;
  HKE_RETURN_IF_ERROR(TakeSlot(ctx, m, &slot));
  o = &m.objects[slot];
  o->kind = ObjectKind::kScratchSlice;
  o->owner = Owner::kScratch;
  o->va = addr;
  o->size = rounded;
  o->request_size = size;
  o->gpu = range.gpu;
  o->node = range.node;
  o->mem_flags = range.mem_flags;
  o->va_source = VaSource::kNone;
  const uint32_t flags = kfd::kAllocMemVram | kfd::kAllocMemWritable | kfd::kAllocMemNoSubstitute;
  Status s = AllocBo(ctx, m, o->gpu, flags, addr, rounded, 0, &o->handle, &o->mmap_offset);
  if (s.ok()) s = Index(ctx, m, o);
  if (!s.ok()) {
    if (o->handle != 0) (void)FreeBo(ctx, o->handle);
    ReleaseSlot(m, slot);
    return s;
  }
  s = MapBo(ctx, m, o->handle, one);
  if (!s.ok()) {
    // A BO the kernel refuses to free stays with the slice (unmapped): the
    // next map of the slice reuses it, an unmap or freeing the range
    // retries the FREE.
    if (FreeBo(ctx, o->handle).ok()) {
      Unindex(m, o);
      ReleaseSlot(m, slot);
    }
    return s;
  }
  o->mapped = one;
  o->map_count = 1;
  return Status::Ok();
}

Status UnmapScratchSlice(Context& ctx, MemoryState& m, const MemObject& range, uint64_t addr) {
  if (!m.dgpu) return Status::Ok();
  MemObject* o = FindOwnedAt(m, addr);
  if (o == nullptr || o->kind != ObjectKind::kScratchSlice || o->gpu != range.gpu) {
    return ctx.diag().Error(NotFound(), kArea,
                            "UnmapMemoryToGPU: no mapped slice of the scratch range starts there");
  }
  if (o->map_count > 1) {
    --o->map_count;
    return Status::Ok();
  }
  return DestroyObject(ctx, m, o);
}

Status ReleaseScratchSlices(Context& ctx, MemoryState& m, const MemObject& range, bool force) {
  Status first = Status::Ok();
  const uint64_t end = range.va + range.size;
  uint64_t cursor = range.va;
  for (;;) {
    const uint32_t n = m.owned_index.LowerBound(cursor, 0);
    if (n == kNil || m.owned_index.node(n).start >= end) break;
    MemObject* o = &m.objects[m.owned_index.node(n).value];
    cursor = o->va + o->size;
    const Status s = DestroyObject(ctx, m, o, force);
    if (!s.ok() && first.ok()) first = s;
  }
  return first;
}

}  // namespace hke::memory::internal
