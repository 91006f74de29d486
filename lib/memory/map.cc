// hsaKmtMapMemoryToGPU(Nodes), hsaKmtUnmapMemoryToGPU,
// hsaKmtRegisterMemory* and hsaKmtDeregisterMemory.
//
// Lookup (FindExact, upstream's vm_find_object): registered user memory by
// its user address (and size, when the call has one), else the object at
// the page's GPU VA, so the GPU address Map returned for a registration
// names it too. An address inside a scratch range maps or unmaps a slice
// of its backing (scratch.cc). Objects of another owner are refused.
//
// Map targets, in priority: the explicit node list; the registered GPUs;
// the owning GPU's peers (memory a GPU owns); every GPU. An explicit list
// must lie inside the registered set when there is one. Mapping an object
// unmaps the GPUs no longer wanted, then maps only the missing ones; a
// userptr already mapped only gains a reference (its GPUs cannot change).
// An address-only reservation (OnlyAddress) and NoAddress memory cannot be
// mapped (INVALID_ARGUMENT, as upstream). Unmapping memory that is not
// mapped succeeds (upstream; runtimes rely on it), and so does unmapping
// NULL once the open check passed.
//
// Registration: on an APU (upstream's !is_dgpu) it is a no-op (the GPU
// reaches all memory), and so are Map, Unmap and Deregister of addresses
// the library does not know. In SVM-API mode (KFD >= 1.5, every GPU reports
// SVMAPISupported) a range is registered with one SVM SET_ATTR call
// (coherence flags) and mapped with ACCESS_IN_PLACE attributes over its
// whole pages; its GPU address is the user address itself; the library
// keeps no record of it, so Deregister/Unmap of an unknown address then
// succeed. Otherwise a userptr BO covers the page-rounded range at a GPU VA
// of its own, is indexed by its exact user range, and is reference counted
// across identical registrations (same address and size; a different node
// set is MEMORY_ALREADY_REGISTERED); the same address with another size is
// another registration, as upstream. Registering memory the library
// allocated only records the node set. A registration may not reach a
// buffer the library owns.
#include "lib/core/checked.h"
#include "lib/core/errno.h"
#include "lib/core/text.h"
#include "lib/device/kfd_device.h"
#include "lib/memory/memory_internal.h"

namespace hke::memory {

using namespace internal;

namespace {

Status PageRange(const MemoryState& m, uint64_t addr, uint64_t size, uint64_t* start,
                 uint64_t* rounded) {
  const uint64_t page = m.page_size;
  const uint64_t s = addr & ~(page - 1);
  uint64_t end = 0;
  if (!CheckedAdd(addr, size, &end) || !CheckedAlignUp(end, page, &end)) return Overflow();
  *start = s;
  *rounded = end - s;
  return Status::Ok();
}

// One SVM SET_ATTR call over [start, start+size).
Status SvmSet(Context& ctx, MemoryState& m, uint64_t start, uint64_t size,
              const kfd::SvmAttribute* attrs, uint32_t n) {
  uint32_t request = 0;
  size_t bytes = 0;
  Status s = kfd::BuildSvmCommand(start, size, kfd::kSvmOpSetAttr, attrs, n, m.svm_buffer,
                                  sizeof(m.svm_buffer), &request, &bytes, m.page_size);
  if (!s.ok()) return ctx.diag().Error(s, kArea, "the SVM request is invalid");
  s = device::KfdIoctl(ctx, request, m.svm_buffer);
  if (!s.ok()) {
    FixedText<96> t;
    t.Append("SVM SET_ATTR failed: ").Append(StatusName(s));
    return ctx.diag().Error(s, kArea, t.c_str());
  }
  return Status::Ok();
}

Status SvmMap(Context& ctx, MemoryState& m, uint64_t addr, uint64_t size, const GpuSet& gpus) {
  uint64_t start = 0, rounded = 0;
  HKE_RETURN_IF_ERROR(PageRange(m, addr, size, &start, &rounded));
  kfd::SvmAttribute attrs[config::kMaxGpus];
  uint32_t n = 0;
  for (uint32_t g = 0; g < m.num_gpus; ++g) {
    if (gpus.Has(g)) attrs[n++] = kfd::SvmAttribute{kfd::kSvmAttrAccessInPlace, m.gpus[g].gpu_id};
  }
  if (n == 0) return Status::Ok();
  return SvmSet(ctx, m, start, rounded, attrs, n);
}

// The scratch range containing `addr` (nullptr: none).
const MemObject* ScratchRangeAt(MemoryState& m, uint64_t addr) {
  const MemObject* o = m.initialized ? FindContaining(m, addr) : nullptr;
  return o != nullptr && o->kind == ObjectKind::kScratch ? o : nullptr;
}

}  // namespace

Status Map(Context& ctx, uint64_t addr, uint64_t size, const uint32_t* nodes, uint32_t num_nodes,
           uint64_t* out_alternate_va, Owner caller) {
  HKE_RETURN_IF_ERROR(EnsureVm(ctx));
  if (addr == 0) return InvalidArgument();
  LockGuard lock(ctx.memory_lock());
  MemoryState& m = ctx.memory();
  GpuSet want;
  if (nodes != nullptr) HKE_RETURN_IF_ERROR(NodesToGpus(ctx, m, nodes, num_nodes, &want));
  if (const MemObject* range = ScratchRangeAt(m, addr)) {
    if (range->owner != caller) return RefuseOwned(ctx, *range, "MapMemoryToGPU");
    HKE_RETURN_IF_ERROR(MapScratchSlice(ctx, m, *range, addr, size, nodes != nullptr ? &want : nullptr));
    if (out_alternate_va != nullptr) *out_alternate_va = 0;
    return Status::Ok();
  }
  MemObject* o = nullptr;
  const Status found = FindForCall(ctx, m, addr, size, caller, "MapMemoryToGPU", &o);
  if (found.is_api(HKE_STATUS_NOT_FOUND)) {
    if (m.svm_api) {
      // Registered through SVM (or plain user memory): the pages are
      // mapped where they are; the GPU address is the user address.
      uint64_t start = 0, rounded = 0;
      HKE_RETURN_IF_ERROR(PageRange(m, addr, size, &start, &rounded));
      HKE_RETURN_IF_ERROR(RefuseOwnedRange(ctx, m, start, rounded, "MapMemoryToGPU"));
      if (nodes == nullptr) AllGpus(m, &want);
      HKE_RETURN_IF_ERROR(SvmMap(ctx, m, addr, size, want));
      if (out_alternate_va != nullptr) *out_alternate_va = addr;
      return Status::Ok();
    }
    if (!m.dgpu) {  // an APU's GPU reaches system memory as is
      if (out_alternate_va != nullptr) *out_alternate_va = 0;
      return Status::Ok();
    }
    return ctx.diag().Error(NotFound(), kArea, "MapMemoryToGPU: the address is not allocated or registered");
  }
  HKE_RETURN_IF_ERROR(found);
  if (o->kind == ObjectKind::kVaOnly) {
    return ctx.diag().Error(InvalidArgument(), kArea,
                            "an address-only reservation (OnlyAddress) has no memory to map");
  }
  if (o->kind == ObjectKind::kNoAddress || o->va_source == VaSource::kHandleArena) {
    return ctx.diag().Error(InvalidArgument(), kArea, "memory without a GPU VA cannot be mapped");
  }
  if (o->kind == ObjectKind::kHostCpu) {
    // APU system memory is reachable as is.
    ++o->map_count;
    if (out_alternate_va != nullptr) *out_alternate_va = 0;
    return Status::Ok();
  }
  if (nodes == nullptr) {
    DefaultTargets(m, *o, &want);
  } else if (!o->registered.Empty() && !want.SubsetOf(o->registered)) {
    return ctx.diag().Error(InvalidArgument(), kArea,
                            "MapMemoryToGPUNodes: a node is not in the registered set");
  }
  // A userptr's GPU VA is its own (the AlternateVAGPU the caller gets).
  const uint64_t alternate =
      o->kind == ObjectKind::kUserptr
          ? o->va + (o->userptr & (static_cast<uint64_t>(m.page_size) - 1))
          : 0;
  if (o->kind == ObjectKind::kUserptr && o->map_count > 0) {
    if (nodes != nullptr && !(want == o->mapped)) {
      return ctx.diag().Error(InvalidArgument(), kArea, "mapped memory of this kind cannot change its GPUs");
    }
    ++o->map_count;
    if (out_alternate_va != nullptr) *out_alternate_va = alternate;
    return Status::Ok();
  }
  if (o->handle == 0) {
    return ctx.diag().Error(Unsupported(), kArea, "this object cannot be mapped to a GPU");
  }
  // Drop GPUs no longer wanted (explicit lists only), then add the missing.
  if (nodes != nullptr) {
    GpuSet drop = o->mapped;
    for (uint32_t w = 0; w < GpuSet::kWords; ++w) drop.bits[w] &= ~want.bits[w];
    if (!drop.Empty()) {
      HKE_RETURN_IF_ERROR(UnmapBo(ctx, m, o->handle, drop));
      for (uint32_t w = 0; w < GpuSet::kWords; ++w) o->mapped.bits[w] &= ~drop.bits[w];
    }
  }
  GpuSet add = want;
  for (uint32_t w = 0; w < GpuSet::kWords; ++w) add.bits[w] &= ~o->mapped.bits[w];
  if (!add.Empty()) {
    HKE_RETURN_IF_ERROR(MapBo(ctx, m, o->handle, add));
    for (uint32_t w = 0; w < GpuSet::kWords; ++w) o->mapped.bits[w] |= add.bits[w];
  }
  ++o->map_count;
  if (out_alternate_va != nullptr) *out_alternate_va = alternate;
  return Status::Ok();
}

Status Unmap(Context& ctx, uint64_t addr, Owner caller) {
  HKE_RETURN_IF_ERROR(device::CheckOpen(ctx));
  if (addr == 0) return Status::Ok();
  LockGuard lock(ctx.memory_lock());
  MemoryState& m = ctx.memory();
  if (!m.initialized) return ctx.diag().Error(NotFound(), kArea, "nothing is mapped");
  if (const MemObject* range = ScratchRangeAt(m, addr)) {
    if (range->owner != caller) return RefuseOwned(ctx, *range, "UnmapMemoryToGPU");
    return UnmapScratchSlice(ctx, m, *range, addr);
  }
  MemObject* o = nullptr;
  const Status found = FindForCall(ctx, m, addr, 0, caller, "UnmapMemoryToGPU", &o);
  if (found.is_api(HKE_STATUS_NOT_FOUND)) {
    // SVM ranges keep no record; an APU's system memory needs no unmapping.
    if (m.svm_api || !m.dgpu) return Status::Ok();
    return ctx.diag().Error(NotFound(), kArea, "UnmapMemoryToGPU: the address is not allocated or registered");
  }
  HKE_RETURN_IF_ERROR(found);
  if (o->map_count == 0 || o->mapped.Empty()) {
    o->map_count = 0;
    return Status::Ok();
  }
  if (o->kind == ObjectKind::kUserptr && o->map_count > 1) {
    --o->map_count;
    return Status::Ok();
  }
  bool claims_done = false;
  const Status us = UnmapBo(ctx, m, o->handle, o->mapped, &claims_done);
  if (!us.ok()) {
    if (claims_done) {  // the kernel says it is unmapped: record that
      o->mapped.Clear();
      o->map_count = 0;
    }
    return us;
  }
  o->mapped.Clear();
  o->map_count = 0;
  return Status::Ok();
}

Status Register(Context& ctx, const RegisterArgs& a) {
  HKE_RETURN_IF_ERROR(device::CheckOpen(ctx));
  if (a.addr == 0 || a.size == 0) return InvalidArgument();
  if (a.nodes == nullptr && a.num_nodes != 0) return InvalidArgument();
  HsaMemFlags f;
  f.Value = a.flags;
  if (a.has_flags && (!f.ui32.HostAccess || f.ui32.NonPaged)) {
    return ctx.diag().Error(InvalidArgument(), kArea,
                            "RegisterMemoryWithFlags needs HostAccess and paged memory");
  }
  HKE_RETURN_IF_ERROR(EnsureVm(ctx));
  HKE_RETURN_IF_ERROR(RequirePrimary(ctx, kArea, "registering user memory (userptr, SVM)"));
  LockGuard lock(ctx.memory_lock());
  MemoryState& m = ctx.memory();
  GpuSet set;
  set.Clear();
  if (a.nodes != nullptr) HKE_RETURN_IF_ERROR(NodesToGpus(ctx, m, a.nodes, a.num_nodes, &set));
  MemObject* o = nullptr;
  const Status found = FindForCall(ctx, m, a.addr, a.size, Owner::kCaller, "RegisterMemory", &o);
  if (!found.ok() && !found.is_api(HKE_STATUS_NOT_FOUND)) return found;
  uint64_t start = 0, rounded = 0;
  HKE_RETURN_IF_ERROR(PageRange(m, a.addr, a.size, &start, &rounded));
  HKE_RETURN_IF_ERROR(RefuseOwnedRange(ctx, m, start, rounded, "RegisterMemory"));
  if (!m.dgpu) return Status::Ok();  // an APU's GPU reaches every page already

  // Memory this library allocated: registration records the node set.
  if (o != nullptr && o->kind != ObjectKind::kUserptr) {
    if (a.nodes != nullptr) {
      o->registered = set;
      o->registered_explicitly = true;
    }
    ++o->register_count;
    return Status::Ok();
  }
  // Plain registration is coarse grain (upstream); the Flags variant says.
  const bool coarse = a.has_flags ? f.ui32.CoarseGrain != 0 : true;
  const bool ext = a.has_flags && f.ui32.ExtendedCoherent;
  if (m.svm_api) {
    const kfd::SvmAttribute attrs[2] = {
        {coarse ? kfd::kSvmAttrClrFlags : kfd::kSvmAttrSetFlags, kfd::kSvmFlagCoherent},
        {ext ? kfd::kSvmAttrSetFlags : kfd::kSvmAttrClrFlags, kfd::kSvmFlagExtCoherent},
    };
    return SvmSet(ctx, m, start, rounded, attrs, 2);
  }
  if (o != nullptr) {
    // The same range again: one more reference. Its node set may be given
    // once; after that a registration must name the same set (upstream).
    if (o->registered_explicitly && (a.nodes == nullptr || !(o->registered == set))) {
      return ctx.diag().Error(AlreadyExists(), kArea,
                              "the memory is registered already to other nodes");
    }
    if (a.nodes != nullptr) {
      o->registered = set;
      o->registered_explicitly = true;
    }
    ++o->register_count;
    return Status::Ok();
  }
  if (m.num_gpus == 0) return ctx.diag().Error(Unsupported(), kArea, "no GPU to register memory with");
  uint32_t slot = kNoSlot;
  HKE_RETURN_IF_ERROR(TakeSlot(ctx, m, &slot));
  o = &m.objects[slot];
  o->kind = ObjectKind::kUserptr;
  o->userptr = a.addr;
  o->userptr_size = a.size;
  o->size = rounded;
  o->request_size = a.size;
  // QueryPointerInfo reports the coherence of a registration, not the
  // caller's other bits (upstream).
  HsaMemFlags recorded;
  recorded.Value = 0;
  recorded.ui32.CoarseGrain = coarse ? 1 : 0;
  recorded.ui32.ExtendedCoherent = ext ? 1 : 0;
  o->mem_flags = recorded.Value;
  o->register_count = 1;
  // The GPU sees the pages at a VA of their own (upstream: a reservation
  // in the SVM aperture of the registration's coherence).
  VaRange r{};
  const VaSource src = m.reserved_mode
                           ? (coarse ? VaSource::kSvmArena : VaSource::kSvmCoherentArena)
                           : VaSource::kMmap;
  Status vs = ReserveVaForSlot(ctx, m, slot, src, rounded, AutoAlign(m, rounded, 0), 0, &r);
  HKE_RETURN_IF_ERROR(vs);
  AdoptVa(o, r);
  uint16_t owner = 0;
  for (uint16_t g = 0; g < m.num_gpus; ++g) {
    if (a.nodes == nullptr || set.Has(g)) {
      owner = g;
      break;
    }
  }
  o->gpu = owner;
  o->node = m.gpus[owner].node;
  if (a.nodes != nullptr) {
    o->registered = set;
    o->registered_explicitly = true;
  }
  uint32_t flags = kfd::kAllocMemUserptr | kfd::kAllocMemWritable | kfd::kAllocMemExecutable |
                   kfd::kAllocMemNoSubstitute;
  if (!coarse) flags |= kfd::kAllocMemCoherent;
  if (ext) flags |= kfd::kAllocMemExtCoherent;
  Status s = AllocBo(ctx, m, owner, flags, o->va, rounded, start, &o->handle, &o->mmap_offset);
  if (s.ok()) s = Index(ctx, m, o);
  if (!s.ok()) {
    if (o->handle != 0) (void)FreeBo(ctx, o->handle);
    (void)ReleaseVa(ctx, m, r);
    ReleaseSlot(m, slot);
    return s;
  }
  return Status::Ok();
}

Status Deregister(Context& ctx, uint64_t addr) {
  HKE_RETURN_IF_ERROR(device::CheckOpen(ctx));
  LockGuard lock(ctx.memory_lock());
  MemoryState& m = ctx.memory();
  MemObject* o = nullptr;
  const Status found = FindForCall(ctx, m, addr, 0, Owner::kCaller, "DeregisterMemory", &o);
  if (found.is_api(HKE_STATUS_NOT_FOUND)) {
    // SVM registrations keep no record; an APU registers nothing.
    if (!m.initialized || !m.dgpu || m.svm_api) return Status::Ok();
    return ctx.diag().Error(NotFound(), kArea, "DeregisterMemory: the address is not registered");
  }
  HKE_RETURN_IF_ERROR(found);
  if (o->kind != ObjectKind::kUserptr && o->kind != ObjectKind::kDmabufImport) {
    o->registered.Clear();
    o->registered_explicitly = false;
    if (o->register_count > 0) --o->register_count;
    return Status::Ok();
  }
  if (o->register_count > 1) {
    --o->register_count;
    return Status::Ok();
  }
  return DestroyObject(ctx, m, o);
}

}  // namespace hke::memory
