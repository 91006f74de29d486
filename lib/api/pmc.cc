// The hsaKmtPmc* entry points (lib/pmc/pmc.h has the semantics), with the
// Ctx twins of hsakmtctx.h.
//
// Status rules, upstream's where it has one: a NULL output, zero or too
// many counters, an invalid counter, a trace buffer that is NULL, empty or
// smaller than 8 bytes per privileged counter are INVALID_PARAMETER; a
// trace id 0 is INVALID_PARAMETER (upstream's check); any other id that is
// not a live trace of this open (stale, forged, of another node) is
// INVALID_HANDLE before anything else is looked at. A node outside the
// topology is INVALID_NODE_UNIT; a node without counter tables (CPU,
// gfx11+, Tonga) INVALID_PARAMETER, as upstream's table lookup answers.
// Full trace table OUT_OF_RESOURCES. A platform without perf operations
// makes AcquireTraceAccess NOT_SUPPORTED when the trace has IOMMU counters;
// a perf_event call the host refuses (EACCES without CAP_PERFMON, ...) is
// ERROR, as upstream, with the errno in the diagnostic. Start/Query on a
// trace that lacks access or is not started: UNAVAILABLE.
#include "lib/pmc/pmc.h"

#include "hsakmt/hsakmt.h"
#include "lib/api/entry.h"
#include "lib/api/lifecycle.h"

namespace hke::api {
namespace {

HSAKMT_STATUS GetCounterProperties(Context& ctx, HSAuint32 NodeId, HsaCounterProperties** out) {
  HsaCounterProperties* p = nullptr;
  const Status s = pmc::GetCounterProperties(ctx, NodeId, &p);
  if (s.ok()) *out = p;
  return ToHsakmt(s);
}

HSAKMT_STATUS RegisterTrace(Context& ctx, HSAuint32 NodeId, HSAuint32 NumberOfCounters,
                            HsaCounter* Counters, HsaPmcTraceRoot* TraceRoot) {
  HsaPmcTraceRoot root{};
  const Status s = pmc::RegisterTrace(ctx, NodeId, NumberOfCounters, Counters, &root);
  if (s.ok()) *TraceRoot = root;
  return ToHsakmt(s);
}

HSAKMT_STATUS UnregisterTrace(Context& ctx, HSAuint32 NodeId, HSATraceId TraceId) {
  return KernelCallStatus(pmc::UnregisterTrace(ctx, NodeId, TraceId));
}

HSAKMT_STATUS AcquireTraceAccess(Context& ctx, HSAuint32 NodeId, HSATraceId TraceId) {
  return KernelCallStatus(pmc::AcquireTraceAccess(ctx, NodeId, TraceId));
}

HSAKMT_STATUS ReleaseTraceAccess(Context& ctx, HSAuint32 NodeId, HSATraceId TraceId) {
  return KernelCallStatus(pmc::ReleaseTraceAccess(ctx, NodeId, TraceId));
}

// The context a trace id names (its tag, lib/pmc/pmc.h): the default
// context or an open secondary slot. Start/Query/Stop take no context.
// *out_stale: the id names a secondary slot that is not open.
Context* ContextOfTrace(HSATraceId id, bool* out_stale) {
  const uint32_t tag = pmc::TraceIdContextTag(id);
  *out_stale = false;
  if (tag == 0) return Default();
  Context* c = SecondaryOfTag(tag);
  *out_stale = c == nullptr;
  return c;
}

template <typename Call>
HSAKMT_STATUS OnTraceContext(HSATraceId id, Call call) {
  if (id == 0) return HSAKMT_STATUS_INVALID_PARAMETER;
  bool stale = false;
  Context* ctx = ContextOfTrace(id, &stale);
  if (stale) return HSAKMT_STATUS_INVALID_HANDLE;
  if (ctx == nullptr) return kNoContext;
  SharedGate g(ctx->open_gate());
  return KernelCallStatus(call(*ctx));
}

}  // namespace
}  // namespace hke::api

extern "C" {

// The entry points with a Ctx twin, one line each (lib/api/entry.h:
// HKE_API_TWINS).
#define HKE_PMC_API(X)                                                                          \
  X(PmcGetCounterProperties, GetCounterProperties,                                              \
    (HSAuint32 NodeId, HsaCounterProperties * *CounterProperties), (NodeId, CounterProperties), \
    Required(CounterProperties))                                                                \
  X(PmcRegisterTrace, RegisterTrace,                                                            \
    (HSAuint32 NodeId, HSAuint32 NumberOfCounters, HsaCounter * Counters,                       \
     HsaPmcTraceRoot * TraceRoot),                                                              \
    (NodeId, NumberOfCounters, Counters, TraceRoot),                                            \
    Required(Counters, TraceRoot, NumberOfCounters))                                            \
  X(PmcUnregisterTrace, UnregisterTrace, (HSAuint32 NodeId, HSATraceId TraceId),                \
    (NodeId, TraceId), Required(TraceId))                                                       \
  X(PmcAcquireTraceAccess, AcquireTraceAccess, (HSAuint32 NodeId, HSATraceId TraceId),          \
    (NodeId, TraceId), Required(TraceId))                                                       \
  X(PmcReleaseTraceAccess, ReleaseTraceAccess, (HSAuint32 NodeId, HSATraceId TraceId),          \
    (NodeId, TraceId), Required(TraceId))

HKE_PMC_API(HKE_API_TWINS)

// Start/Query/Stop run on the context the trace id names (the default one,
// or the secondary slot that registered it).
HSAKMT_STATUS HSAKMTAPI hsaKmtPmcStartTrace(HSATraceId TraceId, void* TraceBuffer,
                                            HSAuint64 TraceBufferSizeBytes) {
  return hke::api::OnTraceContext(TraceId, [&](hke::Context& ctx) {
    return hke::pmc::StartTrace(ctx, TraceId, hke::api::Addr(TraceBuffer), TraceBufferSizeBytes);
  });
}

HSAKMT_STATUS HSAKMTAPI hsaKmtPmcQueryTrace(HSATraceId TraceId) {
  return hke::api::OnTraceContext(
      TraceId, [&](hke::Context& ctx) { return hke::pmc::QueryTrace(ctx, TraceId); });
}

HSAKMT_STATUS HSAKMTAPI hsaKmtPmcStopTrace(HSATraceId TraceId) {
  return hke::api::OnTraceContext(
      TraceId, [&](hke::Context& ctx) { return hke::pmc::StopTrace(ctx, TraceId); });
}

}  // extern "C"
