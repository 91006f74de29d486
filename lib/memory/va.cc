// Virtual-address reservations of the memory subsystem.
//
// mmap mode (VaSource::kMmap): the kernel picks the address. A reservation
// is an anonymous PROT_NONE, NORESERVE mapping over-allocated by a guard
// page on each side and (align - page), then trimmed to the aligned window
// (as upstream: the guards become unmapped gaps), so each object costs one
// kernel mapping and no VA bookkeeping beyond the object index. The result
// must lie inside the shared SVM range when there is one.
// Arena modes: the address comes from a VaArena (O(log n) best fit). The
// SVM arenas sit inside one PROT_NONE reservation of the whole range made
// at VM bring-up (so nothing else can be mapped there); a release maps the
// object's range PROT_NONE again. The handle arena is never CPU-mapped.
#include <cstdint>

#include "lib/core/checked.h"
#include "lib/core/text.h"
#include "lib/memory/memory_internal.h"

namespace hke::memory::internal {

namespace {

VaArena* ArenaOf(MemoryState& m, VaSource s) {
  switch (s) {
    case VaSource::kSvmArena: return &m.svm_arena;
    case VaSource::kSvmCoherentArena: return &m.svm_coherent_arena;
    case VaSource::kHandleArena: return &m.handle_arena;
    default: return nullptr;
  }
}

Status ReserveMmap(Context& ctx, MemoryState& m, uint64_t size, uint64_t align, uint64_t fixed,
                   VaRange* out) {
  const uint64_t page = m.page_size;
  const uint64_t guard = page;
  const Platform& p = ctx.platform();
  const uint32_t anon = HKE_MAP_PRIVATE | HKE_MAP_ANONYMOUS | HKE_MAP_NORESERVE;
  size_t length = 0;
  if (!CheckedCast(size, &length)) return Overflow();
  if (fixed != 0) {
    void* got = nullptr;
    const Status s = p.Mmap(reinterpret_cast<void*>(static_cast<uintptr_t>(fixed)), length,
                            HKE_PROT_NONE, anon | HKE_MAP_FIXED_NOREPLACE, -1, 0, &got);
    if (!s.ok()) {
      if (s.is_errno(17 /* EEXIST */)) {
        return ctx.diag().Error(AlreadyExists(), kArea,
                                "the fixed address overlaps an existing mapping");
      }
      return ctx.diag().Error(s, kArea, "cannot reserve the fixed address");
    }
    if (reinterpret_cast<uintptr_t>(got) != fixed) {
      // An old kernel without FIXED_NOREPLACE treats it as a hint.
      (void)p.Munmap(got, length);
      return ctx.diag().Error(AlreadyExists(), kArea, "the fixed address is not available");
    }
    *out = VaRange{fixed, fixed, size, VaSource::kMmap};
    return Status::Ok();
  }
  // Over-allocate by a guard page on each side plus the alignment slack,
  // then unmap everything but the aligned window: each object is one
  // mapping, with unmapped gaps (the guards) around it when it was placed.
  uint64_t total = 0;
  if (!CheckedAdd(size, 2 * guard, &total) ||
      !CheckedAdd(total, align > page ? align - page : 0, &total)) {
    return Overflow();
  }
  size_t total_len = 0;
  if (!CheckedCast(total, &total_len)) return Overflow();
  void* got = nullptr;
  Status s = p.Mmap(nullptr, total_len, HKE_PROT_NONE, anon, -1, 0, &got);
  if (!s.ok()) return ctx.diag().Error(s, kArea, "cannot reserve virtual address space");
  // Below the GPU-visible range (small address spaces, e.g. a 32-bit
  // process, can place low): keep the misplaced mapping so the kernel
  // cannot return it again, ask again, then give the misplaced ones back.
  // The hints: the range's base (a kernel that honours a free hint places
  // it there), then the highest window the process can address (an
  // allocator that searches downward from the hint, as qemu-user's does
  // once its top-down cursor has passed below the range, then finds the
  // highest free hole instead of another low one), then none.
  constexpr int kPlacementRetries = 4;
  void* misplaced[kPlacementRetries];
  int n_misplaced = 0;
  uint64_t top = m.svm_limit;
  if (top > static_cast<uint64_t>(UINTPTR_MAX)) top = static_cast<uint64_t>(UINTPTR_MAX);
  const uint64_t high_hint =
      top >= m.svm_base && top - m.svm_base + 1 > total ? (top + 1 - total) & ~(page - 1) : 0;
  while (m.svm_limit != 0 && reinterpret_cast<uintptr_t>(got) < m.svm_base &&
         n_misplaced < kPlacementRetries) {
    misplaced[n_misplaced++] = got;
    const uint64_t h = n_misplaced == 1 ? m.svm_base : n_misplaced == 2 ? high_hint : 0;
    void* hint = reinterpret_cast<void*>(static_cast<uintptr_t>(h));
    s = p.Mmap(hint, total_len, HKE_PROT_NONE, anon, -1, 0, &got);
    if (!s.ok()) break;
  }
  for (int i = 0; i < n_misplaced; ++i) {
    const Status t = p.Munmap(misplaced[i], total_len);
    if (!t.ok()) {
      (void)ctx.diag().Report(HKE_DIAG_WARNING, t, kArea,
                              "munmap of a misplaced reservation failed; it stays mapped");
    }
  }
  if (!s.ok()) return ctx.diag().Error(s, kArea, "cannot reserve virtual address space");
  const uint64_t raw = reinterpret_cast<uintptr_t>(got);
  uint64_t start = 0;
  if (!CheckedAlignUp(raw + guard, align, &start)) {
    (void)p.Munmap(got, total_len);
    return Overflow();
  }
  // A trim the platform refuses only leaves PROT_NONE address space
  // mapped next to the object: reported, not fatal.
  if (start > raw) {
    const Status t = p.Munmap(got, static_cast<size_t>(start - raw));
    if (!t.ok()) {
      (void)ctx.diag().Report(HKE_DIAG_WARNING, t, kArea,
                              "munmap of a reservation's leading slack failed; it stays mapped");
    }
  }
  const uint64_t end = start + size;
  if (raw + total > end) {
    const Status t = p.Munmap(reinterpret_cast<void*>(static_cast<uintptr_t>(end)),
                              static_cast<size_t>(raw + total - end));
    if (!t.ok()) {
      (void)ctx.diag().Report(HKE_DIAG_WARNING, t, kArea,
                              "munmap of a reservation's trailing slack failed; it stays mapped");
    }
  }
  if (m.svm_limit != 0 && (start < m.svm_base || end - 1 > m.svm_limit)) {
    (void)p.Munmap(reinterpret_cast<void*>(static_cast<uintptr_t>(start)), length);
    return ctx.diag().Error(OutOfRange(), kArea,
                            "the kernel placed a reservation outside the GPU-visible SVM range");
  }
  *out = VaRange{start, start, size, VaSource::kMmap};
  return Status::Ok();
}

}  // namespace

uint64_t AutoAlign(const MemoryState& m, uint64_t size, uint64_t requested) {
  const uint64_t page = m.page_size;
  uint64_t a = requested > page ? requested : page;
  const uint64_t cap = page << m.align_order_max;
  while (a < cap && size >= 2 * a) a *= 2;
  return a;
}

Status DropCpuView(Context& ctx, const VaRange& r) {
  if (r.source != VaSource::kSvmArena && r.source != VaSource::kSvmCoherentArena) {
    return Status::Ok();
  }
  void* got = nullptr;
  const Status s = ctx.platform().Mmap(
      reinterpret_cast<void*>(static_cast<uintptr_t>(r.reserve_base)),
      static_cast<size_t>(r.reserve_size), HKE_PROT_NONE,
      HKE_MAP_PRIVATE | HKE_MAP_ANONYMOUS | HKE_MAP_NORESERVE | HKE_MAP_FIXED, -1, 0, &got);
  if (!s.ok()) return ctx.diag().Error(s, kArea, "cannot re-reserve the range PROT_NONE");
  return Status::Ok();
}

Status ReserveVa(Context& ctx, MemoryState& m, VaSource source, uint64_t size, uint64_t align,
                 uint64_t fixed, VaRange* out) {
  if (source == VaSource::kMmap) return ReserveMmap(ctx, m, size, align, fixed, out);
  VaArena* arena = ArenaOf(m, source);
  if (arena == nullptr) return Status::Api(HKE_STATUS_INTERNAL);
  uint64_t va = fixed;
  Status s = fixed != 0 ? arena->AllocateAt(fixed, size) : arena->Allocate(size, align, &va);
  if (!s.ok()) {
    if (s.is_api(HKE_STATUS_RESOURCE_EXHAUSTED)) {
      return ctx.diag().Error(s, kArea,
                              "the VA arena has no node left (raise hke::config::kMaxVaObjects)");
    }
    return ctx.diag().Error(s, kArea, fixed != 0 ? "the fixed address is not free in the aperture"
                                                 : "no free range of that size in the aperture");
  }
  *out = VaRange{va, va, size, source};
  return Status::Ok();
}

Status ReserveVaForSlot(Context& ctx, MemoryState& m, uint32_t slot, VaSource source,
                        uint64_t size, uint64_t align, uint64_t fixed, VaRange* out) {
  const Status s = ReserveVa(ctx, m, source, size, align, fixed, out);
  if (!s.ok()) ReleaseSlot(m, slot);
  return s;
}

void AdoptVa(MemObject* o, const VaRange& r) {
  o->va = r.va;
  o->reserve_base = r.reserve_base;
  o->reserve_size = r.reserve_size;
  o->va_source = r.source;
}

Status ReleaseVa(Context& ctx, MemoryState& m, const VaRange& r) {
  if (r.source == VaSource::kNone || r.reserve_size == 0) return Status::Ok();
  void* base = reinterpret_cast<void*>(static_cast<uintptr_t>(r.reserve_base));
  const size_t length = static_cast<size_t>(r.reserve_size);
  if (r.source == VaSource::kMmap) {
    // The object is gone either way; a refused munmap only leaves its
    // range mapped (address space, not a GPU resource): reported.
    const Status s = ctx.platform().Munmap(base, length);
    if (!s.ok()) {
      (void)ctx.diag().Report(HKE_DIAG_WARNING, s, kArea,
                              "munmap of a released range failed; it stays mapped");
    }
    return Status::Ok();
  }
  if (r.source != VaSource::kHandleArena && !r.cpu_view_dropped) {
    // The SVM arenas live inside one PROT_NONE reservation made at VM
    // bring-up: drop the object's pages by mapping PROT_NONE over them. If
    // that fails, unmap them instead (a hole in the reservation) and keep
    // the range allocated in the arena (quarantined, never handed out
    // again), so no later object can meet the old pages or the hole.
    void* got = nullptr;
    const Status s = ctx.platform().Mmap(
        base, length, HKE_PROT_NONE,
        HKE_MAP_PRIVATE | HKE_MAP_ANONYMOUS | HKE_MAP_NORESERVE | HKE_MAP_FIXED, -1, 0, &got);
    if (!s.ok()) {
      const Status u = ctx.platform().Munmap(base, length);
      if (!u.ok()) {
        return ctx.diag().Error(u, kArea,
                                "a released range could be neither re-reserved nor unmapped; "
                                "its pages stay mapped and the range is quarantined");
      }
      (void)ctx.diag().Report(HKE_DIAG_WARNING, s, kArea,
                              "re-reserving a released range failed; it was unmapped and is "
                              "quarantined");
      return Status::Ok();
    }
  }
  VaArena* arena = ArenaOf(m, r.source);
  if (arena != nullptr) {
    const Status s = arena->Free(r.reserve_base, r.reserve_size);
    if (!s.ok()) return ctx.diag().Error(s, kArea, "the VA arena refused a release");
  }
  return Status::Ok();
}

}  // namespace hke::memory::internal
