// Event codecs: CREATE/DESTROY/SET/RESET_EVENT and WAIT_EVENTS.
#include "lib/core/checked.h"
#include "lib/kfd/encode.h"
#include "lib/kfd/encode_internal.h"

namespace hke::kfd {

using internal::ArrayFits;

namespace {

// Signal and debug events live in the signal page and get a slot.
constexpr bool HasSlot(uint32_t type) { return type == kEventSignal || type == kEventDebugEvent; }

// The requests that carry an event id only (DESTROY, SET, RESET). Every
// id is valid: kernels before 5.18 (and the simulator) give signal id 0 to
// the first signal event; later ones start at 1.
template <class Args>
Status EncodeIdOnly(uint32_t event_id, Args* out) {
  if (out == nullptr) return InvalidArgument();
  Args a{};
  a.event_id = event_id;
  a.pad = 0;
  *out = a;
  return Status::Ok();
}

}  // namespace

Status EncodeCreateEvent(const EventRequest& req, CreateEventArgs* out) {
  if (out == nullptr || req.event_type > kEventTypeLast) return InvalidArgument();
  // A nonzero page handle (the first event of a dGPU process) is accepted
  // with any type: the kernel installs the page before creating the event.
  CreateEventArgs a{};
  a.event_page_offset = req.event_page_handle;
  a.event_type = req.event_type;
  a.auto_reset = req.auto_reset ? 1u : 0u;
  a.node_id = req.node_id;
  *out = a;
  return Status::Ok();
}

Status DecodeCreateEvent(const CreateEventArgs& sent, const CreateEventArgs& reply,
                         CreateEventResult* out) {
  if (out == nullptr || sent.event_type > kEventTypeLast) return InvalidArgument();
  if (reply.event_type != sent.event_type) return Protocol();
  CreateEventResult r{};
  r.event_id = reply.event_id;
  if (HasSlot(sent.event_type)) {
    if (reply.event_slot_index >= kSignalEventLimit) {
      return Protocol();
    }
    if (reply.event_id != reply.event_slot_index ||
        reply.event_trigger_data != reply.event_id) {
      return Protocol();
    }
    MmapOffset m{};
    if (!DecodeMmapOffset(reply.event_page_offset, &m).ok() || m.type != kMmapTypeEvents) {
      return Protocol();
    }
    r.slot_index = reply.event_slot_index;
    r.trigger_data = reply.event_trigger_data;
    r.events_mmap_offset = reply.event_page_offset;
  } else if (reply.event_id < kSignalEventLimit) {
    return Protocol();
  }
  *out = r;
  return Status::Ok();
}

Status EncodeDestroyEvent(uint32_t event_id, DestroyEventArgs* out) {
  return EncodeIdOnly(event_id, out);
}

Status EncodeSetEvent(uint32_t event_id, SetEventArgs* out) { return EncodeIdOnly(event_id, out); }

Status EncodeResetEvent(uint32_t event_id, ResetEventArgs* out) {
  return EncodeIdOnly(event_id, out);
}

Status EncodeWaitEvents(uint64_t events, uint32_t count, bool wait_for_all, uint32_t timeout_ms,
                        WaitEventsArgs* out) {
  if (out == nullptr || events == 0) return InvalidArgument();
  if (count == 0) return InvalidArgument();
  if (count > kMaxWaitEvents) return OutOfRange();
  if (!ArrayFits(events, count, sizeof(EventData))) return Overflow();
  WaitEventsArgs a{};
  a.events_ptr = events;
  a.num_events = count;
  a.wait_for_all = wait_for_all ? 1u : 0u;
  a.timeout = timeout_ms;
  *out = a;
  return Status::Ok();
}

Status DecodeWaitEvents(const WaitEventsArgs& sent, const WaitEventsArgs& reply, WaitResult* out) {
  if (out == nullptr) return InvalidArgument();
  if (reply.events_ptr != sent.events_ptr || reply.num_events != sent.num_events ||
      reply.wait_for_all != sent.wait_for_all) {
    return Protocol();
  }
  if (reply.wait_result > kWaitResultFail) return Protocol();
  if (sent.timeout != kWaitInfinite && reply.timeout > sent.timeout) return Protocol();
  *out = WaitResult{reply.wait_result, reply.timeout};
  return Status::Ok();
}

}  // namespace hke::kfd
