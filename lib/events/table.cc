// The event table and the calls that work on one event: CreateEvent,
// DestroyEvent, SetEvent, ResetEvent, QueryEventState; teardown and
// statistics. lib/events/events.h has the model.
#include <cstring>

#include "lib/core/errno.h"
#include "lib/core/text.h"
#include "lib/device/kfd_device.h"
#include "lib/events/events_internal.h"

namespace hke::events {

using namespace internal;

namespace internal {

void SyncEpochLocked(EventsState& st, uint32_t epoch) {
  if (st.epoch == epoch) return;
  st.slots.FreeAll();
  if (st.page_epoch != epoch) {
    // A forked child: the kernel does not copy the events mapping into a
    // child, and a dGPU page belongs to the memory subsystem's state.
    st.page_epoch = 0;
    st.page_kind = PageKind::kNone;
    st.page_va = 0;
    st.page_bytes = 0;
  }
  st.epoch = epoch;
}

Status TakeSlotLocked(Context& ctx, EventsState& st, uint32_t* out_slot) {
  uint32_t slot = 0;
  if (!st.slots.Allocate(&slot)) {
    FixedText<128> t;
    t.Append("the event table is full (").AppendU64(kMaxEvents).Append(" events, config::kMaxEvents)");
    return ctx.diag().Error(Exhausted(), kArea, t.c_str());
  }
  st.slots[slot] = EventSlot{};
  st.slots[slot].epoch = st.epoch;
  *out_slot = slot;
  return Status::Ok();
}

void ReleaseSlotLocked(EventsState& st, uint32_t slot) { st.slots.Free(slot); }

Status ResolveLocked(Context& ctx, EventsState& st, const HsaEvent* event, uint32_t* out_slot) {
  const char* why = nullptr;
  const uintptr_t p = reinterpret_cast<uintptr_t>(event);
  const uintptr_t base = reinterpret_cast<uintptr_t>(&st.views[0]);
  uint32_t slot = kNil;
  if (event == nullptr) {
    why = "the event handle is NULL";
  } else if (p < base || (p - base) % sizeof(HsaEvent) != 0 ||
             (p - base) / sizeof(HsaEvent) >= uintptr_t{kMaxEvents} * kViews) {
    why = "the event handle is not an event of this context";
  } else {
    const uint32_t view = static_cast<uint32_t>((p - base) / sizeof(HsaEvent));
    slot = view / kViews;
    if (slot >= st.slots.high_water()) {
      why = "the event handle names a slot that was never used";
    } else if (!st.slots.IsLiveAt(slot, view % kViews, kViews - 1) ||
               st.slots[slot].epoch != st.epoch) {
      why = "the event handle is stale (the event was destroyed)";
    }
  }
  if (why != nullptr) return ctx.diag().Error(InvalidHandle(), kArea, why);
  *out_slot = slot;
  return Status::Ok();
}

Status EncodeDestroy(uint32_t id, kfd::DestroyEventArgs* out) {
  return kfd::EncodeDestroyEvent(id, out);
}
Status EncodeSet(uint32_t id, kfd::SetEventArgs* out) { return kfd::EncodeSetEvent(id, out); }
Status EncodeReset(uint32_t id, kfd::ResetEventArgs* out) { return kfd::EncodeResetEvent(id, out); }

Status DecodeCreate(const kfd::CreateEventArgs& sent, const kfd::CreateEventArgs& reply,
                    kfd::CreateEventResult* out) {
  return kfd::DecodeCreateEvent(sent, reply, out);
}

namespace {

// True when a live event of this context holds kernel id `id` (a
// retiring slot may already have given its id back to the kernel).
bool IdLive(Context& ctx, uint32_t id) {
  LockGuard g(ctx.events_lock());
  const EventsState& st = ctx.events();
  for (uint32_t slot = 0; slot < st.slots.high_water(); ++slot) {
    if (st.slots.IsLive(slot) && st.slots[slot].kfd_id == id) return true;
  }
  return false;
}

}  // namespace

Status CreateKernelEvent(Context& ctx, uint32_t type, uint32_t node, bool auto_reset,
                         uint64_t page_handle, kfd::CreateEventResult* out) {
  kfd::EventRequest req{};
  req.event_type = type;
  req.auto_reset = auto_reset;
  req.node_id = node;
  req.event_page_handle = page_handle;
  kfd::CreateEventArgs args{};
  HKE_RETURN_IF_ERROR(kfd::EncodeCreateEvent(req, &args));
  const kfd::CreateEventArgs sent = args;
  Status s = device::Ioctl(ctx, &args);
  if (!s.ok()) return ctx.diag().Failed(s, kArea, "CREATE_EVENT");
  kfd::CreateEventResult r{};
  // An id a live event of ours holds is not the kernel's new event: refuse
  // it and destroy nothing (the real new event cannot be named). O(slots),
  // only here at creation.
  if (IdLive(ctx, args.event_id)) {
    return ctx.diag().Error(Protocol(), kArea,
                            "the CREATE_EVENT reply is malformed: the id of a live event");
  }
  s = DecodeCreate(sent, args, &r);
  if (!s.ok()) {
    (void)DestroyKernelEvent(ctx, args.event_id);
    return ctx.diag().Error(s, kArea, "the CREATE_EVENT reply is malformed");
  }
  *out = r;
  return Status::Ok();
}

Status DestroyKernelEvent(Context& ctx, uint32_t id) {
  kfd::DestroyEventArgs a{};
  Status s = EncodeDestroy(id, &a);
  if (s.ok()) s = device::Ioctl(ctx, &a);
  if (!s.ok()) {
    FixedText<96> t;
    t.Append("DESTROY_EVENT of id ").AppendU64(id).Append(" failed: ").Append(StatusName(s));
    return ctx.diag().Report(HKE_DIAG_WARNING, s, kArea, t.c_str());
  }
  return Status::Ok();
}

Status SetKernelEvent(Context& ctx, uint32_t id) {
  kfd::SetEventArgs a{};
  HKE_RETURN_IF_ERROR(EncodeSet(id, &a));
  const Status s = device::Ioctl(ctx, &a);
  if (!s.ok()) return ctx.diag().Failed(s, kArea, "SET_EVENT");
  return Status::Ok();
}

}  // namespace internal

namespace {

// The HsaEvent a new event is published with (upstream's fields).
void FillView(HsaEvent* v, const HsaEventDescriptor& desc, const kfd::CreateEventResult& r,
              uint64_t slot_address) {
  std::memset(v, 0, sizeof(*v));
  v->EventId = r.event_id;
  v->EventData.EventType = desc.EventType;
  switch (desc.EventType) {
    case HSA_EVENTTYPE_NODECHANGE:
    case HSA_EVENTTYPE_DEVICESTATECHANGE:
    case HSA_EVENTTYPE_MEMORY:
    case HSA_EVENTTYPE_HW_EXCEPTION:
      break;  // filled by the kernel's data when the event fires
    default:
      v->EventData.EventData.SyncVar = desc.SyncVar;
      break;
  }
  v->EventData.HWData1 = r.event_id;
  if (HasSlot(desc.EventType)) {
    v->EventData.HWData2 = slot_address;
    v->EventData.HWData3 = r.trigger_data;
  }
}

// Resolves a handle for a one-event call and runs `op` with the lock held.
template <typename Op>
Status WithEvent(Context& ctx, const HsaEvent* event, Op op) {
  HKE_RETURN_IF_ERROR(device::CheckOpen(ctx));
  const uint32_t epoch = device::OpenEpoch(ctx);
  EventsState& st = ctx.events();
  LockGuard g(ctx.events_lock());
  SyncEpochLocked(st, epoch);
  uint32_t slot = kNil;
  HKE_RETURN_IF_ERROR(ResolveLocked(ctx, st, event, &slot));
  return op(st, slot);
}

Status CpuSignalable(Context& ctx, const EventSlot& e, const char* what) {
  if (HasSlot(e.type)) return Status::Ok();
  FixedText<96> t;
  t.Append(what).Append(" needs a SIGNAL or DEBUG event");
  return ctx.diag().Error(Status::Errno(err::kEINVAL), kArea, t.c_str());
}

}  // namespace

Status Create(Context& ctx, const HsaEventDescriptor& desc, bool manual_reset, bool signaled,
              HsaEvent** out) {
  if (out == nullptr) return InvalidArgument();
  const uint32_t type = static_cast<uint32_t>(desc.EventType);
  if (type >= HSA_EVENTTYPE_MAXID) {
    return ctx.diag().Error(InvalidArgument(), kArea, "EventType is not an HSA_EVENTTYPE");
  }
  HKE_RETURN_IF_ERROR(device::CheckOpen(ctx));
  const uint32_t epoch = device::OpenEpoch(ctx);
  EventsState& st = ctx.events();
  uint32_t slot = kNil;
  uint32_t generation = 0;
  bool setup = false;
  {
    LockGuard g(ctx.events_lock());
    SyncEpochLocked(st, epoch);
    if (HasSlot(type) && PageBlockedLocked(st, epoch)) {
      return ctx.diag().Error(
          Status::Api(HKE_STATUS_UNAVAILABLE), kArea,
          "the kernel keeps this process's events page from before hsaKmtCloseKFD: "
          "signal events need a new process on a dGPU");
    }
    HKE_RETURN_IF_ERROR(TakeSlotLocked(ctx, st, &slot));
    generation = st.slots.generation(slot);
    setup = NeedsSetupLocked(st, epoch, type);
  }
  const bool auto_reset = !manual_reset;
  kfd::CreateEventResult r{};
  Status s = setup ? CreateWithSetup(ctx, epoch, type, desc.NodeId, auto_reset, &r)
                   : CreateKernelEvent(ctx, type, desc.NodeId, auto_reset, 0, &r);
  bool created = s.ok();
  // Upstream sets a CPU-signallable event that starts signalled.
  if (s.ok() && signaled && type == HSA_EVENTTYPE_SIGNAL) s = SetKernelEvent(ctx, r.event_id);
  if (s.ok()) {
    LockGuard g(ctx.events_lock());
    EventSlot& e = st.slots[slot];
    uint64_t slot_address = 0;
    if (st.slots.state(slot) != SlotState::kReserved || st.slots.generation(slot) != generation ||
        st.epoch != epoch) {
      s = ctx.diag().Error(FailedPrecondition(), kArea, "the device was closed during CreateEvent");
    } else if (HasSlot(type)) {
      if (st.page_epoch != epoch || st.page_va == 0) {
        s = ctx.diag().Error(Protocol(), kArea, "a signal event was created without an events page");
      } else if (uint64_t{r.slot_index} * kfd::kEventSlotSize >= st.page_bytes) {
        s = ctx.diag().Error(Protocol(), kArea, "CREATE_EVENT gave a slot beyond the mapped page");
      } else {
        slot_address = st.page_va + uint64_t{r.slot_index} * kfd::kEventSlotSize;
      }
    }
    if (s.ok()) {
      FillView(ViewOf(st, slot), desc, r, slot_address);
      e.kfd_id = r.event_id;
      e.type = type;
      e.auto_reset = auto_reset;
      st.slots.Publish(slot);
      *out = ViewOf(st, slot);
      return Status::Ok();
    }
  }
  if (created) (void)DestroyKernelEvent(ctx, r.event_id);
  LockGuard g(ctx.events_lock());
  if (st.slots.state(slot) == SlotState::kReserved && st.slots.generation(slot) == generation) {
    ReleaseSlotLocked(st, slot);
  }
  return s;
}

Status Destroy(Context& ctx, const HsaEvent* event) {
  HKE_RETURN_IF_ERROR(device::CheckOpen(ctx));
  const uint32_t epoch = device::OpenEpoch(ctx);
  EventsState& st = ctx.events();
  Mutex& lock = ctx.events_lock();
  uint32_t slot = kNil;
  uint32_t generation = 0;
  uint32_t id = 0;
  {
    LockGuard g(lock);
    SyncEpochLocked(st, epoch);
    HKE_RETURN_IF_ERROR(ResolveLocked(ctx, st, event, &slot));
    st.slots.Retire(slot);
    generation = st.slots.generation(slot);
    id = st.slots[slot].kfd_id;
  }
  // SET/RESET calls that pinned the slot before it was marked finish their
  // ioctl first (each is one short kernel call).
  for (;;) {
    LockGuard g(lock);
    if (st.slots.state(slot) != SlotState::kRetiring || st.slots.generation(slot) != generation) {
      // The last close destroyed it meanwhile (Teardown).
      return ctx.diag().Error(FailedPrecondition(), kArea, "the device was closed during DestroyEvent");
    }
    if (st.slots.pins(slot) == 0) break;
  }
  const Status s = DestroyKernelEvent(ctx, id);
  LockGuard g(lock);
  // Teardown may have released the slot meanwhile (a close racing the
  // destroy); then there is nothing left to update.
  if (st.slots.state(slot) != SlotState::kRetiring || st.slots.generation(slot) != generation) return s;
  if (s.ok()) {
    ReleaseSlotLocked(st, slot);
  } else {
    st.slots.Revive(slot);  // the kernel kept the event: so does the table
  }
  return s;
}

namespace {

// Runs the SET or RESET ioctl of a SIGNAL/DEBUG event with its slot pinned
// and events_lock released (see the threading note in events.h).
Status PinnedSignalCall(Context& ctx, const HsaEvent* event, const char* what, bool set) {
  HKE_RETURN_IF_ERROR(device::CheckOpen(ctx));
  const uint32_t epoch = device::OpenEpoch(ctx);
  EventsState& st = ctx.events();
  uint32_t slot = kNil;
  uint32_t id = 0;
  SlotPin<Mutex> pin;  // unpins at return, with events_lock taken again
  {
    LockGuard g(ctx.events_lock());
    SyncEpochLocked(st, epoch);
    HKE_RETURN_IF_ERROR(ResolveLocked(ctx, st, event, &slot));
    const EventSlot& e = st.slots[slot];
    HKE_RETURN_IF_ERROR(CpuSignalable(ctx, e, what));
    pin.Hold(st.slots, ctx.events_lock(), slot);
    id = e.kfd_id;
  }
  Status s;
  if (set) {
    s = SetKernelEvent(ctx, id);
  } else {
    kfd::ResetEventArgs a{};
    s = EncodeReset(id, &a);
    if (s.ok()) s = device::Ioctl(ctx, &a);
    if (!s.ok()) {
      s = ctx.diag().Failed(s, kArea, "RESET_EVENT");
    }
  }
  return s;
}

}  // namespace

Status Set(Context& ctx, const HsaEvent* event) {
  return PinnedSignalCall(ctx, event, "SetEvent", true);
}

Status Reset(Context& ctx, const HsaEvent* event) {
  return PinnedSignalCall(ctx, event, "ResetEvent", false);
}

Status Query(Context& ctx, const HsaEvent* event) {
  return WithEvent(ctx, event, [](EventsState&, uint32_t) { return Status::Ok(); });
}

Status KernelId(Context& ctx, const HsaEvent* event, uint32_t* out_id) {
  if (out_id == nullptr) return InvalidArgument();
  return WithEvent(ctx, event, [&](EventsState& st, uint32_t slot) -> Status {
    *out_id = st.slots[slot].kfd_id;
    return Status::Ok();
  });
}

void Teardown(Context& ctx) {
  const uint32_t epoch = device::OpenEpoch(ctx);
  // A CreateEvent in its setup finishes first (it holds the setup lock).
  LockGuard setup(ctx.events_setup_lock());
  LockGuard g(ctx.events_lock());
  EventsState& st = ctx.events();
  SyncEpochLocked(st, epoch);
  for (uint32_t slot = 0; slot < st.slots.high_water(); ++slot) {
    const SlotState state = st.slots.state(slot);
    // kRetiring: a DestroyEvent racing the close; it sees the release.
    if (state == SlotState::kLive || state == SlotState::kRetiring) {
      (void)DestroyKernelEvent(ctx, st.slots[slot].kfd_id);
    }
    // A reserved slot's creator sees the release and destroys its event.
    ReleaseSlotLocked(st, slot);
  }
  if (st.page_kind == PageKind::kKernelMapping && st.page_va != 0) {
    const Status s = ctx.platform().Munmap(reinterpret_cast<void*>(static_cast<uintptr_t>(st.page_va)),
                                           static_cast<size_t>(st.page_bytes));
    if (!s.ok()) {
      (void)ctx.diag().Report(HKE_DIAG_WARNING, s, kArea, "munmap of the events page failed");
    }
  }
  // A dGPU page is a memory object: memory::Teardown releases what the
  // kernel lets go of.
  st.page_epoch = 0;
  st.page_kind = PageKind::kNone;
  st.page_va = 0;
  st.page_bytes = 0;
  st.setup_epoch = 0;
}

void Forget(Context& ctx) {
  LockGuard g(ctx.events_lock());
  EventsState& st = ctx.events();
  st.slots.FreeAll();
  st.page_epoch = 0;
  st.page_kind = PageKind::kNone;
  st.page_va = 0;
  st.page_bytes = 0;
  st.setup_epoch = 0;
  st.user_page_pid = 0;
}

Status GetStats(Context& ctx, Stats* out) {
  return ReadLocked(ctx.events_lock(), out, [&st = ctx.events()] {
    Stats s{};
    st.slots.FillStats(&s);
    s.pool_in_use = kWaitPoolBuffers - static_cast<uint32_t>(__builtin_popcount(st.pool_free));
    s.pool_high_water = st.pool_high_water;
    s.page_va = st.page_epoch != 0 ? st.page_va : 0;
    s.page_from_kernel = st.page_kind == PageKind::kKernelMapping;
    return s;
  });
}

}  // namespace hke::events
