// Entry points of hsakmt.h that are declared but not implemented yet (the
// PMC/trace calls).
//
// Each function here returns HSAKMT_STATUS_NOT_IMPLEMENTED at once: it
// reads no argument, writes no output and touches no library state, so it
// is safe to call in any state from any thread. Parameters are unnamed
// because none is used.
//
// A function moves out of this file, into the lib/api/ source of its area,
// in the change that implements it. tests/api/api_table_test.cc checks that
// every hsaKmt* function declared in hsakmt.h is defined somewhere and that
// the functions listed here really return NOT_IMPLEMENTED; keep its
// not-implemented list in step with this file.
//
// Visibility: HSAKMTAPI on the declarations in hsakmt.h (repeated here)
// exports these symbols although lib/ is compiled with hidden visibility.
#include "hsakmt/hsakmt.h"

namespace {

constexpr HSAKMT_STATUS kNotImplemented = HSAKMT_STATUS_NOT_IMPLEMENTED;

}  // namespace

extern "C" {

HSAKMT_STATUS HSAKMTAPI hsaKmtPmcGetCounterProperties(HSAuint32, HsaCounterProperties**) {
  return kNotImplemented;
}
HSAKMT_STATUS HSAKMTAPI hsaKmtPmcRegisterTrace(HSAuint32, HSAuint32, HsaCounter*,
                                               HsaPmcTraceRoot*) {
  return kNotImplemented;
}
HSAKMT_STATUS HSAKMTAPI hsaKmtPmcUnregisterTrace(HSAuint32, HSATraceId) { return kNotImplemented; }
HSAKMT_STATUS HSAKMTAPI hsaKmtPmcAcquireTraceAccess(HSAuint32, HSATraceId) {
  return kNotImplemented;
}
HSAKMT_STATUS HSAKMTAPI hsaKmtPmcReleaseTraceAccess(HSAuint32, HSATraceId) {
  return kNotImplemented;
}
HSAKMT_STATUS HSAKMTAPI hsaKmtPmcStartTrace(HSATraceId, void*, HSAuint64) {
  return kNotImplemented;
}
HSAKMT_STATUS HSAKMTAPI hsaKmtPmcQueryTrace(HSATraceId) { return kNotImplemented; }
HSAKMT_STATUS HSAKMTAPI hsaKmtPmcStopTrace(HSATraceId) { return kNotImplemented; }

}  // extern "C"
