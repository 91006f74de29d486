// The event entry points of hsakmt.h, on the default context, and their
// hsakmtctx.h twins (hsaKmt<Name>Ctx), on the given context: one body per
// call, taking the context (lib/events/events.h has the semantics).
//
// A Ctx call on a NULL or dead context is INVALID_PARAMETER before
// anything else; after that it checks what the plain call checks, in the
// same order.
//
// Status rules: CreateEvent's NULL EventDesc or Event is INVALID_PARAMETER
// before anything else; every other call checks the open device first
// (KERNEL_IO_CHANNEL_NOT_OPENED), then its handles: NULL, forged and stale
// HsaEvent pointers are INVALID_HANDLE (upstream dereferences them). A
// wait that times out is WAIT_TIMEOUT; one whose event was destroyed while
// it waited is WAIT_FAILURE (upstream: ERROR); NumEvents 0 or above the
// table's capacity is INVALID_PARAMETER, before any ioctl. Set/Reset of an
// event the CPU may not signal, and kernel failures of Set/Reset/Destroy,
// are ERROR as upstream reports them; the rest maps through
// lib/api/status_map.cc. OpenSMI: NULL fd is INVALID_PARAMETER, KFD < 1.3
// NOT_SUPPORTED, a node without a GPU INVALID_NODE_UNIT, a kernel refusal
// ERROR (upstream).
#include "lib/events/events.h"

#include "hsakmt/hsakmt.h"
#include "hsakmt/hsakmtctx.h"
#include "lib/api/entry.h"
#include "lib/api/status_map.h"
#include "lib/context/context.h"
#include "lib/core/errno.h"

namespace hke::api {
namespace {

// The bodies: `ctx` is the context the call runs on; the required
// arguments (the list's last column) are checked.

HSAKMT_STATUS WaitStatus(Status s) {
  if (s.is_errno(err::kEIO)) return HSAKMT_STATUS_WAIT_FAILURE;
  return ToHsakmt(s);
}

HSAKMT_STATUS Wait(Context& ctx, HsaEvent* const* events, HSAuint32 n, bool all, HSAuint32 ms,
                   uint64_t* ages) {
  return WaitStatus(events::Wait(ctx, events, n, all, ms, ages));
}

HSAKMT_STATUS CreateEvent(Context& ctx, HsaEventDescriptor* EventDesc, bool ManualReset,
                          bool IsSignaled, HsaEvent** Event) {
  HsaEvent* e = nullptr;
  const Status s = events::Create(ctx, *EventDesc, ManualReset, IsSignaled, &e);
  if (!s.ok()) return ToHsakmt(s);
  *Event = e;
  return HSAKMT_STATUS_SUCCESS;
}

// Upstream reports any kernel refusal of Set/Reset/Destroy as ERROR.
HSAKMT_STATUS DestroyEvent(Context& ctx, HsaEvent* Event) {
  return KernelCallStatus(events::Destroy(ctx, Event));
}

HSAKMT_STATUS SetEvent(Context& ctx, HsaEvent* Event) {
  return KernelCallStatus(events::Set(ctx, Event));
}

HSAKMT_STATUS ResetEvent(Context& ctx, HsaEvent* Event) {
  return KernelCallStatus(events::Reset(ctx, Event));
}

HSAKMT_STATUS QueryEventState(Context& ctx, HsaEvent* Event) {
  return ToHsakmt(events::Query(ctx, Event));
}

HSAKMT_STATUS WaitOnEvent(Context& ctx, HsaEvent* Event, HSAuint32 Milliseconds) {
  return Wait(ctx, &Event, 1, true, Milliseconds, nullptr);
}

HSAKMT_STATUS WaitOnEventExt(Context& ctx, HsaEvent* Event, HSAuint32 Milliseconds,
                             uint64_t* event_age) {
  return Wait(ctx, &Event, 1, true, Milliseconds, event_age);
}

HSAKMT_STATUS WaitOnMultipleEvents(Context& ctx, HsaEvent** Events, HSAuint32 NumEvents,
                                   bool WaitOnAll, HSAuint32 Milliseconds) {
  return Wait(ctx, Events, NumEvents, WaitOnAll, Milliseconds, nullptr);
}

HSAKMT_STATUS WaitOnMultipleEventsExt(Context& ctx, HsaEvent** Events, HSAuint32 NumEvents,
                                      bool WaitOnAll, HSAuint32 Milliseconds, uint64_t* event_age) {
  return Wait(ctx, Events, NumEvents, WaitOnAll, Milliseconds, event_age);
}

HSAKMT_STATUS OpenSmi(Context& ctx, HSAuint32 NodeId, int* fd) {
  int out = -1;
  const Status s = events::OpenSmi(ctx, NodeId, &out);
  if (!s.ok()) return KernelCallStatus(s);
  *fd = out;
  return HSAKMT_STATUS_SUCCESS;
}

}  // namespace
}  // namespace hke::api

extern "C" {

// The entry points with a Ctx twin, one line each (lib/api/entry.h:
// HKE_API_TWINS).
#define HKE_EVENTS_API(X)                                                                        \
  X(CreateEvent, CreateEvent,                                                                    \
    (HsaEventDescriptor * EventDesc, bool ManualReset, bool IsSignaled, HsaEvent** Event),       \
    (EventDesc, ManualReset, IsSignaled, Event), Required(EventDesc, Event))                     \
  X(DestroyEvent, DestroyEvent, (HsaEvent * Event), (Event), Required())                         \
  X(SetEvent, SetEvent, (HsaEvent * Event), (Event), Required())                                 \
  X(ResetEvent, ResetEvent, (HsaEvent * Event), (Event), Required())                             \
  X(QueryEventState, QueryEventState, (HsaEvent * Event), (Event), Required())                   \
  X(WaitOnEvent, WaitOnEvent, (HsaEvent * Event, HSAuint32 Milliseconds), (Event, Milliseconds), \
    Required())                                                                                  \
  X(WaitOnEvent_Ext, WaitOnEventExt,                                                             \
    (HsaEvent * Event, HSAuint32 Milliseconds, uint64_t * event_age),                            \
    (Event, Milliseconds, event_age), Required())                                                \
  X(WaitOnMultipleEvents, WaitOnMultipleEvents,                                                  \
    (HsaEvent * Events[], HSAuint32 NumEvents, bool WaitOnAll, HSAuint32 Milliseconds),          \
    (Events, NumEvents, WaitOnAll, Milliseconds), Required())                                    \
  X(WaitOnMultipleEvents_Ext, WaitOnMultipleEventsExt,                                           \
    (HsaEvent * Events[], HSAuint32 NumEvents, bool WaitOnAll, HSAuint32 Milliseconds,           \
     uint64_t* event_age),                                                                       \
    (Events, NumEvents, WaitOnAll, Milliseconds, event_age), Required())                         \
  X(OpenSMI, OpenSmi, (HSAuint32 NodeId, int* fd), (NodeId, fd), Required(fd))

HKE_EVENTS_API(HKE_API_TWINS)

}  // extern "C"
