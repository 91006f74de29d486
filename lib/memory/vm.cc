// VM bring-up and teardown of the memory subsystem.
//
// InitVmLocked, once per open epoch, after the topology snapshot:
//  1. capture each visible GPU (gpu_id, node, render fd, apertures, gfx
//     version, SVM capability) and the node -> GPU map;
//  2. choose the VA mode: mmap mode unless the configuration asks for a
//     reserved SVM range (HKE_CONFIG_RESERVE_SVM) or a GPU's GPUVM range
//     ends below 2^47 (then the SVM range is reserved PROT_NONE up front and
//     carved by two arenas: the first quarter fine-grain, the rest
//     coarse-grain, as upstream);
//  3. place the handle-only aperture: 2^47 bytes from 2^47, moved up in
//     2^47 steps until it overlaps no GPU aperture;
//  4. ACQUIRE_VM on every GPU (its render fd), then SET_MEMORY_POLICY
//     (default non-coherent, alternate coherent over the SVM range), then
//     the MMIO_REMAP page of every GPU (ALLOC, mmap of /dev/kfd at the
//     reply's offset, MAP to the GPU's peers). A GPU whose MMIO page cannot be set
//     up only loses its MMIO_REMAP bank (a warning), as upstream.
// A failure in 1-4 (other than MMIO) undoes the reservations and leaves the
// state uninitialised; the kernel's VM bindings cannot be undone and need
// not be (a retry binds the same render fds again).
#include <new>

#include "lib/core/checked.h"
#include "lib/core/errno.h"
#include "lib/core/text.h"
#include "lib/device/kfd_device.h"
#include "lib/memory/memory_internal.h"
#include "lib/topology/acquire.h"

namespace hke::memory {

using namespace internal;

namespace {

constexpr uint64_t kTwoMiB = 2ull << 20;
constexpr uint64_t kReservedLimit = (1ull << 40) - 1;  // reserved mode caps the range at 1 TiB
constexpr uint64_t kAnywhereMax = 64ull << 30;

Status KfdFd(Context& ctx, int* out_fd) {
  const int fd = device::Facts(ctx).kfd_fd;
  if (fd < 0) return FailedPrecondition();
  *out_fd = fd;
  return Status::Ok();
}

bool Overlaps(uint64_t base, uint64_t size, const kfd::AddressRange& r) {
  if (r.limit == 0 && r.base == 0) return false;
  return base <= r.limit && r.base < base + size;
}

void CaptureGpus(Context& ctx, const topology::Acquisition& topo, MemoryState& m) {
  m.num_gpus = 0;
  for (uint32_t k = 0; k < topo.num_gpus() && k < config::kMaxGpus; ++k) {
    const topology::GpuNodeInfo& src = topo.gpu_at(k);
    GpuVm& g = m.gpus[m.num_gpus];
    g = GpuVm{};
    g.gpu_id = src.gpu_id;
    g.node = src.user_node;
    g.render_minor = src.render_minor;
    g.render_fd = -1;
    (void)device::RenderNodeFd(ctx, src.render_minor, &g.render_fd);
    g.lds = src.lds;
    g.scratch = src.scratch;
    g.gpuvm = src.gpuvm;
    g.mmio_object = kNoSlot;
    const topology::NodeRecord* r = topo.snapshot().node(src.user_node);
    if (r != nullptr) {
      g.device_id = r->Get32(topology::kDeviceId);
      g.gfx_major = r->Get32(topology::kGfxTargetVersion) / 10000;
      HSA_CAPABILITY cap;
      cap.Value = r->Get32(topology::kCapability);
      g.svm_api = cap.ui32.SVMAPISupported != 0;
    }
    g.peers.Clear();
    ++m.num_gpus;
  }
  // Every GPU may map every other GPU's memory (the KFD checks reachability
  // itself and refuses a peer it cannot map).
  for (uint32_t a = 0; a < m.num_gpus; ++a) {
    for (uint32_t b = 0; b < m.num_gpus; ++b) m.gpus[a].peers.Add(b);
  }
  m.num_nodes = topo.snapshot().num_nodes();
  if (m.num_nodes > config::kMaxNodes) m.num_nodes = config::kMaxNodes;
  for (uint32_t n = 0; n < m.num_nodes; ++n) {
    const uint16_t k = topo.GpuIndex(n);
    m.gpu_of_node[n] = k == topology::TopologyState::kNoGpu ? kNoGpu : k;
  }
}

// A 32-bit process cannot name addresses above 4 GiB through the void*
// API, so there the handle aperture is a window the library reserves
// PROT_NONE from the kernel (never accessible, so no CPU object can share
// its addresses).
constexpr uint64_t kHandleApertureSize32 = 256ull << 20;

Status PlaceHandleAperture(Context& ctx, MemoryState& m) {
  if (sizeof(void*) < 8) {
    void* got = nullptr;
    const Status s = ctx.platform().Mmap(
        nullptr, static_cast<size_t>(kHandleApertureSize32), HKE_PROT_NONE,
        HKE_MAP_PRIVATE | HKE_MAP_ANONYMOUS | HKE_MAP_NORESERVE, -1, 0, &got);
    if (!s.ok()) return ctx.diag().Error(s, kArea, "cannot reserve the handle aperture");
    const uint64_t base = reinterpret_cast<uintptr_t>(got);
    const Status i = m.handle_arena.Init(&m.nodes, base, kHandleApertureSize32, m.page_size);
    if (!i.ok()) {
      (void)ctx.platform().Munmap(got, static_cast<size_t>(kHandleApertureSize32));
      return i;
    }
    m.handle_base = base;
    m.handle_size = kHandleApertureSize32;
    m.handle_reserved = true;
    return Status::Ok();
  }
  uint64_t base = kHandleApertureSize;
  for (int step = 0; step < 8; ++step) {
    bool clash = false;
    for (uint32_t g = 0; g < m.num_gpus && !clash; ++g) {
      clash = Overlaps(base, kHandleApertureSize, m.gpus[g].lds) ||
              Overlaps(base, kHandleApertureSize, m.gpus[g].scratch) ||
              Overlaps(base, kHandleApertureSize, m.gpus[g].gpuvm);
    }
    if (!clash) {
      m.handle_base = base;
      m.handle_size = kHandleApertureSize;
      return m.handle_arena.Init(&m.nodes, base, kHandleApertureSize, m.page_size);
    }
    base += kHandleApertureSize;
  }
  return ctx.diag().Error(Unsupported(), kArea,
                          "no room for the handle aperture above the GPU apertures");
}

// Reserved mode: one PROT_NONE reservation inside the SVM range. Tried
// first at the range's 2 MiB-aligned base, then wherever the kernel puts a
// mapping of that size (accepted when it lies in the range: sanitizers and
// loaders often own the low addresses); the size halves down to 4 GiB, as
// upstream's search does.
Status ReserveSvm(Context& ctx, MemoryState& m) {
  uint64_t base = 0;
  if (!CheckedAlignUp(m.svm_base, kTwoMiB, &base)) return Overflow();
  const uint64_t limit = m.svm_limit < kReservedLimit ? m.svm_limit : kReservedLimit;
  if (limit <= base) return ctx.diag().Error(Unsupported(), kArea, "the SVM range is empty");
  const Platform& p = ctx.platform();
  const uint32_t anon = HKE_MAP_PRIVATE | HKE_MAP_ANONYMOUS | HKE_MAP_NORESERVE;
  // A 32-bit process has no 4 GiB to spare: it accepts down to 256 MiB.
  const uint64_t min_size = sizeof(void*) < 8 ? (256ull << 20) : (4ull << 30);
  // At most 64 GiB: a window of hundreds of GiB can land across a
  // sanitizer's or loader's reserved regions (upstream tries up to 1 TiB).
  uint64_t first = (limit - base + 1) & ~(kTwoMiB - 1);
  if (first > kAnywhereMax) first = kAnywhereMax;
  for (uint64_t size = first; size >= min_size; size /= 2) {
    size_t length = 0, padded = 0;
    if (!CheckedCast(size, &length) || !CheckedCast(size + kTwoMiB, &padded) ||
        padded < length) {
      continue;  // larger than this process's address space
    }
    uint64_t start = 0;
    void* got = nullptr;
    Status s = p.Mmap(reinterpret_cast<void*>(static_cast<uintptr_t>(base)), length, HKE_PROT_NONE, anon | HKE_MAP_FIXED_NOREPLACE, -1,
                      0, &got);
    if (s.ok() && reinterpret_cast<uintptr_t>(got) == base) {
      start = base;
    } else {
      if (s.ok()) (void)p.Munmap(got, length);
      // Anywhere, 2 MiB aligned by over-allocating and trimming; at most
      // 64 GiB (a kernel-placed window of hundreds of GiB can land across
      // a sanitizer's or loader's reserved regions).
      if (size > kAnywhereMax) continue;
      s = p.Mmap(nullptr, padded, HKE_PROT_NONE, anon, -1, 0, &got);
      if (!s.ok()) continue;
      const uint64_t raw = reinterpret_cast<uintptr_t>(got);
      const uint64_t aligned = (raw + kTwoMiB - 1) & ~(kTwoMiB - 1);
      if (aligned > raw) (void)p.Munmap(got, static_cast<size_t>(aligned - raw));
      const uint64_t tail = raw + size + kTwoMiB - (aligned + size);
      if (tail != 0) {
        (void)p.Munmap(reinterpret_cast<void*>(static_cast<uintptr_t>(aligned + size)),
                       static_cast<size_t>(tail));
      }
      if (aligned < m.svm_base || aligned + size - 1 > m.svm_limit) {
        (void)p.Munmap(reinterpret_cast<void*>(static_cast<uintptr_t>(aligned)),
                       static_cast<size_t>(size));
        continue;
      }
      start = aligned;
    }
    const uint64_t quarter = (size / 4) & ~(uint64_t{64 * 1024} - 1);
    Status i = m.svm_coherent_arena.Init(&m.nodes, start, quarter, m.page_size);
    if (i.ok()) i = m.svm_arena.Init(&m.nodes, start + quarter, size - quarter, m.page_size);
    if (!i.ok()) {
      m.svm_coherent_arena.Reset();
      (void)p.Munmap(reinterpret_cast<void*>(static_cast<uintptr_t>(start)),
                     static_cast<size_t>(size));
      return i;
    }
    m.svm_base = start;
    m.svm_limit = start + size - 1;
    return Status::Ok();
  }
  return ctx.diag().Error(Status::Errno(err::kENOMEM), kArea,
                          "cannot reserve the SVM range (reserved mode)");
}

void UnreserveHandleAperture(Context& ctx, MemoryState& m) {
  if (!m.handle_reserved) return;
  const Status s = ctx.platform().Munmap(
      reinterpret_cast<void*>(static_cast<uintptr_t>(m.handle_base)),
      static_cast<size_t>(m.handle_size));
  if (!s.ok()) {
    (void)ctx.diag().Report(HKE_DIAG_WARNING, s, kArea,
                            "munmap of the handle-aperture window failed; it stays mapped");
  }
  m.handle_reserved = false;
}

// Unmaps [base, end) (end exclusive) with a warning on failure.
void UnmapRange(Context& ctx, uint64_t base, uint64_t end, const char* what) {
  if (end <= base) return;
  const Status s = ctx.platform().Munmap(reinterpret_cast<void*>(static_cast<uintptr_t>(base)),
                                         static_cast<size_t>(end - base));
  if (!s.ok()) (void)ctx.diag().Report(HKE_DIAG_WARNING, s, kArea, what);
}

// The reserved SVM range goes, except the kept range inside it.
void UnreserveSvm(Context& ctx, MemoryState& m) {
  if (!m.reserved_mode || m.svm_limit == 0) return;
  const char* what = "munmap of the reserved SVM range failed; it stays mapped";
  const uint64_t end = m.svm_limit + 1;
  const uint64_t kept_end = m.kept_base + m.kept_size;
  if (m.kept_size != 0 && m.kept_base >= m.svm_base && kept_end <= end) {
    UnmapRange(ctx, m.svm_base, m.kept_base, what);
    UnmapRange(ctx, kept_end, end, what);
  } else {
    UnmapRange(ctx, m.svm_base, end, what);
  }
}

Status AcquireVms(Context& ctx, MemoryState& m) {
  for (uint32_t g = 0; g < m.num_gpus; ++g) {
    GpuVm& gpu = m.gpus[g];
    if (gpu.render_fd < 0) {
      return ctx.diag().Error(FailedPrecondition(), kArea, "a GPU's render node is not open");
    }
    kfd::AcquireVmArgs a{};
    a.drm_fd = static_cast<uint32_t>(gpu.render_fd);
    a.gpu_id = gpu.gpu_id;
    const Status s = device::Ioctl(ctx, &a);
    if (!s.ok()) {
      FixedText<96> t;
      t.Append("ACQUIRE_VM failed for gpu_id ").AppendU64(gpu.gpu_id).Append(": ").Append(
          StatusName(s));
      return ctx.diag().Error(s, kArea, t.c_str());
    }
    gpu.vm_acquired = true;
  }
  return Status::Ok();
}

Status SetPolicies(Context& ctx, MemoryState& m) {
  if (m.svm_limit == 0) return Status::Ok();
  for (uint32_t g = 0; g < m.num_gpus; ++g) {
    kfd::SetMemoryPolicyArgs a{};
    a.gpu_id = m.gpus[g].gpu_id;
    a.default_policy = kfd::kCachePolicyNonCoherent;
    a.alternate_policy = kfd::kCachePolicyCoherent;
    if (m.reserved_mode) {
      // The fine-grain arena is the alternate aperture.
      a.alternate_aperture_base = m.svm_coherent_arena.base();
      a.alternate_aperture_size = m.svm_coherent_arena.size();
    } else {
      a.alternate_aperture_base = m.svm_base;
      a.alternate_aperture_size = m.svm_limit - m.svm_base + 1;
    }
    const Status s = device::Ioctl(ctx, &a);
    if (!s.ok()) return ctx.diag().Failed(s, kArea, "SET_MEMORY_POLICY");
  }
  return Status::Ok();
}

// An object whose BO the kernel backs with device pages served through
// /dev/kfd (the MMIO_REMAP page, a doorbell slice): a VA reservation, ALLOC
// with `flags`, an mmap of /dev/kfd at the reply's offset over the VA, and a
// MAP to the GPU's default targets (its peers, as upstream maps both). On
// failure everything made is released and the status returned.
Status CreateKfdMapped(Context& ctx, MemoryState& m, uint16_t g, ObjectKind kind, uint32_t flags,
                       uint64_t size, uint32_t* out_slot) {
  GpuVm& gpu = m.gpus[g];
  int kfd_fd = -1;
  HKE_RETURN_IF_ERROR(KfdFd(ctx, &kfd_fd));
  uint32_t slot = kNoSlot;
  HKE_RETURN_IF_ERROR(TakeSlot(ctx, m, &slot));
  MemObject* o = &m.objects[slot];
  VaRange r{};
  const VaSource src = m.reserved_mode ? VaSource::kSvmCoherentArena : VaSource::kMmap;
  Status s = ReserveVaForSlot(ctx, m, slot, src, size, m.page_size, 0, &r);
  HKE_RETURN_IF_ERROR(s);
  o->kind = kind;
  o->owner = kind == ObjectKind::kMmio ? Owner::kVm : Owner::kQueues;
  AdoptVa(o, r);
  o->size = size;
  o->request_size = size;
  o->gpu = g;
  o->node = gpu.node;
  o->mem_flags = 0;
  s = AllocBo(ctx, m, g, flags, r.va, size, 0, &o->handle, &o->mmap_offset);
  if (s.ok()) {
    void* got = nullptr;
    s = ctx.platform().Mmap(reinterpret_cast<void*>(static_cast<uintptr_t>(r.va)),
                            static_cast<size_t>(size), HKE_PROT_READ | HKE_PROT_WRITE,
                            HKE_MAP_SHARED | HKE_MAP_FIXED, kfd_fd, o->mmap_offset, &got);
  }
  if (s.ok()) {
    GpuSet targets;
    DefaultTargets(m, *o, &targets);
    s = MapBo(ctx, m, o->handle, targets);
    if (s.ok()) {
      o->mapped = targets;
      o->map_count = 1;
    }
  }
  if (s.ok()) s = Index(ctx, m, o);
  if (!s.ok()) {
    (void)DestroyObject(ctx, m, o);
    return s;
  }
  *out_slot = slot;
  return Status::Ok();
}

// The MMIO_REMAP page of one GPU; failures only lose the bank.
void SetUpMmio(Context& ctx, MemoryState& m, uint16_t g) {
  GpuVm& gpu = m.gpus[g];
  const uint64_t page = m.page_size;
  if (page != 4096) return;  // the kernel cannot remap MMIO with larger pages
  const uint32_t flags = kfd::kAllocMemMmioRemap | kfd::kAllocMemWritable |
                         kfd::kAllocMemNoSubstitute | kfd::kAllocMemCoherent;
  uint32_t slot = kNoSlot;
  const Status s = CreateKfdMapped(ctx, m, g, ObjectKind::kMmio, flags, page, &slot);
  if (!s.ok()) {
    (void)ctx.diag().Report(HKE_DIAG_WARNING, s, kArea,
                            "the MMIO_REMAP page is unavailable; the bank is not reported");
    return;
  }
  gpu.mmio_va = m.objects[slot].va;
  gpu.mmio_handle = m.objects[slot].handle;
  gpu.mmio_object = slot;
}

// Drops every object slot and range node, no I/O; the kept range stays.
void ResetStorage(MemoryState& m) {
  const uint64_t kept_base = m.kept_base, kept_size = m.kept_size;
  m.handle_arena.Reset();
  m.svm_arena.Reset();
  m.svm_coherent_arena.Reset();
  m.va_index.Clear();
  m.user_index.Clear();
  m.owned_index.Clear();
  new (&m.nodes) FixedRangeNodePool<kRangeNodes>();
  m.Construct();
  m.kept_base = kept_base;
  m.kept_size = kept_size;
}

}  // namespace

void AfterTopologyTaken(Context& ctx) {
  const Status s = InitVmLocked(ctx);
  if (!s.ok()) {
    (void)ctx.diag().Report(HKE_DIAG_WARNING, s, "topology",
                            "the GPU VM could not be set up; memory calls will fail");
    return;
  }
  topology::Acquisition topo(ctx);
  for (uint32_t k = 0; k < topo.num_gpus(); ++k) {
    topo.SetMmioBase(k, MmioBase(ctx, topo.gpu_at(k).gpu_id));
  }
}

Status EnsureTopologyAndVm(Context& ctx) {
  LockGuard g(ctx.topology_lock());
  topology::Acquisition topo(ctx);
  if (!topo.Current()) {
    HKE_RETURN_IF_ERROR(topo.Take());
    if (!ctx.discovery_only()) AfterTopologyTaken(ctx);
    return Status::Ok();
  }
  return InitVmLocked(ctx);
}

Status InitVmLocked(Context& ctx) {
  const uint32_t epoch = device::OpenEpoch(ctx);
  LockGuard g(ctx.memory_lock());
  MemoryState& m = ctx.memory();
  if (m.initialized && m.epoch == epoch) return Status::Ok();
  if (m.initialized || m.objects.live() != 0) ResetStorage(m);  // stale: an older epoch (fork)

  size_t page = 4096;
  HKE_RETURN_IF_ERROR(ctx.platform().PageSize(&page));
  uint32_t page32 = 0;
  if (!CheckedCast(page, &page32) || !IsPowerOfTwo(page32)) {
    return ctx.diag().Error(Protocol(), kArea, "the platform page size is not a power of two");
  }
  m.page_size = page32;
  const topology::Acquisition topo(ctx);
  CaptureGpus(ctx, topo, m);
  CaptureNumaTargets(topo.snapshot(), &m.numa);
  m.dgpu = topo.dgpu();
  (void)topo.Svm(&m.svm_base, &m.svm_limit);
  bool narrow = false;
  bool all_gfx950 = m.num_gpus > 0;
  bool svm_api = m.num_gpus > 0 && device::KfdMinor(ctx) >= kfd::kMinorSvm;
  for (uint32_t i = 0; i < m.num_gpus; ++i) {
    if (m.gpus[i].gpuvm.limit != 0 && m.gpus[i].gpuvm.limit < kCanonicalLimit) narrow = true;
    if (m.gpus[i].device_id == 0 || !(m.gpus[i].gfx_major == 9)) all_gfx950 = false;
    svm_api = svm_api && m.gpus[i].svm_api;
  }
  // 1 GiB automatic alignment only when every GPU is gfx950 (9.5.0).
  m.align_order_max = 9;
  if (all_gfx950) {
    bool every = true;
    for (uint32_t i = 0; i < m.num_gpus; ++i) {
      const topology::NodeRecord* r = topo.snapshot().node(m.gpus[i].node);
      every = every && r != nullptr && r->Get32(topology::kGfxTargetVersion) == 90500;
    }
    if (every) m.align_order_max = 18;
  }
  m.svm_api = svm_api && (ctx.config().flags & HKE_CONFIG_LEGACY_USERPTR) == 0;
  m.reserved_mode = m.svm_limit != 0 &&
                    ((ctx.config().flags & HKE_CONFIG_RESERVE_SVM) != 0 || narrow);

  Status s = PlaceHandleAperture(ctx, m);
  if (s.ok() && m.reserved_mode) s = ReserveSvm(ctx, m);
  if (s.ok()) s = AcquireVms(ctx, m);
  if (s.ok()) s = SetPolicies(ctx, m);
  if (!s.ok()) {
    UnreserveSvm(ctx, m);
    UnreserveHandleAperture(ctx, m);
    ResetStorage(m);
    return s;
  }
  for (uint16_t i = 0; i < m.num_gpus; ++i) SetUpMmio(ctx, m, i);
  m.initialized = true;
  m.epoch = epoch;
  m.ready_epoch.store(uint64_t{epoch} + 1, std::memory_order_release);
  return Status::Ok();
}

Status Teardown(Context& ctx) {
  LockGuard g(ctx.memory_lock());
  MemoryState& m = ctx.memory();
  if (!m.initialized) return Status::Ok();
  // The MMIO pages go last, as upstream releases them at close.
  Status first = Status::Ok();
  for (int pass = 0; pass < 2; ++pass) {
    // The MMIO pages stay while anything else does (the retry frees them).
    if (pass == 1 && !first.ok()) break;
    for (uint32_t slot = 0; slot < m.objects.high_water(); ++slot) {
      if (!m.objects.IsUsed(slot)) continue;
      MemObject* o = &m.objects[slot];
      if ((o->kind == ObjectKind::kMmio) != (pass == 1)) continue;
      const Status s = DestroyObject(ctx, m, o, /*force=*/true);
      if (!s.ok() && first.ok()) first = s;
    }
  }
  if (m.objects.live() != 0) {
    // The kernel refused some FREE: keep everything tracked (and the VM
    // up) so the caller can retry the close.
    return ctx.diag().Error(first.ok() ? Status::Api(HKE_STATUS_INTERNAL) : first, kArea,
                            "the kernel refused to free some memory at close; the device stays "
                            "open so the close can be retried");
  }
  UnreserveSvm(ctx, m);
  UnreserveHandleAperture(ctx, m);
  ResetStorage(m);
  return first;
}

void Forget(Context& ctx) {
  LockGuard g(ctx.memory_lock());
  MemoryState& m = ctx.memory();
  UnmapRange(ctx, m.kept_base, m.kept_base + m.kept_size,
             "munmap of the kept events-page range failed; it stays mapped");
  ResetStorage(m);
  m.kept_base = m.kept_size = 0;
}

Status MapDoorbell(Context& ctx, uint32_t gpu_id, uint64_t size, uint64_t* out_va) {
  if (out_va == nullptr || size == 0) return InvalidArgument();
  HKE_RETURN_IF_ERROR(EnsureVm(ctx));
  LockGuard lock(ctx.memory_lock());
  MemoryState& m = ctx.memory();
  if (!m.initialized) return FailedPrecondition();
  uint16_t g = kNoGpu;
  for (uint16_t i = 0; i < m.num_gpus; ++i) {
    if (m.gpus[i].gpu_id == gpu_id) g = i;
  }
  if (g == kNoGpu) return InvalidNode();
  if (size % m.page_size != 0) return InvalidArgument();
  const uint32_t flags = kfd::kAllocMemDoorbell | kfd::kAllocMemWritable |
                         kfd::kAllocMemNoSubstitute | kfd::kAllocMemCoherent;
  uint32_t slot = kNoSlot;
  HKE_RETURN_IF_ERROR(CreateKfdMapped(ctx, m, g, ObjectKind::kDoorbell, flags, size, &slot));
  *out_va = m.objects[slot].va;
  return Status::Ok();
}

Status FreeDoorbell(Context& ctx, uint64_t va) {
  HKE_RETURN_IF_ERROR(device::CheckOpen(ctx));
  LockGuard lock(ctx.memory_lock());
  MemoryState& m = ctx.memory();
  MemObject* o = m.initialized ? FindExact(m, va) : nullptr;
  if (o == nullptr || o->kind != ObjectKind::kDoorbell) return NotFound();
  return DestroyObject(ctx, m, o);
}

VmFacts Facts(Context& ctx) {
  LockGuard g(ctx.memory_lock());
  const MemoryState& m = ctx.memory();
  return VmFacts{m.page_size, m.dgpu};
}

uint32_t GpuIdOfNode(Context& ctx, uint32_t node) {
  LockGuard g(ctx.memory_lock());
  const MemoryState& m = ctx.memory();
  if (node >= m.num_nodes || m.gpu_of_node[node] == kNoGpu) return 0;
  return m.gpus[m.gpu_of_node[node]].gpu_id;
}

uint64_t MmioBase(Context& ctx, uint32_t gpu_id) {
  LockGuard g(ctx.memory_lock());
  const MemoryState& m = ctx.memory();
  if (!m.initialized) return 0;
  for (uint32_t i = 0; i < m.num_gpus; ++i) {
    if (m.gpus[i].gpu_id == gpu_id) return m.gpus[i].mmio_va;
  }
  return 0;
}

}  // namespace hke::memory
