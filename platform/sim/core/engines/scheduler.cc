// kfdsim engine scheduling: which queue runs when, the background engine
// thread, queue errors and the GPU interrupts the engines raise.
//
// Model: every queue has an engine-side read pointer (QueueEngine::rptr,
// the MQD's copy) starting at 0. A step reads the queue's doorbell from the
// process doorbell page (an __atomic acquire load: user code writes packets,
// then release-stores the doorbell) and dispatches to the queue type's
// packet processor (sdma.cc, pm4.cc, aql.cc), which retires packets,
// writes the read pointer back to read_pointer_address and may stall
// (POLL_REGMEM, barriers) or stop the queue with an error. A queue with a
// zero ring address, ring size or percentage is inactive (the kernel's
// QUEUE_IS_ACTIVE, Queue::active): UPDATE_QUEUE disables and enables a queue
// that way. An inactive queue is not stepped, so its doorbell is ignored;
// once active again it runs what the doorbell announced meanwhile, from the
// read pointer it had (the MQD keeps it across the update).
//
// Queue errors (StopQueueLocked): the queue stops for good and keeps the
// reason (text + exception code) for GetQueueStatus. A debugger subscribed
// to the code (DBG_TRAP) gets it as a debug event instead; otherwise it is
// reported like the kernel with no debugger attached (kfd_set_dbg_ev_from_interrupt ->
// kfd_send_exception_to_runtime): only for queue exception codes, only when
// the runtime is enabled (RUNTIME_ENABLE), only for a queue with a CWSR
// area: the 40-byte kfd_context_save_area_header at
// ctx_save_restore_address gives err_payload_addr, where the mask
// KFD_EC_MASK(code) is OR-ed into the u64 (read, or, write, as the
// kernel's worker does through the user mapping), and err_event_id, which
// is set like SET_EVENT (signal events only).
//
// GPU memory faults (GpuFaultLocked): every MEMORY event is set with the VA
// (as InjectMemoryException; failure NotPresent) and the faulting queue
// stops with EC_DEVICE_MEMORY_VIOLATION (a device code, so no CWSR report).
// Deviation: the kernel also evicts the process's other queues on that GPU;
// here they keep running.
//
// Interrupts raised by packets (TRAP, RELEASE_MEM int_sel, AQL mailbox) are
// delivered at the end of the queue's step, after the read pointer was
// written back (a waiter woken by one sees the queue past the packet), in
// the order raised. Delivery (EventInterruptLocked) follows
// kfd_signal_event_interrupt:
// with valid_id_bits >= 12 (4096 slots) the id is exact: the event with
// that id is set when its slot is signaled; with fewer bits every id
// congruent to partial_id modulo 2^bits is tried in order and the first
// signaled one is set; when that finds nothing, an exhaustive scan sets
// every signal/debug event whose slot was written (iterating events when
// fewer than 64 signal events exist, else slots from id 1, which skips
// slot 0 exactly as the kernel does). Setting acknowledges the slot.
//
// Engine thread: started by the first CREATE_QUEUE in kThread mode. It
// sleeps on engine_.cv while no queue exists, polls every 20 µs right after
// progress and backs off (doubling) to 1 ms while idle or stalled; a
// CREATE_QUEUE kicks it. It takes proc_mu_ once per queue step and never
// holds it while sleeping; engine_.mu is a leaf. StopEngineThread() and
// ~EngineThread (the Simulator's last member) join it. In a fork child the
// thread does not exist: it is forgotten (never joined) and a new thread
// starts on the next CREATE_QUEUE. Known limit: a fork while the thread
// holds proc_mu_ leaves the child's proc_mu_ locked, as for any ioctl in
// flight in another thread at fork time.
//
// Threading: everything but the thread loop runs with proc_mu_ held where
// noted in simulator.h; event state is reached through ev_mu_ (taken after
// proc_mu_, the documented order).
#include <errno.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <new>
#include <vector>

#include "lib/core/checked.h"
#include "platform/sim/core/simulator.h"
#include "platform/sim/core/util.h"

namespace kfdsim {

namespace k = hke::kfd;

namespace {

constexpr uint64_t kUnsignaledSlot = ~0ull;
constexpr auto kPollFast = std::chrono::microseconds(20);
constexpr auto kPollSlow = std::chrono::microseconds(1000);

bool IsSdmaType(uint32_t type) {
  return type == k::kQueueTypeSdma || type == k::kQueueTypeSdmaXgmi ||
         type == k::kQueueTypeSdmaByEngId;
}

}  // namespace

// ---- doorbells and rings ----

uint64_t Simulator::ReadDoorbellLocked(const Queue& q) const {
  const GpuProc& g = gpus_[static_cast<size_t>(q.gpu)];
  if (g.doorbell_map == nullptr) return 0;
  const uint8_t* base = const_cast<const uint8_t*>(g.doorbell_map);
  if (IsSoc15(q.gpu)) {
    return __atomic_load_n(reinterpret_cast<const uint64_t*>(base + q.doorbell_id * 8u),
                           __ATOMIC_ACQUIRE);
  }
  return __atomic_load_n(reinterpret_cast<const uint32_t*>(base + q.doorbell_id * 4u),
                         __ATOMIC_ACQUIRE);
}

int Simulator::RingRead(const Queue& q, uint64_t off, void* dst, uint64_t n) {
  const uint64_t size = q.view.ring_size;
  if (size == 0 || n > size) return EFAULT;
  const uint64_t pos = off % size;
  const uint64_t first = std::min<uint64_t>(n, size - pos);
  if (int r = GpuRead(q.gpu, q.view.ring_base_address + pos, dst, first)) return r;
  if (first == n) return 0;
  return GpuRead(q.gpu, q.view.ring_base_address, static_cast<uint8_t*>(dst) + first, n - first);
}

// ---- errors, faults, interrupts ----

void Simulator::StopQueueLocked(Queue& q, uint32_t exception_code, const std::string& reason) {
  if (q.engine.stopped) return;
  q.engine.stopped = true;
  q.engine.waiting = false;
  q.engine.exception_code = exception_code;
  q.engine.reason = reason;
  const uint64_t mask = k::EcMask(exception_code);
  // A subscribed debugger is told instead of the runtime (debug_events.cc).
  if (DebugEventRaiseLocked(mask, q.gpu, q.view.queue_id)) return;
  if ((mask & k::kEcMaskQueue) == 0 || !runtime_enabled_ || q.ctx_save_restore_address == 0) {
    return;
  }
  k::ContextSaveAreaHeader header{};
  if (UserRead(&header, q.ctx_save_restore_address, sizeof(header)) != 0) return;
  uint64_t payload = 0;
  if (header.err_payload_addr != 0 &&
      UserRead(&payload, header.err_payload_addr, sizeof(payload)) == 0) {
    payload |= mask;
    (void)UserWrite(header.err_payload_addr, &payload, sizeof(payload));
  }
  std::lock_guard<std::mutex> el(ev_mu_);
  auto it = events_.find(header.err_event_id);
  if (it != events_.end() && it->second->type == k::kEventSignal) SetEventLocked(it->second.get());
}

void Simulator::GpuFaultLocked(Queue& q, uint64_t va, const char* what) {
  k::MemoryExceptionFailure failure{};
  failure.NotPresent = 1;
  (void)InjectMemoryException(q.view.gpu_id, va, failure, 0);
  q.engine.fault_va = va;
  StopQueueLocked(q, k::kEcDeviceMemoryViolation,
                  std::string("GPU memory fault at ") + HexU64(va) + " (" + what + ")");
}

void Simulator::EventInterruptLocked(uint32_t partial_id, uint32_t valid_id_bits) {
  std::lock_guard<std::mutex> el(ev_mu_);
  if (slots_ == nullptr) return;
  const uint64_t limit = std::min<uint64_t>(signal_mapped_size_ / 8, k::kSignalEventLimit);
  auto signaled = [&](uint32_t id) { return id < limit && slots_[id] != kUnsignaledSlot; };
  auto gpu_settable = [](const Event* ev) {
    return ev->type == k::kEventSignal || ev->type == k::kEventDebugEvent;
  };
  auto set = [&](uint32_t id) {
    auto it = events_.find(id);
    if (it == events_.end() || !gpu_settable(it->second.get())) return false;
    slots_[id] = kUnsignaledSlot;  // acknowledge_signal
    SetEventLocked(it->second.get());
    return true;
  };
  // lookup_signaled_event_by_partial_id
  bool found = false;
  if (valid_id_bits != 0 && partial_id < k::kSignalEventLimit) {
    if (valid_id_bits > 31 || (1u << valid_id_bits) >= k::kSignalEventLimit) {
      if (signaled(partial_id) && events_.count(partial_id) != 0) {
        (void)set(partial_id);  // found even when not GPU-settable (no scan then)
        found = true;
      }
    } else {
      for (uint32_t id = partial_id; id < k::kSignalEventLimit && !found;
           id += 1u << valid_id_bits) {
        if (signaled(id) && events_.count(id) != 0) {
          (void)set(id);
          found = true;
        }
      }
    }
  }
  if (found) return;
  if (signal_event_count_ < k::kSignalEventLimit / 64) {
    for (auto& [id, ev] : events_) {
      if (id >= k::kSignalEventLimit) break;
      if (signaled(id) && gpu_settable(ev.get())) {
        slots_[id] = kUnsignaledSlot;
        SetEventLocked(ev.get());
      }
    }
  } else {
    for (uint32_t id = 1; id < k::kSignalEventLimit; ++id) {
      if (signaled(id)) (void)set(id);
    }
  }
}

// ---- stepping ----

void Simulator::RaiseInterruptLocked(uint32_t partial_id, uint32_t valid_id_bits) {
  pending_interrupts_.emplace_back(partial_id, valid_id_bits);
}

bool Simulator::StepQueueLocked(Queue& q, uint32_t budget, uint64_t* done) {
  if (q.engine.stopped) return false;
  if (!q.active()) return false;  // disabled by UPDATE_QUEUE: the doorbell is ignored
  if (gpus_[static_cast<size_t>(q.gpu)].doorbell_map == nullptr) return false;
  const uint32_t type = q.view.queue_type;
  pending_interrupts_.clear();
  bool progress = false;
  if (type == k::kQueueTypeComputeAql) {
    progress = StepAqlLocked(q, budget, done);
  } else if (type == k::kQueueTypeCompute) {
    progress = StepPm4Locked(q, budget, done);
  } else if (IsSdmaType(type)) {
    progress = StepSdmaLocked(q, budget, done);
  }
  // The read pointer is back in memory: now the interrupts reach the KFD.
  for (const auto& [id, bits] : pending_interrupts_) EventInterruptLocked(id, bits);
  pending_interrupts_.clear();
  return progress;
}

uint64_t Simulator::StepQueues() {
  uint64_t total = 0;
  std::vector<uint32_t> ids;
  for (uint32_t pass = 0; pass < kStepPasses; ++pass) {
    {
      std::lock_guard<std::mutex> pl(proc_mu_);
      ids.clear();
      for (const auto& [id, q] : queues_) {
        (void)q;
        ids.push_back(id);
      }
    }
    bool progress = false;
    for (uint32_t id : ids) {
      std::lock_guard<std::mutex> pl(proc_mu_);
      auto it = queues_.find(id);
      if (it == queues_.end()) continue;
      uint64_t done = 0;
      if (StepQueueLocked(it->second, kStepBudget, &done)) progress = true;
      total += done;
    }
    if (!progress) break;
  }
  return total;
}

int Simulator::GetQueueStatus(uint32_t queue_id, QueueStatus* out) {
  std::lock_guard<std::mutex> pl(proc_mu_);
  auto it = queues_.find(queue_id);
  if (it == queues_.end()) return EINVAL;
  const Queue& q = it->second;
  QueueStatus s;
  s.exception_code = q.engine.exception_code;
  s.read_index = q.engine.rptr;
  s.packets_done = q.engine.packets;
  s.fault_va = q.engine.fault_va;
  s.reason = q.engine.reason;
  if (q.engine.stopped) {
    s.state = kQueueStateError;
  } else if (!q.active()) {
    s.state = kQueueStateDisabled;
    s.reason.clear();
  } else if (q.engine.waiting) {
    s.state = kQueueStateWaiting;
  } else {
    const uint64_t db = ReadDoorbellLocked(q);
    const bool aql = q.view.queue_type == k::kQueueTypeComputeAql;
    // AQL: the doorbell holds the last index written (approximate: a first
    // packet announced with doorbell 0 shows idle until it ran); others:
    // the write pointer.
    const bool pending = aql ? (db >= q.engine.rptr && !(db == 0 && q.engine.rptr == 0))
                             : db != q.engine.rptr;
    s.state = pending ? kQueueStatePending : kQueueStateIdle;
    s.reason.clear();
  }
  *out = std::move(s);
  return 0;
}

// ---- the engine thread ----

void Simulator::EngineThread::Stop() {
  bool join = false;
  pthread_t t{};
  {
    std::lock_guard<std::mutex> l(mu);
    join = started;
    t = thread;
    started = false;
    stop = true;
  }
  cv.notify_all();
  if (join) pthread_join(t, nullptr);
  std::lock_guard<std::mutex> l(mu);
  stop = false;
}

void Simulator::EngineThread::ForgetIfForked() {
  if (owner_pid == 0 || owner_pid == SelfPid()) return;
  // The thread (and whoever held mu at fork time) exists only in the parent.
  new (&mu) std::mutex();
  new (&cv) std::condition_variable();
  started = false;  // never joined: it does not exist here
  owner_pid = 0;
  stop = false;
  kick = false;
}

Simulator::EngineThread::~EngineThread() {
  ForgetIfForked();
  Stop();
}

void Simulator::SetEngineMode(EngineMode mode) {
  engine_.ForgetIfForked();
  {
    std::lock_guard<std::mutex> l(engine_.mu);
    engine_.mode = mode;
  }
  if (mode == EngineMode::kManual) {
    engine_.Stop();
    return;
  }
  bool queues = false;
  {
    std::lock_guard<std::mutex> pl(proc_mu_);
    queues = !queues_.empty();
    if (queues) EngineQueueCreatedLocked();
  }
}

Simulator::EngineMode Simulator::engine_mode() {
  engine_.ForgetIfForked();
  std::lock_guard<std::mutex> l(engine_.mu);
  return engine_.mode;
}

void Simulator::StopEngineThread() {
  engine_.ForgetIfForked();
  engine_.Stop();
}

void Simulator::EngineQueueCreatedLocked() {
  engine_.ForgetIfForked();
  std::lock_guard<std::mutex> l(engine_.mu);
  if (engine_.mode != EngineMode::kThread) return;
  if (!engine_.started) {
    engine_.stop = false;
    auto main = [](void* self) -> void* {
      static_cast<Simulator*>(self)->EngineThreadMain();
      return nullptr;
    };
    // On failure (no resources) the engines still run through StepQueues;
    // the next CREATE_QUEUE tries again.
    if (pthread_create(&engine_.thread, nullptr, main, this) == 0) {
      engine_.started = true;
      engine_.owner_pid = SelfPid();
    }
  }
  engine_.kick = true;
  engine_.cv.notify_all();
}

void Simulator::EngineThreadMain() {
  MarkInternalThread();  // its allocations' mmaps must not report host unmaps back
  auto delay = kPollFast;
  bool have_queues = true;
  for (;;) {
    {
      std::unique_lock<std::mutex> l(engine_.mu);
      auto woken = [this] { return engine_.stop || engine_.kick; };
      if (!have_queues) {
        engine_.cv.wait(l, woken);
      } else {
        engine_.cv.wait_for(l, delay, woken);
      }
      if (engine_.stop) return;
      if (engine_.kick) delay = kPollFast;
      engine_.kick = false;
    }
    const uint64_t done = StepQueues();
    {
      std::lock_guard<std::mutex> pl(proc_mu_);
      have_queues = !queues_.empty();
    }
    if (done != 0) {
      delay = kPollFast;
    } else {
      delay = std::min<std::chrono::microseconds>(delay * 2, kPollSlow);
    }
  }
}

}  // namespace kfdsim
