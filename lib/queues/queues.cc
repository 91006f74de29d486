// Queue operations: create, update, destroy, CU mask, wave state, GWS,
// teardown. See queues.h for the model and the rules.
#include "lib/queues/queues.h"

#include "lib/context/context.h"
#include "lib/core/checked.h"
#include "lib/core/errno.h"
#include "lib/core/text.h"
#include "lib/device/kfd_device.h"
#include "lib/events/events.h"
#include "lib/kfd/abi.h"
#include "lib/kfd/encode.h"
#include "lib/memory/memory.h"
#include "lib/topology/acquire.h"
#include "lib/topology/keys.h"

namespace hke::queues {

namespace {

constexpr const char* kArea = "queues";

// What Create learns about the node under the topology lock.
struct NodeInfo {
  NodeFacts facts;
  uint32_t gpu;     // topology GPU index
  uint32_t gpu_id;
  uint32_t kfd_minor;
};

Status ReadNode(Context& ctx, uint32_t node, NodeInfo* out) {
  const topology::Reader topo(ctx);
  if (!topo->acquired()) return FailedPrecondition();
  const topology::NodeRecord* r = topo->Node(node);
  if (r == nullptr || topo->GpuIndex(node) == topology::TopologyState::kNoGpu || !r->is_gpu()) {
    return ctx.diag().Error(InvalidNode(), kArea, "the node is not a GPU of this context");
  }
  NodeInfo n{};
  n.gpu = topo->GpuIndex(node);
  n.gpu_id = topo->gpu_at(n.gpu).gpu_id;
  n.facts.gfx_version = r->Get32(topology::kGfxTargetVersion);
  n.facts.num_fcompute_cores = r->Get32(topology::kSimdCount);
  n.facts.num_simd_per_cu = r->Get32(topology::kSimdPerCu);
  n.facts.num_xcc = r->Get32(topology::kNumXcc);
  n.facts.num_shader_banks = r->Get32(topology::kArrayCount);
  n.facts.num_arrays = r->Get32(topology::kSimdArraysPerEngine);
  n.facts.lds_size_kb = r->Get32(topology::kLdsSizeInKb);
  n.facts.num_sdma_engines = r->Get32(topology::kNumSdmaEngines);
  n.facts.num_sdma_xgmi_engines = r->Get32(topology::kNumSdmaXgmiEngines);
  *out = n;
  return Status::Ok();
}

bool IsCompute(uint32_t kfd_type) {
  return kfd_type == kfd::kQueueTypeCompute || kfd_type == kfd::kQueueTypeComputeAql;
}

// Slot table ---------------------------------------------------------------

// A live slot with a cleared descriptor.
Status TakeSlot(Context& ctx, QueuesState& q, uint32_t* out) {
  uint32_t slot = 0;
  if (!q.slots.Allocate(&slot)) {
    return ctx.diag().Error(Exhausted(), kArea,
                            "every queue slot is in use (config::kMaxQueues)");
  }
  q.slots.Publish(slot);
  q.slots[slot] = QueueSlot{};
  *out = slot;
  return Status::Ok();
}

Status Lookup(QueuesState& q, uint64_t id, uint32_t epoch, QueueSlot** out) {
  uint32_t slot = 0;
  if (!q.slots.Find(kQueueIdFormat, id, &slot) || q.slots[slot].epoch != epoch) {
    return InvalidHandle();
  }
  *out = &q.slots[slot];
  return Status::Ok();
}

// The current open epoch; queues and doorbell mappings of an older epoch
// (a forked child's inheritance: the kernel never knew them in this
// process) are forgotten without I/O. queues_lock held.
uint32_t CurrentEpoch(Context& ctx) {
  const uint32_t epoch = device::OpenEpoch(ctx);
  QueuesState& q = ctx.queues();
  if (q.epoch != epoch) {
    q.slots.FreeAll();
    for (uint32_t g = 0; g < config::kMaxGpus; ++g) q.doorbells[g] = DoorbellMapping{};
    q.epoch = epoch;
  }
  return epoch;
}

// A live queue of the current open, for one call: Acquire checks the
// device is open, takes the queues lock (held until the scope ends) and
// looks the handle up (INVALID_HANDLE for an unknown or stale one).
class QueueRef {
 public:
  QueueRef() = default;
  ~QueueRef() {
    if (lock_ != nullptr) lock_->unlock();
  }
  QueueRef(const QueueRef&) = delete;
  QueueRef& operator=(const QueueRef&) = delete;

  Status Acquire(Context& ctx, uint64_t queue_id) {
    HKE_RETURN_IF_ERROR(device::CheckOpen(ctx));
    lock_ = &ctx.queues_lock();
    lock_->lock();
    return Lookup(ctx.queues(), queue_id, CurrentEpoch(ctx), &slot_);
  }
  QueueSlot* get() const { return slot_; }
  QueueSlot* operator->() const { return slot_; }
  QueueSlot& operator*() const { return *slot_; }

 private:
  Mutex* lock_ = nullptr;
  QueueSlot* slot_ = nullptr;
};

// Buffers ------------------------------------------------------------------

// The flags of the queue's buffers (current upstream's): host memory (the
// queue page: non-paged, uncached, a GTT BO on a dGPU; the CWSR area:
// paged, a userptr BO) or the node's VRAM (EOP). A secondary context's host
// buffers are all non-paged (GTT): paged system memory of a dGPU is a
// userptr BO, which the kernel gives the primary kfd_process only.
enum class Buffer { kQueuePage, kCwsr, kEop };
HsaMemFlags BufferFlags(const Context& ctx, Buffer which) {
  const bool device_local = which == Buffer::kEop;
  const bool uncached = which == Buffer::kQueuePage;
  HsaMemFlags f{};
  f.ui32.HostAccess = device_local ? 0 : 1;
  f.ui32.NonPaged = which != Buffer::kCwsr || ctx.secondary() ? 1 : 0;
  f.ui32.CoarseGrain = device_local ? 1 : 0;
  f.ui32.Uncached = uncached ? 1 : 0;
  f.ui32.ExecuteAccess = 1;
  f.ui32.PageSize = HSA_PAGE_SIZE_4KB;
  return f;
}

Status AllocMapped(Context& ctx, uint32_t alloc_node, uint32_t map_node, uint64_t size,
                   HsaMemFlags flags, uint64_t* out_va) {
  memory::AllocArgs a{};
  a.node = alloc_node;
  a.size = size;
  a.flags = flags.Value;
  a.owner = memory::Owner::kQueues;  // the caller can neither free nor remap it
  // Host buffers are BOs of the queue's GPU and paged ones go to the NUMA
  // node nearest it (upstream's queue allocations pass the queue's gpu_id
  // and ask for that CPU node).
  a.place_near = true;
  a.place_node = map_node;
  uint64_t va = 0;
  HKE_RETURN_IF_ERROR(memory::Alloc(ctx, a, &va));
  const Status s = memory::Map(ctx, va, size, &map_node, 1, nullptr, memory::Owner::kQueues);
  if (!s.ok()) {
    (void)memory::Free(ctx, va, memory::Owner::kQueues);
    return s;
  }
  *out_va = va;
  return Status::Ok();
}

// Frees the buffers recorded in `s` (best effort; the first failure is
// returned, the rest are still attempted).
Status FreeBuffers(Context& ctx, QueueSlot& s) {
  Status first = Status::Ok();
  uint64_t* vas[3] = {&s.eop_va, &s.cwsr_va, &s.page_va};  // upstream's order
  for (uint64_t* va : vas) {
    if (*va == 0) continue;
    const Status f = memory::Free(ctx, *va, memory::Owner::kQueues);
    if (f.ok()) {
      *va = 0;
    } else if (first.ok()) {
      first = f;
    }
  }
  return first;
}

// Doorbells ----------------------------------------------------------------

// One queue fewer on the node; the mapping stays until the last close
// (ReleaseDoorbells), as upstream keeps it: creating the next queue on the
// node then costs no mapping.
void DropDoorbell(QueuesState& q, uint32_t gpu) {
  DoorbellMapping& d = q.doorbells[gpu];
  if (d.users > 0) --d.users;
}

// Releases every node's doorbell mapping (the last close).
void ReleaseDoorbells(Context& ctx, QueuesState& q) {
  for (uint32_t g = 0; g < config::kMaxGpus; ++g) {
    DoorbellMapping& d = q.doorbells[g];
    if (d.va == 0) continue;
    const Status s =
        d.bo ? memory::FreeDoorbell(ctx, d.va)
             : ctx.platform().Munmap(reinterpret_cast<void*>(static_cast<uintptr_t>(d.va)),
                                     static_cast<size_t>(d.size));
    if (!s.ok()) {
      (void)ctx.diag().Report(HKE_DIAG_WARNING, s, kArea,
                              "releasing a doorbell slice failed; memory teardown retries a BO");
    }
    d = DoorbellMapping{};
  }
}

// Maps the node's doorbell slice if needed and returns the queue's doorbell.
Status UseDoorbell(Context& ctx, QueuesState& q, const NodeInfo& n, uint32_t epoch,
                   const kfd::CreateQueueResult& r, uint64_t* out_doorbell) {
  DoorbellMapping& d = q.doorbells[n.gpu];
  const memory::VmFacts vm = memory::Facts(ctx);
  const uint32_t page = vm.page_size;
  const uint64_t slice = DoorbellSliceSize(n.facts.gfx_version, page);
  const bool soc15 = DoorbellBytes(n.facts.gfx_version) == 8;
  const uint64_t in_slice = soc15 ? (r.doorbell_offset & (slice - 1)) : uint64_t{r.queue_id} * 4u;
  if (in_slice + DoorbellBytes(n.facts.gfx_version) > slice) {
    return ctx.diag().Error(Protocol(), kArea, "the kernel's doorbell offset is outside the slice");
  }
  if (d.va == 0 || d.epoch != epoch) {
    uint64_t va = 0;
    // dGPUs: a DOORBELL BO, mapped to the GPUs as well; APUs (and Tonga,
    // pre-SOC15): a plain mapping of /dev/kfd. Both as upstream.
    const bool bo = vm.dgpu && soc15;
    if (bo) {
      const Status s = memory::MapDoorbell(ctx, n.gpu_id, slice, &va);
      if (!s.ok()) return ctx.diag().Error(s, kArea, "mapping the node's doorbell BO failed");
    } else {
      const int fd = device::Facts(ctx).kfd_fd;
      const uint64_t offset = soc15 ? (r.doorbell_offset & ~(slice - 1)) : r.doorbell_offset;
      void* got = nullptr;
      const Status s = ctx.platform().Mmap(nullptr, static_cast<size_t>(slice),
                                           HKE_PROT_READ | HKE_PROT_WRITE, HKE_MAP_SHARED, fd,
                                           offset, &got);
      if (!s.ok()) return ctx.diag().Error(s, kArea, "mapping the node's doorbell slice failed");
      va = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(got));
    }
    d.va = va;
    d.size = slice;
    d.users = 0;
    d.epoch = epoch;
    d.bo = bo;
  }
  ++d.users;
  *out_doorbell = d.va + in_slice;
  return Status::Ok();
}

// CWSR headers: one kfd_context_save_area_header per XCC.
struct SaveAreaHeader {
  uint32_t control_stack_offset;
  uint32_t control_stack_size;
  uint32_t wave_state_offset;
  uint32_t wave_state_size;
  uint32_t debug_offset;
  uint32_t debug_size;
  uint64_t err_payload_addr;
  uint32_t err_event_id;
  uint32_t reserved1;
};
static_assert(sizeof(SaveAreaHeader) == 40, "kfd_context_save_area_header");

void WriteHeaders(uint64_t base, const CwsrSizes& c, uint32_t xcc, uint64_t error_reason,
                  uint32_t event_id) {
  for (uint32_t i = 0; i < xcc; ++i) {
    SaveAreaHeader h{};
    // Debug areas follow every XCC's save area, one per XCC in order.
    h.debug_offset = (xcc - i) * c.per_xcc_size + i * c.debug_size;
    h.debug_size = c.debug_size;
    h.err_payload_addr = error_reason;
    h.err_event_id = event_id;
    auto* dst = reinterpret_cast<SaveAreaHeader*>(
        static_cast<uintptr_t>(base + uint64_t{i} * c.per_xcc_size));
    *dst = h;
  }
}

uint32_t* CuMaskIn(const QueueSlot& s) {
  return reinterpret_cast<uint32_t*>(static_cast<uintptr_t>(s.page_va + kCuMaskOffset));
}

Status CheckPercentage(Context& ctx, uint32_t p) {
  if ((p & ~0xFFFFu) != 0 || (p & 0xFFu) > kfd::kMaxQueuePercentage) {
    return ctx.diag().Error(InvalidArgument(), kArea,
                            "queue percentage: the low byte must be at most 100, bits 8-15 "
                            "name a PM4 target XCC, the rest must be zero");
  }
  return Status::Ok();
}

Status RingError(Context& ctx, Status s, bool update) {
  return ctx.diag().Error(s, kArea,
                          update ? "queue ring: the address must be 256-byte aligned, the size a "
                                   "power of two from 1 KiB to 2 GiB; a NULL ring (size 0) "
                                   "disables the queue"
                                 : "queue ring: the address must be non-null and 256-byte "
                                   "aligned, the size a power of two from 1 KiB to 2 GiB");
}

}  // namespace

// ---------------------------------------------------------------------------

Status Create(Context& ctx, const CreateArgs& args, HsaQueueResource* out) {
  if (out == nullptr) return InvalidArgument();
  uint32_t kfd_type = 0;
  Status s = TypeToKfd(args.hsa_type, args.ext, &kfd_type);
  if (!s.ok()) {
    return ctx.diag().Error(s, kArea,
                            args.hsa_type == HSA_QUEUE_SDMA_BY_ENG_ID
                                ? "SDMA_BY_ENG_ID queues are created with hsaKmtCreateQueueExt"
                                : "unsupported queue type");
  }
  uint32_t priority = 0;
  if (!PriorityToKfd(args.priority, &priority)) {
    return ctx.diag().Error(InvalidArgument(), kArea, "queue priority must be within -3..3");
  }
  HKE_RETURN_IF_ERROR(CheckPercentage(ctx, args.percentage));
  s = CheckRing(args.ring_va, args.ring_size, false);
  if (!s.ok()) return RingError(ctx, s, false);
  if (kfd_type == kfd::kQueueTypeComputeAql &&
      (args.aql_read_ptr == 0 || args.aql_write_ptr == 0 || (args.aql_read_ptr & 7u) != 0 ||
       (args.aql_write_ptr & 7u) != 0)) {
    return ctx.diag().Error(InvalidArgument(), kArea,
                            "an AQL queue needs 8-byte aligned read and write pointers in "
                            "QueueResource");
  }
  // The engine id means something only for SDMA_BY_ENG_ID (checked below);
  // other types pass it on as upstream does, and the kernel ignores it (the
  // runtime passes -1 on SDMA and xGMI SDMA queues).
  HKE_RETURN_IF_ERROR(device::CheckOpen(ctx));
  HKE_RETURN_IF_ERROR(memory::EnsureTopologyAndVm(ctx));

  LockGuard lock(ctx.queues_lock());
  QueuesState& q = ctx.queues();
  const uint32_t epoch = CurrentEpoch(ctx);
  NodeInfo n{};
  HKE_RETURN_IF_ERROR(ReadNode(ctx, args.node, &n));
  if (kfd_type == kfd::kQueueTypeSdmaByEngId) {
    uint32_t vmajor = 0, vminor = 0;
    HKE_RETURN_IF_ERROR(device::GetVersion(ctx, &vmajor, &vminor));
    if (vminor < kfd::kMinorSdmaByEngineId) {
      return ctx.diag().Error(Unsupported(), kArea, "SDMA_BY_ENG_ID queues need KFD 1.17");
    }
    if (uint64_t{args.sdma_engine_id} >=
        uint64_t{n.facts.num_sdma_engines} + n.facts.num_sdma_xgmi_engines) {
      return ctx.diag().Error(OutOfRange(), kArea,
                              "the SDMA engine id is not below the node's SDMA + xGMI SDMA engines");
    }
  }
  if (kfd_type == kfd::kQueueTypeSdmaXgmi && n.facts.num_sdma_xgmi_engines == 0) {
    return ctx.diag().Error(Unsupported(), kArea, "the node has no xGMI SDMA engine");
  }
  const uint32_t page = memory::Facts(ctx).page_size;
  CwsrSizes cwsr{};
  const bool want_cwsr = IsCompute(kfd_type) && HasCwsr(n.facts.gfx_version);
  if (want_cwsr) {
    s = ComputeCwsr(n.facts, page, &cwsr);
    if (!s.ok()) {
      return ctx.diag().Error(s, kArea, "the node's properties give no valid CWSR size");
    }
  }
  uint32_t event_id = 0;
  if (args.event != nullptr) {
    s = events::KernelId(ctx, args.event, &event_id);
    if (!s.ok()) return ctx.diag().Error(s, kArea, "the queue's event is not a live event");
  }

  uint32_t slot = 0;
  HKE_RETURN_IF_ERROR(TakeSlot(ctx, q, &slot));
  QueueSlot& qs = q.slots[slot];
  qs.epoch = epoch;
  qs.node = args.node;
  qs.gpu = n.gpu;
  qs.gpu_id = n.gpu_id;
  qs.kfd_type = kfd_type;
  qs.gfx_version = n.facts.gfx_version;
  qs.ring_va = args.ring_va;
  qs.ring_size = args.ring_size;
  qs.num_xcc = n.facts.num_xcc == 0 ? 1 : n.facts.num_xcc;

  auto fail = [&](Status st) {
    (void)FreeBuffers(ctx, qs);
    q.slots.Free(slot);
    return st;
  };

  // System memory: the node's own memory on an APU (node 0 on a dGPU box).
  s = AllocMapped(ctx, 0, args.node, page, BufferFlags(ctx, Buffer::kQueuePage), &qs.page_va);
  if (!s.ok()) return fail(ctx.diag().Error(s, kArea, "allocating the queue page failed"));
  const uint32_t eop = EopBufferSize(n.facts.gfx_version, kfd_type);
  if (eop != 0) {
    s = AllocMapped(ctx, args.node, args.node, eop, BufferFlags(ctx, Buffer::kEop), &qs.eop_va);
    if (!s.ok()) return fail(ctx.diag().Error(s, kArea, "allocating the EOP buffer failed"));
  }
  if (want_cwsr) {
    s = AllocMapped(ctx, 0, args.node, cwsr.total_size, BufferFlags(ctx, Buffer::kCwsr), &qs.cwsr_va);
    if (!s.ok()) return fail(ctx.diag().Error(s, kArea, "allocating the CWSR area failed"));
    WriteHeaders(qs.cwsr_va, cwsr, qs.num_xcc, args.error_reason, event_id);
    qs.ctl_stack_size = cwsr.ctl_stack_size;
    qs.per_xcc_size = cwsr.per_xcc_size;
    qs.debug_size = cwsr.debug_size;
  }

  kfd::QueueRequest req{};
  req.gpu_id = n.gpu_id;
  req.queue_type = kfd_type;
  req.ring_base = args.ring_va;
  req.ring_size = static_cast<uint32_t>(args.ring_size);
  req.percentage = args.percentage;
  req.priority = priority;
  req.sdma_engine_id = args.sdma_engine_id;
  if (kfd_type == kfd::kQueueTypeComputeAql) {
    req.read_ptr = args.aql_read_ptr;
    req.write_ptr = args.aql_write_ptr;
  } else {
    req.read_ptr = qs.page_va + kRptrOffset;
    req.write_ptr = qs.page_va + kWptrOffset;
  }
  req.eop_addr = qs.eop_va;
  req.eop_size = qs.eop_va != 0 ? eop : 0;
  if (want_cwsr) {
    req.ctx_save_addr = qs.cwsr_va;
    req.ctx_save_size = cwsr.per_xcc_size;
    req.ctl_stack_size = cwsr.ctl_stack_size;
  }
  kfd::CreateQueueArgs sent{};
  s = kfd::EncodeCreateQueue(req, &sent);
  if (!s.ok()) return fail(ctx.diag().Error(s, kArea, "the CREATE_QUEUE request is invalid"));
  kfd::CreateQueueArgs reply = sent;
  s = device::Ioctl(ctx, &reply);
  if (!s.ok()) return fail(ctx.diag().Error(s, kArea, "the kernel refused CREATE_QUEUE"));
  kfd::CreateQueueResult r{};
  s = kfd::DecodeCreateQueue(sent, reply, &r);
  if (s.ok()) s = UseDoorbell(ctx, q, n, epoch, r, &qs.doorbell_va);
  if (!s.ok()) {
    kfd::DestroyQueueArgs d{};
    if (kfd::EncodeDestroyQueue(reply.queue_id, &d).ok()) {
      (void)device::Ioctl(ctx, &d);
    }
    return fail(ctx.diag().Error(s, kArea, "the CREATE_QUEUE reply is unusable"));
  }
  qs.kfd_queue_id = r.queue_id;

  // The initial CU mask: every CU of the node, rounded up to 32 bits.
  uint32_t cus = n.facts.num_fcompute_cores / n.facts.num_simd_per_cu;
  if (cus > kCuMaskWords * 32) cus = kCuMaskWords * 32;
  uint32_t* mask = CuMaskIn(qs);
  for (uint32_t w = 0; w < kCuMaskWords; ++w) {
    const uint32_t lo = w * 32;
    mask[w] = cus >= lo + 32 ? 0xFFFFFFFFu : (cus > lo ? (1u << (cus - lo)) - 1u : 0u);
  }
  qs.cu_mask_bits = (cus + 31) / 32 * 32;

  HsaQueueResource res = *out;
  res.QueueId = q.slots.Encode(kQueueIdFormat, slot);
  res.QueueDoorBell = qs.doorbell_va;
  res.QueueWptrValue = req.write_ptr;
  res.QueueRptrValue = req.read_ptr;
  *out = res;
  return Status::Ok();
}

Status Update(Context& ctx, uint64_t queue_id, uint32_t percentage, int64_t priority,
              uint64_t ring_va, uint64_t ring_size) {
  uint32_t kprio = 0;
  if (!PriorityToKfd(priority, &kprio)) {
    return ctx.diag().Error(InvalidArgument(), kArea, "queue priority must be within -3..3");
  }
  HKE_RETURN_IF_ERROR(CheckPercentage(ctx, percentage));
  // A NULL ring of size 0 disables the queue (at any percentage, as
  // percentage 0 does); an update with a ring enables it again.
  Status s = CheckRing(ring_va, ring_size, true);
  if (!s.ok()) return RingError(ctx, s, true);
  QueueRef qs;
  HKE_RETURN_IF_ERROR(qs.Acquire(ctx, queue_id));
  kfd::QueueUpdate u{};
  u.queue_id = qs->kfd_queue_id;
  u.ring_base = ring_va;
  u.ring_size = static_cast<uint32_t>(ring_size);
  u.percentage = percentage;
  u.priority = kprio;
  kfd::UpdateQueueArgs a{};
  s = kfd::EncodeUpdateQueue(u, &a);
  if (!s.ok()) return ctx.diag().Error(s, kArea, "the UPDATE_QUEUE request is invalid");
  s = device::Ioctl(ctx, &a);
  if (!s.ok()) return ctx.diag().Error(s, kArea, "the kernel refused UPDATE_QUEUE");
  qs->ring_va = ring_va;
  qs->ring_size = ring_size;
  return Status::Ok();
}

Status Destroy(Context& ctx, uint64_t queue_id) {
  QueueRef qs;
  HKE_RETURN_IF_ERROR(qs.Acquire(ctx, queue_id));
  QueuesState& q = ctx.queues();
  kfd::DestroyQueueArgs a{};
  HKE_RETURN_IF_ERROR(kfd::EncodeDestroyQueue(qs->kfd_queue_id, &a));
  const Status s = device::Ioctl(ctx, &a);
  if (!s.ok()) return ctx.diag().Error(s, kArea, "the kernel refused DESTROY_QUEUE; the queue stays");
  const Status f = FreeBuffers(ctx, *qs);
  if (!f.ok()) {
    (void)ctx.diag().Report(HKE_DIAG_WARNING, f, kArea,
                            "freeing a destroyed queue's buffers failed; memory teardown keeps them");
  }
  DropDoorbell(q, qs->gpu);
  q.slots.Free(q.slots.IndexOf(qs.get()));
  return Status::Ok();
}

Status SetCuMask(Context& ctx, uint64_t queue_id, uint32_t num_bits, const uint32_t* mask) {
  if (mask == nullptr) return InvalidArgument();
  if (num_bits == 0 || num_bits % 32 != 0 || num_bits > kCuMaskWords * 32) {
    return ctx.diag().Error(InvalidArgument(), kArea,
                            "a CU mask is a nonzero multiple of 32 bits, at most 1024");
  }
  QueueRef qs;
  HKE_RETURN_IF_ERROR(qs.Acquire(ctx, queue_id));
  kfd::SetCuMaskArgs a{};
  Status s = kfd::EncodeSetCuMask(qs->kfd_queue_id,
                                  static_cast<uint64_t>(reinterpret_cast<uintptr_t>(mask)),
                                  num_bits, &a);
  if (!s.ok()) return ctx.diag().Error(s, kArea, "the SET_CU_MASK request is invalid");
  s = device::Ioctl(ctx, &a);
  if (!s.ok()) return ctx.diag().Error(s, kArea, "the kernel refused SET_CU_MASK");
  uint32_t* dst = CuMaskIn(*qs);
  for (uint32_t w = 0; w < kCuMaskWords; ++w) dst[w] = w < num_bits / 32 ? mask[w] : 0u;
  qs->cu_mask_bits = num_bits;
  return Status::Ok();
}

Status GetInfo(Context& ctx, uint64_t queue_id, HsaQueueInfo* out) {
  if (out == nullptr) return InvalidArgument();
  QueueRef qs;
  HKE_RETURN_IF_ERROR(qs.Acquire(ctx, queue_id));
  if (qs->cwsr_va == 0) {
    return ctx.diag().Error(Unsupported(), kArea,
                            "the queue has no context save area (not a compute queue on gfx8+)");
  }
  kfd::GetQueueWaveStateArgs a{};
  a.ctl_stack_address = qs->cwsr_va;
  a.queue_id = qs->kfd_queue_id;
  const Status s = device::Ioctl(ctx, &a);
  if (!s.ok()) return ctx.diag().Error(s, kArea, "the kernel refused GET_QUEUE_WAVE_STATE");
  if (a.ctl_stack_used_size > qs->ctl_stack_size || a.save_area_used_size > qs->per_xcc_size) {
    return ctx.diag().Error(Protocol(), kArea,
                            "the kernel reported more saved state than the area holds");
  }
  HsaQueueInfo info{};
  info.NumCUAssigned = qs->cu_mask_bits;
  info.CUMaskInfo = CuMaskIn(*qs);
  const uint64_t top = qs->cwsr_va + qs->ctl_stack_size;
  info.UserContextSaveArea = reinterpret_cast<HSAuint32*>(static_cast<uintptr_t>(top));
  info.SaveAreaSizeInBytes = a.save_area_used_size;
  info.ControlStackTop =
      reinterpret_cast<HSAuint32*>(static_cast<uintptr_t>(top - a.ctl_stack_used_size));
  info.ControlStackUsedInBytes = a.ctl_stack_used_size;
  info.SaveAreaHeader =
      reinterpret_cast<HsaUserContextSaveAreaHeader*>(static_cast<uintptr_t>(qs->cwsr_va));
  *out = info;
  return Status::Ok();
}

Status AllocGws(Context& ctx, uint64_t queue_id, uint32_t num_gws, uint32_t* out_first) {
  if (out_first == nullptr) return InvalidArgument();
  QueueRef qs;
  HKE_RETURN_IF_ERROR(qs.Acquire(ctx, queue_id));
  kfd::AllocQueueGwsArgs a{};
  a.queue_id = qs->kfd_queue_id;
  a.num_gws = num_gws;
  const Status s = device::Ioctl(ctx, &a);
  if (!s.ok()) return ctx.diag().Error(s, kArea, "the kernel refused ALLOC_QUEUE_GWS");
  *out_first = a.first_gws;
  return Status::Ok();
}

Status GetStats(Context& ctx, Stats* out) {
  return ReadLocked(ctx.queues_lock(), out, [&q = ctx.queues()] {
    Stats st{};
    q.slots.FillStats(&st);
    for (uint32_t g = 0; g < config::kMaxGpus; ++g) {
      if (q.doorbells[g].va != 0) ++st.doorbell_mappings;
    }
    return st;
  });
}

Status KernelQueueId(Context& ctx, uint64_t queue_id, uint32_t* out) {
  if (out == nullptr) return InvalidArgument();
  LockGuard lock(ctx.queues_lock());
  QueueSlot* qs = nullptr;
  HKE_RETURN_IF_ERROR(Lookup(ctx.queues(), queue_id, CurrentEpoch(ctx), &qs));
  *out = qs->kfd_queue_id;
  return Status::Ok();
}

void Teardown(Context& ctx) {
  LockGuard lock(ctx.queues_lock());
  QueuesState& q = ctx.queues();
  for (uint32_t i = 0; i < q.slots.high_water(); ++i) {
    if (!q.slots.IsUsed(i)) continue;
    QueueSlot& s = q.slots[i];
    kfd::DestroyQueueArgs a{};
    Status st = kfd::EncodeDestroyQueue(s.kfd_queue_id, &a);
    if (st.ok()) st = device::Ioctl(ctx, &a);
    if (st.ok()) {
      st = FreeBuffers(ctx, s);
    }
    if (!st.ok()) {
      (void)ctx.diag().Report(HKE_DIAG_WARNING, st, kArea,
                              "a queue could not be destroyed at close; it is forgotten");
    }
    DropDoorbell(q, s.gpu);
    q.slots.Free(i);
  }
  ReleaseDoorbells(ctx, q);
}

void Forget(Context& ctx) {
  LockGuard lock(ctx.queues_lock());
  QueuesState& q = ctx.queues();
  q.slots.FreeAll();
  for (uint32_t g = 0; g < config::kMaxGpus; ++g) q.doorbells[g] = DoorbellMapping{};
}

}  // namespace hke::queues
