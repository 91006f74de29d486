// The per-open setup of the events subsystem and the signal page.
//
// The first CreateEvent of an open brings the VM up (memory::EnsureVm),
// records the GPUs (gpu_id -> node, for exception data), the KFD version
// (event ages need 1.14) and the process, and then, as upstream does:
//  - dGPU: allocates the 32 KiB page (node 0, NonPaged | HostAccess |
//    ExecuteAccess | Uncached: a GTT BO, KFD flags 0xd6000002), maps it to
//    every GPU and hands its BO handle to this first CREATE_EVENT, whatever
//    the event's type. If that CREATE_EVENT fails the page is freed again,
//    unless the kernel already took it (it then refuses the free, and the
//    page is kept as this open's page).
//  - APU: issues CREATE_EVENT without a page; the first signal or debug
//    event returns the EVENTS mmap offset of the kernel's page, which is
//    mapped (32 KiB, else one page as old kernels allow). A mapping that
//    fails destroys the event again.
// Everything runs under events_setup_lock, so concurrent first creates do
// not allocate two pages; memory calls are made without events_lock.
#include "lib/core/errno.h"
#include "lib/core/text.h"
#include "lib/device/kfd_device.h"
#include "lib/events/events_internal.h"
#include "lib/memory/memory.h"

namespace hke::events::internal {

bool PageBlockedLocked(const EventsState& st, uint32_t epoch) {
  return st.setup_epoch == epoch && st.dgpu && st.page_blocked;
}

bool NeedsSetupLocked(const EventsState& st, uint32_t epoch, uint32_t type) {
  if (st.setup_epoch != epoch) return true;
  if (st.page_epoch == epoch) return false;
  if (st.dgpu) return !st.page_blocked;  // the first event of any type brings the page
  return HasSlot(type);
}

uint32_t NodeOfGpuLocked(const EventsState& st, uint32_t gpu_id) {
  for (uint32_t i = 0; i < st.num_gpus; ++i) {
    if (st.gpus[i].gpu_id == gpu_id) return st.gpus[i].node;
  }
  return 0xffffffffu;
}

namespace {

// Records what the setup needs for `epoch`.
Status Prepare(Context& ctx, uint32_t epoch) {
  HKE_RETURN_IF_ERROR(memory::EnsureVm(ctx));
  LockGuard m(ctx.memory_lock());
  LockGuard e(ctx.events_lock());
  EventsState& st = ctx.events();
  const memory::MemoryState& mem = ctx.memory();
  if (!mem.initialized || st.epoch != epoch) {
    return ctx.diag().Error(FailedPrecondition(), kArea, "the device was closed during CreateEvent");
  }
  st.dgpu = mem.dgpu && mem.num_gpus > 0;
  st.num_gpus = mem.num_gpus;
  st.node0_is_gpu = false;
  for (uint32_t i = 0; i < mem.num_gpus; ++i) {
    st.gpus[i].gpu_id = mem.gpus[i].gpu_id;
    st.gpus[i].node = mem.gpus[i].node;
    if (mem.gpus[i].node == 0) st.node0_is_gpu = true;
  }
  const device::DeviceFacts d = device::Facts(ctx);
  st.age_supported = d.version_minor >= kfd::kMinorEventAge;
  st.pid = d.open_pid;
  st.page_blocked = st.dgpu && st.user_page_pid != 0 && st.user_page_pid == st.pid;
  st.setup_epoch = epoch;
  return Status::Ok();
}

void RecordPage(Context& ctx, uint32_t epoch, PageKind kind, uint64_t va, uint64_t bytes) {
  LockGuard g(ctx.events_lock());
  EventsState& st = ctx.events();
  if (st.epoch != epoch) return;  // closed meanwhile; Teardown forgot the open
  st.page_epoch = epoch;
  st.page_kind = kind;
  st.page_va = va;
  st.page_bytes = bytes;
  if (kind == PageKind::kUserBo) st.user_page_pid = st.pid;
}

// dGPU: the page as upstream allocates it, mapped to every GPU.
Status AllocPage(Context& ctx, uint64_t* out_va, uint64_t* out_handle) {
  uint32_t nodes[config::kMaxGpus];
  uint32_t n = 0;
  bool node0_is_gpu = false;
  {
    LockGuard g(ctx.events_lock());
    const EventsState& st = ctx.events();
    for (uint32_t i = 0; i < st.num_gpus; ++i) nodes[n++] = st.gpus[i].node;
    node0_is_gpu = st.node0_is_gpu;
  }
  HsaMemFlags f;
  f.Value = 0;
  f.ui32.NonPaged = 1;
  f.ui32.HostAccess = 1;
  f.ui32.ExecuteAccess = 1;
  f.ui32.Uncached = 1;
  // System memory is asked for on node 0; where node 0 is a GPU, GTTAccess
  // keeps the page in GTT (the kernel maps only GTT BOs as event pages).
  if (node0_is_gpu) f.ui32.GTTAccess = 1;
  memory::AllocArgs a{};
  a.node = 0;
  a.size = kPageBytes;
  a.align = 0;
  a.flags = f.Value;
  a.owner = memory::Owner::kEvents;  // the caller can neither free nor remap it
  uint64_t va = 0;
  Status s = memory::Alloc(ctx, a, &va);
  if (!s.ok()) return ctx.diag().Error(s, kArea, "allocating the events page failed");
  s = memory::Map(ctx, va, kPageBytes, nodes, n, nullptr, memory::Owner::kEvents);
  uint64_t handle = 0;
  uint32_t gpu_id = 0;
  if (s.ok()) s = memory::BufferHandle(ctx, va, &handle, &gpu_id);
  if (!s.ok()) {
    (void)memory::Free(ctx, va, memory::Owner::kEvents);
    return ctx.diag().Error(s, kArea, "mapping the events page to the GPUs failed");
  }
  *out_va = va;
  *out_handle = handle;
  return Status::Ok();
}

Status SetupDgpu(Context& ctx, uint32_t epoch, uint32_t type, uint32_t node, bool auto_reset,
                 kfd::CreateEventResult* out) {
  uint64_t va = 0;
  uint64_t handle = 0;
  HKE_RETURN_IF_ERROR(AllocPage(ctx, &va, &handle));
  const Status s = CreateKernelEvent(ctx, type, node, auto_reset, handle, out);
  if (s.ok()) {
    // The KFD now holds the page until the process exits (it refuses to
    // free it): the memory subsystem must not UNMAP/FREE it at close.
    (void)memory::MarkKernelOwned(ctx, va);
    RecordPage(ctx, epoch, PageKind::kUserBo, va, kPageBytes);
    return s;
  }
  if (!memory::Free(ctx, va, memory::Owner::kEvents).ok()) {
    // The kernel took the page before the event failed: it is this
    // process's page now; keep it (and its GPU mappings) for later events.
    (void)memory::Map(ctx, va, kPageBytes, nullptr, 0, nullptr, memory::Owner::kEvents);
    (void)memory::MarkKernelOwned(ctx, va);
    RecordPage(ctx, epoch, PageKind::kUserBo, va, kPageBytes);
  }
  return s;
}

Status SetupApu(Context& ctx, uint32_t epoch, uint32_t type, uint32_t node, bool auto_reset,
                kfd::CreateEventResult* out) {
  kfd::CreateEventResult r{};
  HKE_RETURN_IF_ERROR(CreateKernelEvent(ctx, type, node, auto_reset, 0, &r));
  if (!HasSlot(type)) {
    *out = r;
    return Status::Ok();
  }
  const int fd = device::Facts(ctx).kfd_fd;
  size_t page_size = 4096;
  (void)ctx.platform().PageSize(&page_size);
  void* addr = nullptr;
  uint64_t bytes = kPageBytes;
  Status s = ctx.platform().Mmap(nullptr, static_cast<size_t>(bytes), HKE_PROT_READ | HKE_PROT_WRITE,
                                 HKE_MAP_SHARED, fd, r.events_mmap_offset, &addr);
  if (!s.ok() && page_size < kPageBytes) {
    // Kernels of the 256-event era map one page.
    bytes = page_size;
    s = ctx.platform().Mmap(nullptr, static_cast<size_t>(bytes), HKE_PROT_READ | HKE_PROT_WRITE,
                            HKE_MAP_SHARED, fd, r.events_mmap_offset, &addr);
  }
  if (!s.ok()) {
    (void)DestroyKernelEvent(ctx, r.event_id);
    return ctx.diag().Failed(s, kArea, "mapping the kernel's events page");
  }
  RecordPage(ctx, epoch, PageKind::kKernelMapping, reinterpret_cast<uintptr_t>(addr), bytes);
  *out = r;
  return Status::Ok();
}

}  // namespace

Status CreateWithSetup(Context& ctx, uint32_t epoch, uint32_t type, uint32_t node,
                       bool auto_reset, kfd::CreateEventResult* out) {
  LockGuard setup(ctx.events_setup_lock());
  bool prepared = false;
  bool need_page = false;
  bool dgpu = false;
  {
    LockGuard g(ctx.events_lock());
    prepared = ctx.events().setup_epoch == epoch;
  }
  if (!prepared) HKE_RETURN_IF_ERROR(Prepare(ctx, epoch));
  {
    LockGuard g(ctx.events_lock());
    const EventsState& st = ctx.events();
    if (HasSlot(type) && PageBlockedLocked(st, epoch)) {
      return ctx.diag().Error(
          Status::Api(HKE_STATUS_UNAVAILABLE), kArea,
          "the kernel keeps this process's events page from before hsaKmtCloseKFD: "
          "signal events need a new process on a dGPU");
    }
    need_page = NeedsSetupLocked(st, epoch, type);
    dgpu = st.dgpu;
  }
  if (!need_page) return CreateKernelEvent(ctx, type, node, auto_reset, 0, out);
  return dgpu ? SetupDgpu(ctx, epoch, type, node, auto_reset, out)
              : SetupApu(ctx, epoch, type, node, auto_reset, out);
}

}  // namespace hke::events::internal
