// kfdsim events: CREATE/DESTROY/SET/RESET_EVENT, WAIT_EVENTS, the signal
// event page, and the injection entry points (memory and HW exceptions,
// the GPU's event interrupt).
//
// Kernel facts followed (kfd_events.c):
//  - Signal page: 4096 slots of 8 bytes, "unsignaled" = all ones. On a dGPU
//    the thunk allocates it (a GTT BO of at least 32 KiB) and passes the BO
//    handle in event_page_offset on its first CREATE_EVENT; the kernel maps
//    it once (a second handle -> EINVAL) and refuses to free that BO
//    (EPERM, memory.cc). Without a handle the kernel allocates the page
//    itself, allows 256 slots until the user mmaps the EVENTS offset (the
//    mapping size then sets the slot count) and returns the EVENTS mmap
//    offset in event_page_offset.
//  - Signal and debug events take the lowest free id below the slot count
//    (id == slot index, starting at 0); creating one more -> ENOSPC. Other
//    types take ids from KFD_FIRST_NONSIGNAL_EVENT_ID = 0x40000000 upward.
//    trigger data = id.
//  - SET/RESET only for SIGNAL events (else EINVAL). A set makes the event
//    signaled unless it auto-resets and a waiter is registered (the waiter
//    consumes it), bumps event_age (starts at 1; wraps to 2), and wakes
//    every registered waiter.
//  - WAIT_EVENTS: an auto-reset event that is already signaled is consumed
//    when the waiter registers; last_event_age != 0 on a SIGNAL event
//    enables the age protocol (fires at once when the ages differ); wait
//    any/all; timeout 0 polls, 0xFFFFFFFF waits forever, others are clamped
//    to INT_MAX ms; a destroyed event -> wait_result FAIL and EIO. On
//    COMPLETE the memory/HW exception data or the current age is written
//    into each fired entry. The wait really blocks (ev_cv_), so a runtime's
//    event thread does not spin.
//
// Threading: all event state is guarded by ev_mu_; WAIT_EVENTS sleeps on
// ev_cv_. The page setup path takes proc_mu_ first (BO lookup).
#include <errno.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstring>

#include "platform/sim/core/simulator.h"
#include "platform/sim/core/util.h"

namespace kfdsim {

namespace k = hke::kfd;

namespace {

constexpr uint64_t kUnsignaledSlot = ~0ull;
constexpr uint64_t kSignalPageBytes = uint64_t{k::kSignalEventLimit} * k::kEventSlotSize;
constexpr uint64_t kKernelPageInitialSlots = 256;

bool IsSignalType(uint32_t type) { return type == k::kEventSignal || type == k::kEventDebugEvent; }

}  // namespace

int Simulator::KmapEventPage(uint64_t handle) {
  {
    std::lock_guard<std::mutex> el(ev_mu_);
    if (page_fd_ >= 0) return EINVAL;  // page already set
  }
  const int gpu = GpuIndex(static_cast<uint32_t>(handle >> 32));
  if (gpu < 0) return EINVAL;
  if (int r = Bind(gpu)) return r;
  GpuProc& g = gpus_[static_cast<size_t>(gpu)];
  Bo* found = g.bos.Find(static_cast<uint32_t>(handle));
  if (found == nullptr) return EINVAL;
  Bo& bo = *found;
  // The kernel kmaps the BO through GTT: VRAM-only, userptr and other BOs fail.
  if (!(bo.flags & k::kAllocMemGtt) || !bo.storage) return EINVAL;
  if (bo.size < kSignalPageBytes) return EINVAL;
  void* m = mmap(nullptr, kSignalPageBytes, PROT_READ | PROT_WRITE, MAP_SHARED, g.backing_fd,
                 static_cast<off_t>(bo.storage->offset));
  if (m == MAP_FAILED) return ENOMEM;
  std::lock_guard<std::mutex> el(ev_mu_);
  std::memset(m, 0xFF, kSignalPageBytes);
  slots_ = static_cast<volatile uint64_t*>(m);
  slots_map_len_ = kSignalPageBytes;
  page_fd_ = g.backing_fd;
  page_fd_owned_ = false;
  page_fd_offset_ = bo.storage->offset;
  signal_mapped_size_ = kSignalPageBytes;
  bo.event_page = true;
  event_page_handle_ = handle;
  return 0;
}

void Simulator::SetEventLocked(Event* ev) {
  ev->signaled = !ev->auto_reset || ev->waiters.empty();
  if (++ev->age == 0) ev->age = 2;  // 0 and 1 are reserved
  for (Waiter* w : ev->waiters) w->activated = true;
  ev_cv_.notify_all();
}

void Simulator::DropEventsLocked() {
  for (auto& [id, ev] : events_) {
    (void)id;
    for (Waiter* w : ev->waiters) w->event = nullptr;
  }
  events_.clear();
  signal_ids_.Clear();
  other_ids_.Clear();
  if (slots_ != nullptr) munmap(const_cast<uint64_t*>(slots_), slots_map_len_);
  slots_ = nullptr;
  slots_map_len_ = 0;
  if (page_fd_owned_ && page_fd_ >= 0) close(page_fd_);
  page_fd_ = -1;
  page_fd_owned_ = false;
  page_fd_offset_ = 0;
  signal_mapped_size_ = 0;
  signal_event_count_ = 0;
  ev_cv_.notify_all();
}

int Simulator::IocCreateEvent(IoctlCtx&, void* d) {
  auto* a = static_cast<k::CreateEventArgs*>(d);
  if (a->event_page_offset != 0) {
    std::lock_guard<std::mutex> pl(proc_mu_);
    if (int r = KmapEventPage(a->event_page_offset)) return r;
  }
  std::lock_guard<std::mutex> el(ev_mu_);
  auto ev = std::make_unique<Event>();
  ev->type = a->event_type;
  ev->auto_reset = a->auto_reset != 0;
  uint32_t id = 0;
  if (IsSignalType(a->event_type)) {
    if (signal_mapped_size_ != 0 && signal_event_count_ == signal_mapped_size_ / 8) return ENOSPC;
    if (page_fd_ < 0) {  // no user page: the kernel allocates one
      const int fd = memfd_create("kfdsim-events", MFD_CLOEXEC);
      if (fd < 0) return ENOMEM;
      void* m = MAP_FAILED;
      if (ftruncate(fd, static_cast<off_t>(kSignalPageBytes)) == 0) {
        m = mmap(nullptr, kSignalPageBytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
      }
      if (m == MAP_FAILED) {
        close(fd);
        return ENOMEM;
      }
      std::memset(m, 0xFF, kSignalPageBytes);
      slots_ = static_cast<volatile uint64_t*>(m);
      slots_map_len_ = kSignalPageBytes;
      page_fd_ = fd;
      page_fd_owned_ = true;
      page_fd_offset_ = 0;
      signal_mapped_size_ = kKernelPageInitialSlots * k::kEventSlotSize;
    }
    const uint64_t limit = std::min<uint64_t>(signal_mapped_size_ / 8, k::kSignalEventLimit);
    id = signal_ids_.Peek();
    if (id >= limit) return ENOSPC;
    signal_ids_.Take();
    slots_[id] = kUnsignaledSlot;
    ++signal_event_count_;
    a->event_page_offset = static_cast<uint64_t>(k::kMmapTypeEvents) << k::kMmapTypeShift;
    a->event_slot_index = id;
  } else {
    if (other_ids_.Peek() == UINT_MAX) return ENOSPC;
    id = other_ids_.Take();
    if (ev->type == k::kEventMemory) std::memset(&ev->memory, 0, sizeof(ev->memory));
  }
  ev->id = id;
  a->event_id = id;
  a->event_trigger_data = id;
  events_.emplace(id, std::move(ev));
  return 0;
}

int Simulator::IocDestroyEvent(IoctlCtx&, void* d) {
  auto* a = static_cast<k::DestroyEventArgs*>(d);
  std::lock_guard<std::mutex> el(ev_mu_);
  auto it = events_.find(a->event_id);
  if (it == events_.end()) return EINVAL;
  for (Waiter* w : it->second->waiters) w->event = nullptr;
  if (IsSignalType(it->second->type)) {
    if (signal_event_count_ > 0) --signal_event_count_;
    signal_ids_.Release(it->first);
  } else {
    other_ids_.Release(it->first);
  }
  events_.erase(it);
  ev_cv_.notify_all();
  return 0;
}

int Simulator::IocSetEvent(IoctlCtx&, void* d) {
  auto* a = static_cast<k::SetEventArgs*>(d);
  std::lock_guard<std::mutex> el(ev_mu_);
  auto it = events_.find(a->event_id);
  if (it == events_.end() || it->second->type != k::kEventSignal) return EINVAL;
  SetEventLocked(it->second.get());
  return 0;
}

int Simulator::IocResetEvent(IoctlCtx&, void* d) {
  auto* a = static_cast<k::ResetEventArgs*>(d);
  std::lock_guard<std::mutex> el(ev_mu_);
  auto it = events_.find(a->event_id);
  if (it == events_.end() || it->second->type != k::kEventSignal) return EINVAL;
  it->second->signaled = false;
  return 0;
}

int Simulator::IocWaitEvents(IoctlCtx&, void* d) {
  auto* a = static_cast<k::WaitEventsArgs*>(d);
  const uint32_t n = a->num_events;
  if (n > (1u << 22)) return ENOMEM;  // the kernel's kcalloc would fail
  std::vector<k::EventData> data(n);
  if (int r = UserRead(data.data(), a->events_ptr, n * sizeof(k::EventData))) return r;

  // Per-entry output gathered under the lock, written to the user after it.
  struct Out {
    int kind = 0;  // 0 none, 1 memory, 2 hw, 3 age
    k::HsaMemoryExceptionData memory{};
    k::HsaHwExceptionData hw{};
    uint64_t age = 0;
  };
  std::vector<Out> outs(n);
  std::vector<Waiter> waiters(n);
  uint32_t result = k::kWaitResultTimeout;
  int error = 0;
  {
    std::unique_lock<std::mutex> lk(ev_mu_);
    uint32_t registered = 0;
    for (; registered < n; ++registered) {
      auto it = events_.find(data[registered].event_id);
      if (it == events_.end()) {
        error = EINVAL;
        break;
      }
      Event* ev = it->second.get();
      Waiter& w = waiters[registered];
      w.event = ev;
      w.activated = ev->signaled;
      ev->signaled = ev->signaled && !ev->auto_reset;
      const uint64_t last_age = data[registered].signal_event_data.last_event_age;
      if (ev->type == k::kEventSignal && last_age != 0) {
        w.age_enabled = true;
        if (ev->age != last_age) w.activated = true;
      }
      if (!w.activated) ev->waiters.push_back(&w);
    }
    if (error == 0) {
      const bool poll = a->timeout == 0;
      const bool forever = a->timeout == k::kWaitInfinite;
      const uint32_t ms = a->timeout > static_cast<uint32_t>(INT_MAX) ? INT_MAX : a->timeout;
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
      for (;;) {
        // The kernel's test_event_condition, in its order: a destroyed event
        // fails the wait unless an earlier entry already completed a wait-any.
        uint32_t fired = 0;
        result = k::kWaitResultTimeout;
        for (const Waiter& w : waiters) {
          if (w.event == nullptr) {
            result = k::kWaitResultFail;
            break;
          }
          if (!w.activated) continue;
          if (!a->wait_for_all) {
            result = k::kWaitResultComplete;
            break;
          }
          ++fired;
        }
        if (result == k::kWaitResultTimeout && fired == n) result = k::kWaitResultComplete;
        if (result != k::kWaitResultTimeout || poll) break;
        if (forever) {
          ev_cv_.wait(lk);
        } else {
          if (std::chrono::steady_clock::now() >= deadline) break;
          ev_cv_.wait_until(lk, deadline);
        }
      }
      if (result == k::kWaitResultComplete) {
        for (uint32_t i = 0; i < n; ++i) {
          const Waiter& w = waiters[i];
          if (!w.activated || w.event == nullptr) continue;
          if (w.event->type == k::kEventMemory) {
            outs[i].kind = 1;
            outs[i].memory = w.event->memory;
          } else if (w.event->type == k::kEventHwException) {
            outs[i].kind = 2;
            outs[i].hw = w.event->hw;
          } else if (w.age_enabled) {
            outs[i].kind = 3;
            outs[i].age = w.event->age;
          }
        }
      }
    }
    for (uint32_t i = 0; i < registered; ++i) {
      Event* ev = waiters[i].event;
      if (ev == nullptr) continue;
      auto& list = ev->waiters;
      for (size_t j = 0; j < list.size(); ++j) {
        if (list[j] == &waiters[i]) {
          list.erase(list.begin() + static_cast<std::ptrdiff_t>(j));
          break;
        }
      }
    }
  }
  if (error != 0) return error;
  if (result == k::kWaitResultComplete) {
    for (uint32_t i = 0; i < n; ++i) {
      const uint64_t at = a->events_ptr + uint64_t{i} * sizeof(k::EventData);
      int r = 0;
      if (outs[i].kind == 1) r = UserWrite(at, &outs[i].memory, sizeof(outs[i].memory));
      if (outs[i].kind == 2) r = UserWrite(at, &outs[i].hw, sizeof(outs[i].hw));
      if (outs[i].kind == 3) r = UserWrite(at, &outs[i].age, sizeof(outs[i].age));
      if (r != 0) return r;
    }
  }
  a->wait_result = result;
  return result == k::kWaitResultFail ? EIO : 0;
}

int Simulator::InjectMemoryException(uint32_t gpu_id, uint64_t va,
                                     const k::MemoryExceptionFailure& failure,
                                     uint32_t error_type) {
  if (GpuIndex(gpu_id) < 0) return EINVAL;
  {
    // kfd_smi_event_update_vmfault: "<pid hex>:<task name>".
    char comm[32] = {};
    FILE* f = std::fopen("/proc/self/comm", "r");
    if (f != nullptr) {
      if (std::fgets(comm, sizeof(comm), f) == nullptr) comm[0] = '\0';
      std::fclose(f);
    }
    comm[std::strcspn(comm, "\n")] = '\0';
    char fields[64];
    std::snprintf(fields, sizeof(fields), "%x:%s", static_cast<unsigned>(SelfPid()), comm);
    (void)SmiEmit(gpu_id, k::kSmiEventVmFault, fields);
  }
  std::lock_guard<std::mutex> el(ev_mu_);
  for (auto& [id, ev] : events_) {
    (void)id;
    if (ev->type != k::kEventMemory) continue;
    ev->memory.failure = failure;
    ev->memory.va = va;
    ev->memory.gpu_id = gpu_id;
    ev->memory.ErrorType = error_type;
    SetEventLocked(ev.get());
  }
  return 0;
}

int Simulator::InjectHwException(uint32_t gpu_id, uint32_t reset_type, uint32_t reset_cause,
                                 uint32_t memory_lost) {
  if (GpuIndex(gpu_id) < 0) return EINVAL;
  {
    // kfd_smi_event_update_gpu_reset, before and after: "<seq hex> <cause>".
    const uint32_t seq = ++reset_seq_;
    char fields[48];
    std::snprintf(fields, sizeof(fields), "%x %s", seq,
                  reset_cause != 0 ? "RAS_ERROR" : "MODE_RESET");
    (void)SmiEmit(gpu_id, k::kSmiEventGpuPreReset, fields);
    (void)SmiEmit(gpu_id, k::kSmiEventGpuPostReset, fields);
  }
  std::lock_guard<std::mutex> el(ev_mu_);
  for (auto& [id, ev] : events_) {
    (void)id;
    if (ev->type != k::kEventHwException) continue;
    ev->hw.reset_type = reset_type;
    ev->hw.reset_cause = reset_cause;
    ev->hw.memory_lost = memory_lost;
    ev->hw.gpu_id = gpu_id;
    SetEventLocked(ev.get());
  }
  return 0;
}

uint32_t Simulator::SignalInterrupt() {
  std::lock_guard<std::mutex> el(ev_mu_);
  if (slots_ == nullptr) return 0;
  uint32_t set = 0;
  const uint64_t limit = signal_mapped_size_ / 8;
  for (auto& [id, ev] : events_) {
    if (!IsSignalType(ev->type) || id >= limit) continue;
    if (slots_[id] == kUnsignaledSlot) continue;
    slots_[id] = kUnsignaledSlot;
    SetEventLocked(ev.get());
    ++set;
  }
  return set;
}

int Simulator::SetEventAge(uint32_t event_id, uint64_t age) {
  std::lock_guard<std::mutex> el(ev_mu_);
  auto it = events_.find(event_id);
  if (it == events_.end()) return EINVAL;
  it->second->age = age;
  return 0;
}

}  // namespace kfdsim
