// kfdsim user queues: CREATE/DESTROY/UPDATE_QUEUE, SET_CU_MASK,
// GET_QUEUE_WAVE_STATE, ALLOC_QUEUE_GWS, doorbell assignment, and the
// packet-execution seam (RingDoorbell + QueueHook). Packets are executed by
// the engines in core/engines/ (CREATE_QUEUE starts or wakes the engine
// thread); RingDoorbell only feeds the hook.
//
// Kernel facts followed (kfd_chardev.c set_queue_properties_from_user and
// the process queue manager): percentage (low 8 bits) > 100 -> EINVAL;
// priority > 15 -> EINVAL; ring/rptr/wptr/EOP/CWSR outside the user range
// -> EFAULT; ring size neither 0 nor a power of two -> EINVAL, below 1024
// clamped to 1024 (written back); unknown type -> ENOTSUPP (524); unknown
// gpu -> EINVAL; no VM bound -> ESRCH; SDMA_BY_ENG_ID engine past the last
// SDMA engine -> EINVAL; 1024 queues per process, SDMA queues limited by
// the engines' queue slots -> ENOMEM. Queue ids are the lowest free.
// Doorbell offset = DOORBELL mmap type | gpu_id << 46, plus on SOC15 (gfx9+)
// the byte offset of the queue's 8-byte doorbell in the 2-page process
// slice (compute queues use the first page, SDMA queues the second).
// DESTROY of an unknown queue -> EINVAL; UPDATE/SET_CU_MASK/wave state of an
// unknown queue -> EFAULT (the queue manager's answer); CU mask of 0 bits or
// not a multiple of 32 -> EINVAL, longer than 1024 bits truncated. A
// created queue raises EC_QUEUE_NEW for a debugger (debug_events.cc).
// From KFD 1.17 the ring, pointers, EOP and CWSR buffers must lie in BOs of
// the right size mapped on the queue's GPU (queue_buffers.cc: EINVAL, after
// the SDMA engine check and before the queue limits), and the queue holds
// them until it is destroyed.
// UPDATE_QUEUE replaces ring, size (0 clamped to 1024 as on CREATE),
// percentage and priority; a NULL ring or percentage 0 leaves the queue
// inactive (the kernel's QUEUE_IS_ACTIVE, Queue::active: "update with a
// NULL ring address disables the queue"), a later update with a ring and a
// percentage makes it active again. An inactive queue's doorbell is ignored
// by the engines and by RingDoorbell; its wave state is EINVAL. The new
// ring of an update is not checked against the process's BOs.
//
// Threading: queue state lives under proc_mu_; the hook is called with no
// simulator lock held.
#include <errno.h>

#include <algorithm>
#include <cstring>

#include "platform/sim/core/simulator.h"
#include "platform/sim/core/util.h"

namespace kfdsim {

namespace k = hke::kfd;

namespace {

constexpr int kENOTSUPP = 524;
constexpr uint32_t kMaxQueuesPerProcess = 1024;
constexpr uint32_t kSdmaDoorbellBase = 512;

bool IsSdma(uint32_t type) {
  return type == k::kQueueTypeSdma || type == k::kQueueTypeSdmaXgmi ||
         type == k::kQueueTypeSdmaByEngId;
}

// Shared by CREATE and UPDATE: percentage, priority, ring checks and clamp.
int CheckRing(uint32_t percentage, uint32_t priority, uint64_t ring_base, uint32_t* ring_size) {
  if ((percentage & 0xFF) > k::kMaxQueuePercentage) return EINVAL;
  if (priority > k::kMaxQueuePriority) return EINVAL;
  if (ring_base != 0 && !UserRangeOk(ring_base, sizeof(uint64_t))) return EFAULT;
  if (*ring_size != 0 && !IsPowerOfTwo(*ring_size)) return EINVAL;
  if (*ring_size < k::kMinQueueRingSize) *ring_size = k::kMinQueueRingSize;
  return 0;
}

}  // namespace

int Simulator::IocCreateQueue(IoctlCtx&, void* d) {
  auto* a = static_cast<k::CreateQueueArgs*>(d);
  if (int r = CheckRing(a->queue_percentage, a->queue_priority, a->ring_base_address,
                        &a->ring_size)) {
    return r;
  }
  if (!UserRangeOk(a->read_pointer_address, sizeof(uint32_t)) ||
      !UserRangeOk(a->write_pointer_address, sizeof(uint32_t))) {
    return EFAULT;
  }
  if (a->eop_buffer_address != 0 && !UserRangeOk(a->eop_buffer_address, sizeof(uint32_t))) {
    return EFAULT;
  }
  if (a->ctx_save_restore_address != 0 &&
      !UserRangeOk(a->ctx_save_restore_address, sizeof(uint32_t))) {
    return EFAULT;
  }
  const uint32_t type = a->queue_type;
  const bool by_eng_known = board_.desc.kfd_minor >= k::kMinorSdmaByEngineId;
  if (type > k::kQueueTypeLast || (type == k::kQueueTypeSdmaByEngId && !by_eng_known)) {
    return kENOTSUPP;
  }
  std::lock_guard<std::mutex> pl(proc_mu_);
  const int gpu = GpuIndex(a->gpu_id);
  if (gpu < 0) return EINVAL;
  if (Bind(gpu) != 0) return ESRCH;
  const GpuDesc& desc = board_.desc.gpus[static_cast<size_t>(gpu)];
  if (type == k::kQueueTypeSdmaByEngId &&
      uint64_t{a->sdma_engine_id} >=
          uint64_t{desc.num_sdma_engines} + desc.num_sdma_xgmi_engines) {
    return EINVAL;
  }
  // From KFD 1.17: the buffers must be BOs of the right size mapped here.
  if (int r = QueueBuffersCheckLocked(gpu, *a)) return r;
  if (queues_.size() >= kMaxQueuesPerProcess) return ENOMEM;
  if (IsSdma(type)) {
    const uint32_t per_engine = desc.num_sdma_queues_per_engine;
    const bool xgmi = type == k::kQueueTypeSdmaXgmi;
    const uint32_t engines = xgmi ? desc.num_sdma_xgmi_engines
                                  : (type == k::kQueueTypeSdma ? desc.num_sdma_engines : 1u);
    uint32_t used = 0;
    for (const auto& [qid, q] : queues_) {
      (void)qid;
      if (q.gpu == gpu && q.view.queue_type == type) ++used;
    }
    if (used >= engines * per_engine) return ENOMEM;
  }
  GpuProc& g = gpus_[static_cast<size_t>(gpu)];
  const bool soc15 = IsSoc15(gpu);
  const uint32_t qid = queue_ids_.Peek();
  uint32_t doorbell = qid;
  if (soc15) {
    const uint32_t lo = IsSdma(type) ? kSdmaDoorbellBase : 0;
    const uint32_t hi = IsSdma(type) ? 1024 : kSdmaDoorbellBase;
    doorbell = lo;
    while (doorbell < hi && g.doorbell_used[doorbell]) ++doorbell;
    if (doorbell >= hi) return ENOMEM;
  }
  if (int r = EnsureDoorbellPage(gpu)) return r;
  if (soc15) g.doorbell_used[doorbell] = true;
  queue_ids_.Take();
  // A fresh queue's doorbell reads 0 (the engines take it as the write
  // pointer; a previous queue's last value must not leak into this one).
  if (soc15) {
    __atomic_store_n(reinterpret_cast<uint64_t*>(const_cast<uint8_t*>(g.doorbell_map) + doorbell * 8u),
                     uint64_t{0}, __ATOMIC_RELEASE);
  } else {
    __atomic_store_n(reinterpret_cast<uint32_t*>(const_cast<uint8_t*>(g.doorbell_map) + doorbell * 4u),
                     uint32_t{0}, __ATOMIC_RELEASE);
  }

  Queue q;
  q.gpu = gpu;
  q.view.queue_id = qid;
  q.view.gpu_id = a->gpu_id;
  q.view.queue_type = type;
  q.view.ring_base_address = a->ring_base_address;
  q.view.ring_size = a->ring_size;
  q.view.read_pointer_address = a->read_pointer_address;
  q.view.write_pointer_address = a->write_pointer_address;
  q.percentage = a->queue_percentage;
  q.priority = a->queue_priority;
  q.doorbell_id = doorbell;
  q.eop_address = a->eop_buffer_address;
  q.eop_size = a->eop_buffer_size;
  q.ctx_save_restore_address = a->ctx_save_restore_address;
  q.ctx_save_restore_size = a->ctx_save_restore_size;
  q.ctl_stack_size = a->ctl_stack_size;
  q.holds_buffers = QueueBufferChecksOn();
  queues_.emplace(qid, std::move(q));
  EngineQueueCreatedLocked();  // starts or wakes the engine thread (engines/scheduler.cc)

  a->queue_id = qid;
  a->doorbell_offset = (static_cast<uint64_t>(k::kMmapTypeDoorbell) << k::kMmapTypeShift) |
                       ((static_cast<uint64_t>(a->gpu_id) & 0xFFFFull) << k::kMmapGpuIdShift);
  if (soc15) a->doorbell_offset |= uint64_t{doorbell} * 8;
  // A debugger learns of the queue (kfd_ioctl_create_queue's EC_QUEUE_NEW).
  (void)DebugEventRaiseLocked(k::EcMask(k::kEcQueueNew), gpu, qid);
  return 0;
}

int Simulator::IocDestroyQueue(IoctlCtx&, void* d) {
  auto* a = static_cast<k::DestroyQueueArgs*>(d);
  std::lock_guard<std::mutex> pl(proc_mu_);
  auto it = queues_.find(a->queue_id);
  if (it == queues_.end()) return EINVAL;
  if (IsSoc15(it->second.gpu)) {
    gpus_[static_cast<size_t>(it->second.gpu)].doorbell_used[it->second.doorbell_id] = false;
  }
  queue_ids_.Release(it->first);
  suspended_queues_.erase(
      std::remove(suspended_queues_.begin(), suspended_queues_.end(), it->first),
      suspended_queues_.end());
  queues_.erase(it);
  return 0;
}

int Simulator::IocUpdateQueue(IoctlCtx&, void* d) {
  auto* a = static_cast<k::UpdateQueueArgs*>(d);
  uint32_t ring_size = a->ring_size;
  if (int r = CheckRing(a->queue_percentage, a->queue_priority, a->ring_base_address,
                        &ring_size)) {
    return r;
  }
  std::lock_guard<std::mutex> pl(proc_mu_);
  auto it = queues_.find(a->queue_id);
  if (it == queues_.end()) return EFAULT;
  it->second.view.ring_base_address = a->ring_base_address;
  it->second.view.ring_size = ring_size;
  it->second.percentage = a->queue_percentage;
  it->second.priority = a->queue_priority;
  return 0;
}

int Simulator::IocSetCuMask(IoctlCtx&, void* d) {
  auto* a = static_cast<k::SetCuMaskArgs*>(d);
  if (a->num_cu_mask == 0 || a->num_cu_mask % 32 != 0) return EINVAL;
  const uint32_t bits = std::min(a->num_cu_mask, k::kMaxCuMaskBits);
  std::vector<uint32_t> mask(bits / 32);
  if (int r = UserRead(mask.data(), a->cu_mask_ptr, mask.size() * sizeof(uint32_t))) return r;
  std::lock_guard<std::mutex> pl(proc_mu_);
  auto it = queues_.find(a->queue_id);
  if (it == queues_.end()) return EFAULT;
  it->second.cu_mask = std::move(mask);
  return 0;
}

int Simulator::IocGetQueueWaveState(IoctlCtx&, void* d) {
  auto* a = static_cast<k::GetQueueWaveStateArgs*>(d);
  std::lock_guard<std::mutex> pl(proc_mu_);
  auto it = queues_.find(a->queue_id);
  if (it == queues_.end()) return EFAULT;
  const Queue& q = it->second;
  const bool compute =
      q.view.queue_type == k::kQueueTypeCompute || q.view.queue_type == k::kQueueTypeComputeAql;
  if (!compute || !q.active() || q.ctx_save_restore_address == 0) return EINVAL;
  // No waves ever run: nothing was saved.
  a->ctl_stack_used_size = 0;
  a->save_area_used_size = 0;
  return 0;
}

int Simulator::IocAllocQueueGws(IoctlCtx&, void* d) {
  auto* a = static_cast<k::AllocQueueGwsArgs*>(d);
  std::lock_guard<std::mutex> pl(proc_mu_);
  auto it = queues_.find(a->queue_id);
  if (it == queues_.end()) return EINVAL;
  if (board_.desc.gpus[static_cast<size_t>(it->second.gpu)].num_gws == 0) return ENODEV;
  it->second.gws = a->num_gws != 0;
  a->first_gws = 0;
  return 0;
}

void Simulator::SetQueueHook(QueueHook hook, void* user) {
  std::lock_guard<std::mutex> hl(hook_mu_);
  queue_hook_ = hook;
  queue_hook_user_ = user;
}

int Simulator::RingDoorbell(uint32_t queue_id) {
  QueueView view;
  {
    std::lock_guard<std::mutex> pl(proc_mu_);
    auto it = queues_.find(queue_id);
    if (it == queues_.end()) return EINVAL;
    const Queue& q = it->second;
    const GpuProc& g = gpus_[static_cast<size_t>(q.gpu)];
    if (g.doorbell_map == nullptr) return ENODEV;
    if (!q.active()) return 0;  // disabled by UPDATE_QUEUE: the doorbell is ignored
    view = q.view;
    if (IsSoc15(q.gpu)) {
      uint64_t v = 0;
      std::memcpy(&v, const_cast<const uint8_t*>(g.doorbell_map) + q.doorbell_id * 8u, 8);
      view.doorbell_value = v;
    } else {
      uint32_t v = 0;
      std::memcpy(&v, const_cast<const uint8_t*>(g.doorbell_map) + q.doorbell_id * 4u, 4);
      view.doorbell_value = v;
    }
  }
  QueueHook hook = nullptr;
  void* user = nullptr;
  {
    std::lock_guard<std::mutex> hl(hook_mu_);
    hook = queue_hook_;
    user = queue_hook_user_;
  }
  if (hook != nullptr) hook(user, view);
  return 0;
}

size_t Simulator::QueueCount() {
  std::lock_guard<std::mutex> pl(proc_mu_);
  return queues_.size();
}

}  // namespace kfdsim
