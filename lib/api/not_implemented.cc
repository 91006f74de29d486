// Entry points of hsakmt.h that are declared but not implemented yet.
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

HSAKMT_STATUS HSAKMTAPI hsaKmtModelEnabled(bool*) { return kNotImplemented; }
HSAKMT_STATUS HSAKMTAPI hsaKmtGetAMDGPUDeviceHandle(HSAuint32, HsaAMDGPUDeviceHandle*) {
  return kNotImplemented;
}
HSAKMT_STATUS HSAKMTAPI hsaKmtCreateEvent(HsaEventDescriptor*, bool, bool, HsaEvent**) {
  return kNotImplemented;
}
HSAKMT_STATUS HSAKMTAPI hsaKmtDestroyEvent(HsaEvent*) { return kNotImplemented; }
HSAKMT_STATUS HSAKMTAPI hsaKmtSetEvent(HsaEvent*) { return kNotImplemented; }
HSAKMT_STATUS HSAKMTAPI hsaKmtResetEvent(HsaEvent*) { return kNotImplemented; }
HSAKMT_STATUS HSAKMTAPI hsaKmtQueryEventState(HsaEvent*) { return kNotImplemented; }
HSAKMT_STATUS HSAKMTAPI hsaKmtWaitOnEvent(HsaEvent*, HSAuint32) { return kNotImplemented; }
HSAKMT_STATUS HSAKMTAPI hsaKmtWaitOnEvent_Ext(HsaEvent*, HSAuint32, uint64_t*) {
  return kNotImplemented;
}
HSAKMT_STATUS HSAKMTAPI hsaKmtWaitOnMultipleEvents(HsaEvent*[], HSAuint32, bool, HSAuint32) {
  return kNotImplemented;
}
HSAKMT_STATUS HSAKMTAPI hsaKmtWaitOnMultipleEvents_Ext(HsaEvent*[], HSAuint32, bool, HSAuint32,
                                                       uint64_t*) {
  return kNotImplemented;
}
HSAKMT_STATUS HSAKMTAPI hsaKmtOpenSMI(HSAuint32, int*) { return kNotImplemented; }
HSAKMT_STATUS HSAKMTAPI hsaKmtReportQueue(HSA_QUEUEID, HsaQueueReport*) { return kNotImplemented; }
HSAKMT_STATUS HSAKMTAPI hsaKmtCreateQueue(HSAuint32, HSA_QUEUE_TYPE, HSAuint32, HSA_QUEUE_PRIORITY,
                                          void*, HSAuint64, HsaEvent*, HsaQueueResource*) {
  return kNotImplemented;
}
HSAKMT_STATUS HSAKMTAPI hsaKmtCreateQueueExt(HSAuint32, HSA_QUEUE_TYPE, HSAuint32,
                                             HSA_QUEUE_PRIORITY, HSAuint32, void*, HSAuint64,
                                             HsaEvent*, HsaQueueResource*) {
  return kNotImplemented;
}
HSAKMT_STATUS HSAKMTAPI hsaKmtUpdateQueue(HSA_QUEUEID, HSAuint32, HSA_QUEUE_PRIORITY, void*,
                                          HSAuint64, HsaEvent*) {
  return kNotImplemented;
}
HSAKMT_STATUS HSAKMTAPI hsaKmtDestroyQueue(HSA_QUEUEID) { return kNotImplemented; }
HSAKMT_STATUS HSAKMTAPI hsaKmtSetQueueCUMask(HSA_QUEUEID, HSAuint32, HSAuint32*) {
  return kNotImplemented;
}
HSAKMT_STATUS HSAKMTAPI hsaKmtGetQueueInfo(HSA_QUEUEID, HsaQueueInfo*) { return kNotImplemented; }
HSAKMT_STATUS HSAKMTAPI hsaKmtAllocQueueGWS(HSA_QUEUEID, HSAuint32, HSAuint32*) {
  return kNotImplemented;
}
HSAKMT_STATUS HSAKMTAPI hsaKmtSetMemoryPolicy(HSAuint32, HSAuint32, HSAuint32, void*, HSAuint64) {
  return kNotImplemented;
}
HSAKMT_STATUS HSAKMTAPI hsaKmtAllocMemory(HSAuint32, HSAuint64, HsaMemFlags, void**) {
  return kNotImplemented;
}
HSAKMT_STATUS HSAKMTAPI hsaKmtAllocMemoryAlign(HSAuint32, HSAuint64, HSAuint64, HsaMemFlags,
                                               void**) {
  return kNotImplemented;
}
HSAKMT_STATUS HSAKMTAPI hsaKmtFreeMemory(void*, HSAuint64) { return kNotImplemented; }
HSAKMT_STATUS HSAKMTAPI hsaKmtAvailableMemory(HSAuint32, HSAuint64*) { return kNotImplemented; }
HSAKMT_STATUS HSAKMTAPI hsaKmtRegisterMemory(void*, HSAuint64) { return kNotImplemented; }
HSAKMT_STATUS HSAKMTAPI hsaKmtRegisterMemoryToNodes(void*, HSAuint64, HSAuint64, HSAuint32*) {
  return kNotImplemented;
}
HSAKMT_STATUS HSAKMTAPI hsaKmtRegisterMemoryWithFlags(void*, HSAuint64, HsaMemFlags) {
  return kNotImplemented;
}
HSAKMT_STATUS HSAKMTAPI hsaKmtRegisterGraphicsHandleToNodes(HSAuint64, HsaGraphicsResourceInfo*,
                                                            HSAuint64, HSAuint32*) {
  return kNotImplemented;
}
HSAKMT_STATUS HSAKMTAPI hsaKmtRegisterGraphicsHandleToNodesExt(HSAuint64, HsaGraphicsResourceInfo*,
                                                               HSAuint64, HSAuint32*,
                                                               HSA_REGISTER_MEM_FLAGS) {
  return kNotImplemented;
}
HSAKMT_STATUS HSAKMTAPI hsaKmtExportDMABufHandle(void*, HSAuint64, int*, HSAuint64*) {
  return kNotImplemented;
}
HSAKMT_STATUS HSAKMTAPI hsaKmtShareMemory(void*, HSAuint64, HsaSharedMemoryHandle*) {
  return kNotImplemented;
}
HSAKMT_STATUS HSAKMTAPI hsaKmtRegisterSharedHandle(const HsaSharedMemoryHandle*, void**,
                                                   HSAuint64*) {
  return kNotImplemented;
}
HSAKMT_STATUS HSAKMTAPI hsaKmtRegisterSharedHandleToNodes(const HsaSharedMemoryHandle*, void**,
                                                          HSAuint64*, HSAuint64, HSAuint32*) {
  return kNotImplemented;
}
HSAKMT_STATUS HSAKMTAPI hsaKmtProcessVMRead(HSAuint32, HsaMemoryRange*, HSAuint64, HsaMemoryRange*,
                                            HSAuint64, HSAuint64*) {
  return kNotImplemented;
}
HSAKMT_STATUS HSAKMTAPI hsaKmtProcessVMWrite(HSAuint32, HsaMemoryRange*, HSAuint64, HsaMemoryRange*,
                                             HSAuint64, HSAuint64*) {
  return kNotImplemented;
}
HSAKMT_STATUS HSAKMTAPI hsaKmtDeregisterMemory(void*) { return kNotImplemented; }
HSAKMT_STATUS HSAKMTAPI hsaKmtMapMemoryToGPU(void*, HSAuint64, HSAuint64*) {
  return kNotImplemented;
}
HSAKMT_STATUS HSAKMTAPI hsaKmtMapMemoryToGPUNodes(void*, HSAuint64, HSAuint64*, HsaMemMapFlags,
                                                  HSAuint64, HSAuint32*) {
  return kNotImplemented;
}
HSAKMT_STATUS HSAKMTAPI hsaKmtUnmapMemoryToGPU(void*) { return kNotImplemented; }
HSAKMT_STATUS HSAKMTAPI hsaKmtMapGraphicHandle(HSAuint32, HSAuint64, HSAuint64, HSAuint64,
                                               HSAuint64, HSAuint64*) {
  return kNotImplemented;
}
HSAKMT_STATUS HSAKMTAPI hsaKmtUnmapGraphicHandle(HSAuint32, HSAuint64, HSAuint64) {
  return kNotImplemented;
}
HSAKMT_STATUS HSAKMTAPI hsaKmtQueryPointerInfo(const void*, HsaPointerInfo*) {
  return kNotImplemented;
}
HSAKMT_STATUS HSAKMTAPI hsaKmtSetMemoryUserData(const void*, void*) { return kNotImplemented; }
HSAKMT_STATUS HSAKMTAPI hsaKmtSVMSetAttr(void*, HSAuint64, unsigned int, HSA_SVM_ATTRIBUTE*) {
  return kNotImplemented;
}
HSAKMT_STATUS HSAKMTAPI hsaKmtSVMGetAttr(void*, HSAuint64, unsigned int, HSA_SVM_ATTRIBUTE*) {
  return kNotImplemented;
}
HSAKMT_STATUS HSAKMTAPI hsaKmtSetXNACKMode(HSAint32) { return kNotImplemented; }
HSAKMT_STATUS HSAKMTAPI hsaKmtGetXNACKMode(HSAint32*) { return kNotImplemented; }
HSAKMT_STATUS HSAKMTAPI hsaKmtReplaceAsanHeaderPage(void*) { return kNotImplemented; }
HSAKMT_STATUS HSAKMTAPI hsaKmtReturnAsanHeaderPage(void*) { return kNotImplemented; }
HSAKMT_STATUS HSAKMTAPI hsaKmtDbgRegister(HSAuint32) { return kNotImplemented; }
HSAKMT_STATUS HSAKMTAPI hsaKmtDbgUnregister(HSAuint32) { return kNotImplemented; }
HSAKMT_STATUS HSAKMTAPI hsaKmtDbgWavefrontControl(HSAuint32, HSA_DBG_WAVEOP, HSA_DBG_WAVEMODE,
                                                  HSAuint32, HsaDbgWaveMessage*) {
  return kNotImplemented;
}
HSAKMT_STATUS HSAKMTAPI hsaKmtDbgAddressWatch(HSAuint32, HSAuint32, HSA_DBG_WATCH_MODE[], void*[],
                                              HSAuint64[], HsaEvent*[]) {
  return kNotImplemented;
}
HSAKMT_STATUS HSAKMTAPI hsaKmtRuntimeEnable(void*, bool) { return kNotImplemented; }
HSAKMT_STATUS HSAKMTAPI hsaKmtRuntimeDisable(void) { return kNotImplemented; }
HSAKMT_STATUS HSAKMTAPI hsaKmtGetRuntimeCapabilities(HSAuint32*) { return kNotImplemented; }
HSAKMT_STATUS HSAKMTAPI hsaKmtDbgEnable(void**, HSAuint32*) { return kNotImplemented; }
HSAKMT_STATUS HSAKMTAPI hsaKmtDbgDisable(void) { return kNotImplemented; }
HSAKMT_STATUS HSAKMTAPI hsaKmtDbgGetDeviceData(void**, HSAuint32*, HSAuint32*) {
  return kNotImplemented;
}
HSAKMT_STATUS HSAKMTAPI hsaKmtDbgGetQueueData(void**, HSAuint32*, HSAuint32*, bool) {
  return kNotImplemented;
}
HSAKMT_STATUS HSAKMTAPI hsaKmtCheckRuntimeDebugSupport(void) { return kNotImplemented; }
HSAKMT_STATUS HSAKMTAPI hsaKmtDebugTrapIoctl(struct kfd_ioctl_dbg_trap_args*, HSA_QUEUEID*,
                                             HSAuint64*) {
  return kNotImplemented;
}
HSAKMT_STATUS HSAKMTAPI hsaKmtGetClockCounters(HSAuint32, HsaClockCounters*) {
  return kNotImplemented;
}
HSAKMT_STATUS HSAKMTAPI hsaKmtSetTrapHandler(HSAuint32, void*, HSAuint64, void*, HSAuint64) {
  return kNotImplemented;
}
HSAKMT_STATUS HSAKMTAPI hsaKmtGetTileConfig(HSAuint32, HsaGpuTileConfig*) {
  return kNotImplemented;
}
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
HSAKMT_STATUS HSAKMTAPI hsaKmtSPMAcquire(HSAuint32) { return kNotImplemented; }
HSAKMT_STATUS HSAKMTAPI hsaKmtSPMRelease(HSAuint32) { return kNotImplemented; }
HSAKMT_STATUS HSAKMTAPI hsaKmtSPMSetDestBuffer(HSAuint32, HSAuint32, HSAuint32*, HSAuint32*, void*,
                                               bool*) {
  return kNotImplemented;
}
HSAKMT_STATUS HSAKMTAPI hsaKmtPcSamplingSupport(void) { return kNotImplemented; }
HSAKMT_STATUS HSAKMTAPI hsaKmtPcSamplingQueryCapabilities(HSAuint32, void*, HSAuint32, HSAuint32*) {
  return kNotImplemented;
}
HSAKMT_STATUS HSAKMTAPI hsaKmtPcSamplingCreate(HSAuint32, HsaPcSamplingInfo*,
                                               HsaPcSamplingTraceId*) {
  return kNotImplemented;
}
HSAKMT_STATUS HSAKMTAPI hsaKmtPcSamplingDestroy(HSAuint32, HsaPcSamplingTraceId) {
  return kNotImplemented;
}
HSAKMT_STATUS HSAKMTAPI hsaKmtPcSamplingStart(HSAuint32, HsaPcSamplingTraceId) {
  return kNotImplemented;
}
HSAKMT_STATUS HSAKMTAPI hsaKmtPcSamplingStop(HSAuint32, HsaPcSamplingTraceId) {
  return kNotImplemented;
}

}  // extern "C"
