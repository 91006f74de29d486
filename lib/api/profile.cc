// The SPM and PC-sampling entry points of hsakmt.h on the default context
// (lib/profile/profile.h has the semantics and the trace-id scheme).
//
// Status rules. SPM: NULL outputs of SetDestBuffer are INVALID_PARAMETER;
// then the open device; an unknown node is INVALID_NODE_UNIT, a CPU node
// too; kernel refusals map as ToHsakmt does (EINVAL INVALID_PARAMETER,
// EBUSY UNAVAILABLE, ENOTTY on a kernel without the DKMS ioctl
// NOT_SUPPORTED). Upstream returns the raw ioctl result (0 or -1) instead.
// PC sampling follows upstream's per-call tables: QueryCapabilities ENOSPC
// BUFFER_TOO_SMALL (with the needed count), EINVAL INVALID_PARAMETER,
// EOPNOTSUPP/ENOTTY NOT_SUPPORTED, EBUSY UNAVAILABLE; Create EINVAL
// INVALID_PARAMETER, ENOMEM NO_MEMORY, EBUSY UNAVAILABLE; Start EINVAL
// INVALID_PARAMETER, ENOMEM OUT_OF_RESOURCES, EBUSY UNAVAILABLE, EALREADY
// KERNEL_ALREADY_OPENED; Stop EINVAL INVALID_PARAMETER, EALREADY
// KERNEL_ALREADY_OPENED; Destroy EINVAL INVALID_PARAMETER; any other errno
// is ERROR. A trace id that is 0, stale, forged or of another node is
// INVALID_HANDLE; more sessions than the context tracks OUT_OF_RESOURCES; a
// kernel older than 1.16 NOT_SUPPORTED (Support and QueryCapabilities check
// it as upstream; Create does too).
#include "lib/profile/profile.h"

#include <cstring>

#include "hsakmt/hsakmt.h"
#include "lib/api/entry.h"
#include "lib/core/errno.h"

namespace hke::api {
namespace {

static_assert(sizeof(HsaPcSamplingInfo) == sizeof(kfd::PcSampleInfo),
              "HsaPcSamplingInfo is the kernel's kfd_pc_sample_info");

// The library's own reasons map as ToHsakmt says; kernel errnos by the
// call's table (`pairs` of errno and status, then ERROR).
struct ErrnoMap {
  int error;
  HSAKMT_STATUS status;
};

template <size_t N>
HSAKMT_STATUS Map(Status s, const ErrnoMap (&table)[N]) {
  if (s.ok()) return HSAKMT_STATUS_SUCCESS;
  if (s.domain() != HKE_DOMAIN_ERRNO) return ToHsakmt(s);
  for (const ErrnoMap& m : table) {
    if (s.is_errno(m.error)) return m.status;
  }
  return HSAKMT_STATUS_ERROR;
}

constexpr ErrnoMap kQueryMap[] = {{err::kEINVAL, HSAKMT_STATUS_INVALID_PARAMETER},
                                  {err::kEOPNOTSUPP, HSAKMT_STATUS_NOT_SUPPORTED},
                                  {err::kENOTTY, HSAKMT_STATUS_NOT_SUPPORTED},
                                  {err::kEBUSY, HSAKMT_STATUS_UNAVAILABLE}};
constexpr ErrnoMap kCreateMap[] = {{err::kEINVAL, HSAKMT_STATUS_INVALID_PARAMETER},
                                   {err::kENOMEM, HSAKMT_STATUS_NO_MEMORY},
                                   {err::kEBUSY, HSAKMT_STATUS_UNAVAILABLE}};
constexpr ErrnoMap kDestroyMap[] = {{err::kEINVAL, HSAKMT_STATUS_INVALID_PARAMETER}};
constexpr ErrnoMap kStartMap[] = {{err::kEINVAL, HSAKMT_STATUS_INVALID_PARAMETER},
                                  {err::kENOMEM, HSAKMT_STATUS_OUT_OF_RESOURCES},
                                  {err::kEBUSY, HSAKMT_STATUS_UNAVAILABLE},
                                  {err::kEALREADY, HSAKMT_STATUS_KERNEL_ALREADY_OPENED}};
constexpr ErrnoMap kStopMap[] = {{err::kEINVAL, HSAKMT_STATUS_INVALID_PARAMETER},
                                 {err::kEALREADY, HSAKMT_STATUS_KERNEL_ALREADY_OPENED}};

// The bodies: `ctx` is the default context; the checks before the device
// (the list's last column) are made.

HSAKMT_STATUS SpmAcquire(Context& ctx, HSAuint32 PreferredNode) {
  return ToHsakmt(profile::SpmAcquire(ctx, PreferredNode));
}

HSAKMT_STATUS SpmRelease(Context& ctx, HSAuint32 PreferredNode) {
  return ToHsakmt(profile::SpmRelease(ctx, PreferredNode));
}

HSAKMT_STATUS SpmSetDestBuffer(Context& ctx, HSAuint32 PreferredNode, HSAuint32 SizeInBytes,
                               HSAuint32* timeout, HSAuint32* SizeCopied, void* DestMemoryAddress,
                               bool* isSPMDataLoss) {
  return ToHsakmt(profile::SpmSetDestBuffer(ctx, PreferredNode, SizeInBytes,
                                            Addr(DestMemoryAddress), timeout, SizeCopied,
                                            isSPMDataLoss));
}

HSAKMT_STATUS PcSamplingSupport(Context& ctx) { return ToHsakmt(profile::PcSamplingSupport(ctx)); }

HSAKMT_STATUS PcSamplingQueryCapabilities(Context& ctx, HSAuint32 NodeId, void* sample_info,
                                          HSAuint32 sample_info_sz, HSAuint32* size) {
  return Map(profile::PcSamplingQuery(ctx, NodeId, static_cast<kfd::PcSampleInfo*>(sample_info),
                                      sample_info_sz, size),
             kQueryMap);
}

HSAKMT_STATUS PcSamplingCreate(Context& ctx, HSAuint32 node_id, HsaPcSamplingInfo* sample_info,
                               HsaPcSamplingTraceId* traceId) {
  kfd::PcSampleInfo info{};
  std::memcpy(&info, sample_info, sizeof(info));
  uint32_t id = 0;
  const Status s = profile::PcSamplingCreate(ctx, node_id, &info, &id);
  // EEXIST hands back the running session's configuration (upstream's
  // callers read it from their struct).
  if (s.ok() || s.is_errno(err::kEEXIST)) std::memcpy(sample_info, &info, sizeof(info));
  if (s.ok()) *traceId = id;
  return Map(s, kCreateMap);
}

// A PC-sampling trace id of 0 is INVALID_HANDLE before the device.
HSAKMT_STATUS TraceIdGiven(HsaPcSamplingTraceId traceId) {
  return traceId != 0 ? HSAKMT_STATUS_SUCCESS : HSAKMT_STATUS_INVALID_HANDLE;
}

HSAKMT_STATUS PcSamplingDestroy(Context& ctx, HSAuint32 NodeId, HsaPcSamplingTraceId traceId) {
  return Map(profile::PcSamplingDestroy(ctx, NodeId, traceId), kDestroyMap);
}

HSAKMT_STATUS PcSamplingStart(Context& ctx, HSAuint32 NodeId, HsaPcSamplingTraceId traceId) {
  return Map(profile::PcSamplingStart(ctx, NodeId, traceId), kStartMap);
}

HSAKMT_STATUS PcSamplingStop(Context& ctx, HSAuint32 NodeId, HsaPcSamplingTraceId traceId) {
  return Map(profile::PcSamplingStop(ctx, NodeId, traceId), kStopMap);
}

}  // namespace
}  // namespace hke::api

extern "C" {

// The entry points (default context only), one line each (lib/api/entry.h:
// HKE_API_DEFAULT_ONLY).
#define HKE_PROFILE_API(X)                                                                        \
  X(SPMAcquire, SpmAcquire, (HSAuint32 PreferredNode), (PreferredNode), Required())               \
  X(SPMRelease, SpmRelease, (HSAuint32 PreferredNode), (PreferredNode), Required())               \
  X(SPMSetDestBuffer, SpmSetDestBuffer,                                                           \
    (HSAuint32 PreferredNode, HSAuint32 SizeInBytes, HSAuint32 * timeout, HSAuint32 * SizeCopied, \
     void* DestMemoryAddress, bool* isSPMDataLoss),                                               \
    (PreferredNode, SizeInBytes, timeout, SizeCopied, DestMemoryAddress, isSPMDataLoss),          \
    Required(timeout, SizeCopied, isSPMDataLoss))                                                 \
  X(PcSamplingSupport, PcSamplingSupport, (void), (), Required())                                 \
  X(PcSamplingQueryCapabilities, PcSamplingQueryCapabilities,                                     \
    (HSAuint32 NodeId, void* sample_info, HSAuint32 sample_info_sz, HSAuint32* size),             \
    (NodeId, sample_info, sample_info_sz, size), Required(size))                                  \
  X(PcSamplingCreate, PcSamplingCreate,                                                           \
    (HSAuint32 node_id, HsaPcSamplingInfo * sample_info, HsaPcSamplingTraceId * traceId),         \
    (node_id, sample_info, traceId), Required(sample_info, traceId))                              \
  X(PcSamplingDestroy, PcSamplingDestroy, (HSAuint32 NodeId, HsaPcSamplingTraceId traceId),       \
    (NodeId, traceId), TraceIdGiven(traceId))                                                     \
  X(PcSamplingStart, PcSamplingStart, (HSAuint32 NodeId, HsaPcSamplingTraceId traceId),           \
    (NodeId, traceId), TraceIdGiven(traceId))                                                     \
  X(PcSamplingStop, PcSamplingStop, (HSAuint32 NodeId, HsaPcSamplingTraceId traceId),             \
    (NodeId, traceId), TraceIdGiven(traceId))

HKE_PROFILE_API(HKE_API_DEFAULT_ONLY)

}  // extern "C"
