// The event entry points of hsakmt.h on the default context
// (lib/events/events.h has the semantics).
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
#include "hsakmt/hsakmt.h"
#include "lib/api/entry.h"
#include "lib/api/status_map.h"
#include "lib/context/context.h"
#include "lib/core/errno.h"
#include "lib/events/events.h"

using hke::api::Default;
using hke::api::KernelCallStatus;
using hke::api::kNoContext;

namespace {

HSAKMT_STATUS WaitStatus(hke::Status s) {
  if (s.is_errno(hke::err::kEIO)) return HSAKMT_STATUS_WAIT_FAILURE;
  return hke::api::ToHsakmt(s);
}

// Upstream reports any kernel refusal of Set/Reset/Destroy as ERROR.
HSAKMT_STATUS Wait(HsaEvent* const* events, HSAuint32 n, bool all, HSAuint32 ms, uint64_t* ages) {
  hke::Context* ctx = Default();
  if (ctx == nullptr) return kNoContext;
  return WaitStatus(hke::events::Wait(*ctx, events, n, all, ms, ages));
}

}  // namespace

extern "C" {

HSAKMT_STATUS HSAKMTAPI hsaKmtCreateEvent(HsaEventDescriptor* EventDesc, bool ManualReset,
                                          bool IsSignaled, HsaEvent** Event) {
  if (EventDesc == nullptr || Event == nullptr) return HSAKMT_STATUS_INVALID_PARAMETER;
  hke::Context* ctx = Default();
  if (ctx == nullptr) return kNoContext;
  HsaEvent* e = nullptr;
  const hke::Status s = hke::events::Create(*ctx, *EventDesc, ManualReset, IsSignaled, &e);
  if (!s.ok()) return hke::api::ToHsakmt(s);
  *Event = e;
  return HSAKMT_STATUS_SUCCESS;
}

HSAKMT_STATUS HSAKMTAPI hsaKmtDestroyEvent(HsaEvent* Event) {
  hke::Context* ctx = Default();
  if (ctx == nullptr) return kNoContext;
  return KernelCallStatus(hke::events::Destroy(*ctx, Event));
}

HSAKMT_STATUS HSAKMTAPI hsaKmtSetEvent(HsaEvent* Event) {
  hke::Context* ctx = Default();
  if (ctx == nullptr) return kNoContext;
  return KernelCallStatus(hke::events::Set(*ctx, Event));
}

HSAKMT_STATUS HSAKMTAPI hsaKmtResetEvent(HsaEvent* Event) {
  hke::Context* ctx = Default();
  if (ctx == nullptr) return kNoContext;
  return KernelCallStatus(hke::events::Reset(*ctx, Event));
}

HSAKMT_STATUS HSAKMTAPI hsaKmtQueryEventState(HsaEvent* Event) {
  hke::Context* ctx = Default();
  if (ctx == nullptr) return kNoContext;
  return hke::api::ToHsakmt(hke::events::Query(*ctx, Event));
}

HSAKMT_STATUS HSAKMTAPI hsaKmtWaitOnEvent(HsaEvent* Event, HSAuint32 Milliseconds) {
  return Wait(&Event, 1, true, Milliseconds, nullptr);
}

HSAKMT_STATUS HSAKMTAPI hsaKmtWaitOnEvent_Ext(HsaEvent* Event, HSAuint32 Milliseconds,
                                              uint64_t* event_age) {
  return Wait(&Event, 1, true, Milliseconds, event_age);
}

HSAKMT_STATUS HSAKMTAPI hsaKmtWaitOnMultipleEvents(HsaEvent* Events[], HSAuint32 NumEvents,
                                                   bool WaitOnAll, HSAuint32 Milliseconds) {
  return Wait(Events, NumEvents, WaitOnAll, Milliseconds, nullptr);
}

HSAKMT_STATUS HSAKMTAPI hsaKmtWaitOnMultipleEvents_Ext(HsaEvent* Events[], HSAuint32 NumEvents,
                                                       bool WaitOnAll, HSAuint32 Milliseconds,
                                                       uint64_t* event_age) {
  return Wait(Events, NumEvents, WaitOnAll, Milliseconds, event_age);
}

HSAKMT_STATUS HSAKMTAPI hsaKmtOpenSMI(HSAuint32 NodeId, int* fd) {
  if (fd == nullptr) return HSAKMT_STATUS_INVALID_PARAMETER;
  hke::Context* ctx = Default();
  if (ctx == nullptr) return kNoContext;
  int out = -1;
  const hke::Status s = hke::events::OpenSmi(*ctx, NodeId, &out);
  if (!s.ok()) return KernelCallStatus(s);
  *fd = out;
  return HSAKMT_STATUS_SUCCESS;
}

}  // extern "C"
