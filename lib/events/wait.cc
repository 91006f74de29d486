// hsaKmtWaitOnEvent(_Ext) and hsaKmtWaitOnMultipleEvents(_Ext).
//
// One call: check the handles under events_lock and fill the
// kfd_event_data array (stack or pool buffer, events.h), release the lock,
// issue WAIT_EVENTS until the kernel answers (resuming interruptions with
// the time left), then take the lock again to copy out what the kernel
// returned, only for events that are still the ones waited on.
//
// WAIT_EVENTS is issued directly through the platform table, without the
// platform wrapper's EINTR retry: that retry repeats the same argument,
// and a resumed wait must carry the shortened timeout. While it is in the
// kernel the call does not hold the context's open gate (open_gate.h): a
// close may run meanwhile, so the copy-out checks every event again, and
// the arguments live on the stack or in a pool buffer no close touches.
#include "lib/core/errno.h"
#include "lib/core/text.h"
#include "lib/device/kfd_device.h"
#include "lib/events/events_internal.h"

namespace hke::events {

using namespace internal;

namespace {

constexpr uint64_t kNsPerMs = 1000000;

Status WaitIoctlOnce(Context& ctx, kfd::WaitEventsArgs* a) {
  int fd = -1;
  HKE_RETURN_IF_ERROR(device::KfdFd(ctx, &fd));
  const hke_platform& p = ctx.platform().raw();
  // The wait leaves the open gate while it is in the kernel, so a close
  // never waits for a waiter (the caller's entry point holds it shared).
  const uint32_t epoch = device::OpenEpoch(ctx);
  ctx.open_gate().LeaveShared();
  const int rc = p.ops->ioctl(p.self, fd, kfd::IoctlOf<kfd::WaitEventsArgs>::kRequest, a);
  ctx.open_gate().EnterShared();
  // A close (and maybe a reopen) ran while the wait was in the kernel: its
  // EBADF names the descriptor that close released, not a fork, so it must
  // not mark the device (closed, or opened again since) as a forked
  // child's. (Inside the shared hold again, open_count is fixed.)
  if (rc == err::kEBADF && (device::OpenEpoch(ctx) != epoch || !device::Referenced(ctx))) {
    return ctx.diag().Error(Status::Errno(rc), kArea,
                            "the device was closed while WAIT_EVENTS was in the kernel");
  }
  // The same fork rule as every other KFD ioctl (device::KfdReply).
  return device::KfdReply(ctx, rc == 0 ? Status::Ok() : Status::Errno(rc), kArea);
}

bool Now(Context& ctx, uint64_t* ns) { return ctx.platform().ClockNs(HKE_CLOCK_MONOTONIC, ns).ok(); }

// Issues WAIT_EVENTS until the kernel answers COMPLETE or TIMEOUT (in
// *out_result) or fails. Interruptions resume with the time left.
Status IssueWait(Context& ctx, uint64_t data, uint32_t count, bool all, uint32_t timeout,
                 uint32_t* out_result) {
  const bool finite = timeout != 0 && timeout != kfd::kWaitInfinite;
  uint64_t attempt_start = 0;
  const bool have_clock = timeout != 0 && Now(ctx, &attempt_start);
  const uint64_t deadline = finite && have_clock ? attempt_start + uint64_t{timeout} * kNsPerMs : 0;
  uint32_t next = timeout;
  uint32_t quick = 0;  // interruptions in a row that came back within a millisecond
  for (;;) {
    kfd::WaitEventsArgs a{};
    HKE_RETURN_IF_ERROR(kfd::EncodeWaitEvents(data, count, all, next, &a));
    const kfd::WaitEventsArgs sent = a;
    Status s = WaitIoctlOnce(ctx, &a);
    if (s.ok()) {
      kfd::WaitResult r{};
      s = kfd::DecodeWaitEvents(sent, a, &r);
      if (!s.ok()) return ctx.diag().Error(s, kArea, "the WAIT_EVENTS reply is malformed");
      if (r.result == kfd::kWaitResultFail) return Status::Errno(err::kEIO);
      *out_result = r.result;
      return Status::Ok();
    }
    if (!s.is_errno(err::kEINTR) && !s.is_errno(err::kEAGAIN)) {
      // EBADF here is a close during the wait, reported by WaitIoctlOnce.
      if (s.domain() != HKE_DOMAIN_ERRNO || s.is_errno(err::kEIO) || s.is_errno(err::kEBADF)) {
        return s;
      }
      return ctx.diag().Failed(s, kArea, "WAIT_EVENTS");
    }
    uint64_t now = 0;
    const bool clock_now = have_clock && Now(ctx, &now);
    if (clock_now && now - attempt_start >= kNsPerMs) {
      quick = 0;
    } else if (++quick > ctx.platform().ioctl_retries()) {
      FixedText<128> t;
      t.Append("WAIT_EVENTS was interrupted ").AppendU64(quick).Append(" times in a row without waiting");
      return ctx.diag().Error(s, kArea, t.c_str());
    }
    if (finite) {
      if (clock_now) {
        // Round up: never return before the caller's time is over. 0 (the
        // time is over) makes the last attempt a poll.
        const uint64_t left = now >= deadline ? 0 : (deadline - now + kNsPerMs - 1) / kNsPerMs;
        if (left < next) next = static_cast<uint32_t>(left);
      } else if (a.timeout < next) {
        next = a.timeout;  // the kernel's written-back remainder
      }
    }
    if (clock_now) attempt_start = now;
  }
}

void CopyMemoryFault(const kfd::HsaMemoryExceptionData& m, uint32_t node, HsaEvent* v) {
  HsaMemoryAccessFault& f = v->EventData.EventData.MemoryAccessFault;
  f.NodeId = node;
  f.VirtualAddress = m.va;
  f.Failure.NotPresent = m.failure.NotPresent != 0 ? 1u : 0u;
  f.Failure.ReadOnly = m.failure.ReadOnly != 0 ? 1u : 0u;
  f.Failure.NoExecute = m.failure.NoExecute != 0 ? 1u : 0u;
  f.Failure.GpuAccess = 0;
  f.Failure.ECC =
      (m.ErrorType == kfd::kMemErrSramEcc || m.ErrorType == kfd::kMemErrPoisonConsumed) ? 1u : 0u;
  f.Failure.Imprecise = m.failure.imprecise != 0 ? 1u : 0u;
  f.Failure.ErrorType = m.ErrorType & 7u;
  f.Flags = HSA_EVENTID_MEMORY_FATAL_PROCESS;
}

void CopyHwException(const kfd::HsaHwExceptionData& h, uint32_t node, HsaEvent* v) {
  HsaHwException& e = v->EventData.EventData.HwException;
  e.NodeId = node;
  e.ResetType = h.reset_type;
  e.MemoryLost = h.memory_lost;
  e.ResetCause = h.reset_cause == kfd::kHwExceptionEcc ? HSA_EVENTID_HW_EXCEPTION_ECC
                                                       : HSA_EVENTID_HW_EXCEPTION_GPU_HANG;
}

// The node of an exception's gpu_id; an unknown one is reported.
uint32_t ExceptionNode(Context& ctx, const EventsState& st, uint32_t gpu_id) {
  const uint32_t node = NodeOfGpuLocked(st, gpu_id);
  if (node == 0xffffffffu) {
    FixedText<96> t;
    t.Append("exception data names unknown gpu_id ").AppendU64(gpu_id);
    (void)ctx.diag().Report(HKE_DIAG_WARNING, Protocol(), kArea, t.c_str());
  }
  return node;
}

}  // namespace

Status Wait(Context& ctx, HsaEvent* const* events, uint32_t count, bool all, uint32_t timeout_ms,
            uint64_t* ages) {
  HKE_RETURN_IF_ERROR(device::CheckOpen(ctx));
  if (events == nullptr) return ctx.diag().Error(InvalidHandle(), kArea, "the event array is NULL");
  if (count == 0) return ctx.diag().Error(InvalidArgument(), kArea, "a wait needs at least one event");
  if (count > kMaxEvents) {
    FixedText<128> t;
    t.Append("a wait names ").AppendU64(count).Append(" events; the table holds ").AppendU64(kMaxEvents);
    return ctx.diag().Error(OutOfRange(), kArea, t.c_str());
  }
  const uint32_t epoch = device::OpenEpoch(ctx);
  EventsState& st = ctx.events();
  kfd::EventData stack_data[kWaitStackEvents];
  WaitEntry stack_entries[kWaitStackEvents];
  kfd::EventData* data = stack_data;
  WaitEntry* entries = stack_entries;
  uint32_t pool = kNil;
  bool use_ages = false;
  {
    LockGuard g(ctx.events_lock());
    SyncEpochLocked(st, epoch);
    if (count > kWaitStackEvents) {
      if (st.pool_free == 0) {
        FixedText<128> t;
        t.Append("every wait buffer is in use (").AppendU64(kWaitPoolBuffers)
            .Append(" concurrent waits of more than ").AppendU64(kWaitStackEvents).Append(" events)");
        return ctx.diag().Error(Exhausted(), kArea, t.c_str());
      }
      pool = static_cast<uint32_t>(__builtin_ctz(st.pool_free));
      st.pool_free &= ~(1u << pool);
      const uint32_t in_use = kWaitPoolBuffers - static_cast<uint32_t>(__builtin_popcount(st.pool_free));
      if (in_use > st.pool_high_water) st.pool_high_water = in_use;
      data = st.pool[pool].data;
      entries = st.pool[pool].entries;
    }
    for (uint32_t i = 0; i < count; ++i) {
      uint32_t slot = kNil;
      const Status s = ResolveLocked(ctx, st, events[i], &slot);
      if (!s.ok()) {
        if (pool != kNil) st.pool_free |= 1u << pool;
        return s;
      }
      const EventSlot& e = st.slots[slot];
      entries[i] = WaitEntry{slot, st.slots.generation(slot), e.type};
      data[i] = kfd::EventData{};
      data[i].event_id = e.kfd_id;
    }
    use_ages = ages != nullptr && st.age_supported;
  }
  if (use_ages) {
    for (uint32_t i = 0; i < count; ++i) {
      if (entries[i].type == HSA_EVENTTYPE_SIGNAL) {
        data[i].signal_event_data.last_event_age = ages[i];
      }
    }
  }

  uint32_t result = kfd::kWaitResultTimeout;
  Status s = IssueWait(ctx, reinterpret_cast<uintptr_t>(data), count, all, timeout_ms, &result);

  bool changed = false;
  {
    LockGuard g(ctx.events_lock());
    for (uint32_t i = 0; i < count; ++i) {
      if (!st.slots.IsLiveAt(entries[i].slot, entries[i].generation, ~0u)) changed = true;
    }
    if (!changed && s.ok()) {
      for (uint32_t i = 0; i < count; ++i) {
        const uint32_t type = entries[i].type;
        if (use_ages && type == HSA_EVENTTYPE_SIGNAL) {
          ages[i] = data[i].signal_event_data.last_event_age;
        }
        if (result != kfd::kWaitResultComplete) continue;
        HsaEvent* v = ViewOf(st, entries[i].slot);
        if (type == HSA_EVENTTYPE_MEMORY && data[i].memory_exception_data.gpu_id != 0) {
          const kfd::HsaMemoryExceptionData& m = data[i].memory_exception_data;
          CopyMemoryFault(m, ExceptionNode(ctx, st, m.gpu_id), v);
        } else if (type == HSA_EVENTTYPE_HW_EXCEPTION && data[i].hw_exception_data.gpu_id != 0) {
          const kfd::HsaHwExceptionData& h = data[i].hw_exception_data;
          CopyHwException(h, ExceptionNode(ctx, st, h.gpu_id), v);
        }
      }
    }
    if (pool != kNil) st.pool_free |= 1u << pool;
  }
  if (changed) {
    return ctx.diag().Error(Status::Errno(err::kEIO), kArea,
                            "an event was destroyed while a wait named it");
  }
  if (!s.ok()) {
    if (s.is_errno(err::kEIO)) {
      return ctx.diag().Error(s, kArea, "WAIT_EVENTS failed: an event was destroyed");
    }
    return s;
  }
  return result == kfd::kWaitResultComplete ? Status::Ok()
                                            : Status::Api(HKE_STATUS_DEADLINE_EXCEEDED);
}

}  // namespace hke::events
