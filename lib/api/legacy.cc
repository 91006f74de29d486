// Entry points that current upstream keeps only for source compatibility.
// Each returns the fixed status upstream returns, reads no argument and
// writes no output, so it is safe in any state from any thread:
//
//  - hsaKmtProcessVMRead / hsaKmtProcessVMWrite: NOT_IMPLEMENTED. Upstream
//    (rocm-systems libhsakmt memory.c) returns NOT_IMPLEMENTED and logs
//    "Deprecated"; no upstream kernel has a cross-process copy ioctl (the
//    DKMS CROSS_MEMORY_COPY 0x83 is unused by the thunk).
//  - hsaKmtMapGraphicHandle: NOT_IMPLEMENTED. Upstream returns it because
//    the KFD side only ever existed for Kaveri and was never merged;
//    hsaKmtRegisterGraphicsHandleToNodes replaces it.
//  - hsaKmtReportQueue: NOT_SUPPORTED. The header reserves it for "Trinity
//    + Southern Islands", which the KFD never supported; upstream's Linux
//    thunk has no definition at all and its other backends (WDDM, lite)
//    return NOT_SUPPORTED.
//  - hsaKmtModelEnabled: SUCCESS with false. Upstream's model mode (a
//    dlopen'ed GPU model behind the thunk, HSA_MODEL_TOPOLOGY) does not
//    exist in this library; the simulator (platform/sim) emulates the
//    kernel driver itself, so a context on it runs the same code as on
//    hardware. NULL is INVALID_PARAMETER.
#include "hsakmt/hsakmt.h"

extern "C" {

HSAKMT_STATUS HSAKMTAPI hsaKmtProcessVMRead(HSAuint32, HsaMemoryRange*, HSAuint64, HsaMemoryRange*,
                                            HSAuint64, HSAuint64*) {
  return HSAKMT_STATUS_NOT_IMPLEMENTED;
}

HSAKMT_STATUS HSAKMTAPI hsaKmtProcessVMWrite(HSAuint32, HsaMemoryRange*, HSAuint64, HsaMemoryRange*,
                                             HSAuint64, HSAuint64*) {
  return HSAKMT_STATUS_NOT_IMPLEMENTED;
}

HSAKMT_STATUS HSAKMTAPI hsaKmtMapGraphicHandle(HSAuint32, HSAuint64, HSAuint64, HSAuint64,
                                               HSAuint64, HSAuint64*) {
  return HSAKMT_STATUS_NOT_IMPLEMENTED;
}

HSAKMT_STATUS HSAKMTAPI hsaKmtReportQueue(HSA_QUEUEID, HsaQueueReport*) {
  return HSAKMT_STATUS_NOT_SUPPORTED;
}

HSAKMT_STATUS HSAKMTAPI hsaKmtModelEnabled(bool* enable) {
  if (enable == nullptr) return HSAKMT_STATUS_INVALID_PARAMETER;
  *enable = false;
  return HSAKMT_STATUS_SUCCESS;
}

}  // extern "C"
