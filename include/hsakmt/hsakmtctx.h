/*
 * hsakmt-embedded: the context-taking libhsakmt API (upstream's
 * hsakmt/hsakmtctx.h, ROCm PR #1705).
 *
 * What it is for: one process may hold several KFD contexts at once. The
 * primary context is the process's ordinary KFD client (the one hsakmt.h's
 * functions use); each secondary context is a separate kfd_process in the
 * kernel (AMDKFD_IOC_CREATE_PROCESS, KFD >= 1.19) with its own /dev/kfd
 * descriptor, its own GPU VMs (its own render-node descriptors), events,
 * queues and memory. Objects of one context are never valid in another:
 * an address, HsaEvent* or queue id from context A given to context B is
 * refused like any unknown one. Sharing between contexts goes through
 * dma-buf export/import, as between processes.
 *
 * Each hsaKmt<Name>Ctx function behaves exactly as hsaKmt<Name> in hsakmt.h
 * (same statuses, same outputs-only-on-success rule) on the context `ctx`.
 * A NULL `ctx`, or a pointer that is not a live context, is
 * INVALID_PARAMETER.
 *
 * Where the contexts come from:
 *  - hsaKmtOpenKFDCtx opens the primary (the default context behind
 *    hsakmt.h) and returns it; hsaKmtCloseKFDCtx is hsaKmtCloseKFD.
 *  - hsaKmtOpenSecondaryKFDCtx opens a secondary context in one of the
 *    library's fixed slots (hke_capacities.max_secondary_contexts; no heap)
 *    and hsaKmtCloseSecondaryKFDCtx closes it and frees the slot.
 *  - Firmware that owns its storage initialises an hke_context (with
 *    HKE_CONFIG_SECONDARY_PROCESS for a secondary one; hsakmt_embedded.h),
 *    opens it with hke_context_open and passes hke_context_kfd_ctx(context)
 *    here; it closes it with hke_context_close and hke_context_deinit.
 *
 * What a secondary context may not do (the kernel keeps these for the
 * primary): register user memory (userptr, SVM), set or get SVM
 * attributes, and the debugger calls (RuntimeEnable/Disable, Dbg*,
 * DebugTrapIoctl). The library refuses them with NOT_SUPPORTED before any
 * kernel call. A secondary context needs AcquireSystemPropertiesCtx before
 * node, memory and queue calls, as the primary does.
 *
 * PMC traces: hsaKmtPmcStartTrace/QueryTrace/StopTrace (hsakmt.h) have no
 * Ctx twin; they find the context from the trace id, which names the
 * default context or the secondary slot that registered it. A caller-owned
 * context therefore cannot register traces (NOT_SUPPORTED).
 *
 * Threading: every function may be called from any thread; contexts are
 * independent (a call on one never waits for a call on another).
 */
#ifndef _HSAKMTCTX_H_
#define _HSAKMTCTX_H_

#include "hsakmt/hsakmttypes.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Opaque: never defined for callers; only pointers are used. */
typedef struct _HsaKFDContext HsaKFDContext;

/* Argument block of the KFD debug-trap ioctl (linux/kfd_ioctl.h). */
struct kfd_ioctl_dbg_trap_args;

/* ---- Opening and closing ---- */

/* hsaKmtOpenKFD, then [out] *pCtx = the primary context (also when the
 * result is KERNEL_ALREADY_OPENED). */
HSAKMT_STATUS HSAKMTAPI hsaKmtOpenKFDCtx(HsaKFDContext** pCtx);
/* hsaKmtCloseKFD. */
HSAKMT_STATUS HSAKMTAPI hsaKmtCloseKFDCtx(void);

/* Opens a secondary context: a new /dev/kfd descriptor turned into a
 * kfd_process of its own. [out] *pCtx on success. NOT_SUPPORTED when the
 * kernel is older than KFD 1.19 or refuses CREATE_PROCESS (EINVAL/ENOTTY);
 * OUT_OF_RESOURCES when every slot is taken; KERNEL_IO_CHANNEL_NOT_OPENED
 * when /dev/kfd cannot be opened or another call of the open fails with an
 * errno (the diagnostics callback names it). */
HSAKMT_STATUS HSAKMTAPI hsaKmtOpenSecondaryKFDCtx(HsaKFDContext** pCtx);
/* Closes a context hsaKmtOpenSecondaryKFDCtx returned: its queues, events
 * and memory are released, its descriptors closed, its slot freed; other
 * contexts are untouched. INVALID_PARAMETER for anything else (the
 * primary, a caller-owned context, a closed one). */
HSAKMT_STATUS HSAKMTAPI hsaKmtCloseSecondaryKFDCtx(HsaKFDContext* ctx);

/* ---- Topology ---- */

HSAKMT_STATUS HSAKMTAPI hsaKmtAcquireSystemPropertiesCtx(HsaKFDContext* ctx,
                                                         HsaSystemProperties* SystemProperties);
HSAKMT_STATUS HSAKMTAPI hsaKmtReleaseSystemPropertiesCtx(HsaKFDContext* ctx);
HSAKMT_STATUS HSAKMTAPI hsaKmtGetNodePropertiesCtx(HsaKFDContext* ctx, HSAuint32 NodeId,
                                                   HsaNodeProperties* NodeProperties);
HSAKMT_STATUS HSAKMTAPI hsaKmtGetNodeMemoryPropertiesCtx(HsaKFDContext* ctx, HSAuint32 NodeId,
                                                         HSAuint32 NumBanks,
                                                         HsaMemoryProperties* MemoryProperties);
HSAKMT_STATUS HSAKMTAPI hsaKmtGetNodeCachePropertiesCtx(HsaKFDContext* ctx, HSAuint32 NodeId,
                                                        HSAuint32 ProcessorId, HSAuint32 NumCaches,
                                                        HsaCacheProperties* CacheProperties);
HSAKMT_STATUS HSAKMTAPI hsaKmtGetNodeIoLinkPropertiesCtx(HsaKFDContext* ctx, HSAuint32 NodeId,
                                                         HSAuint32 NumIoLinks,
                                                         HsaIoLinkProperties* IoLinkProperties);

/* ---- Events ---- */

HSAKMT_STATUS HSAKMTAPI hsaKmtCreateEventCtx(HsaKFDContext* ctx, HsaEventDescriptor* EventDesc,
                                             bool ManualReset, bool IsSignaled, HsaEvent** Event);
HSAKMT_STATUS HSAKMTAPI hsaKmtDestroyEventCtx(HsaKFDContext* ctx, HsaEvent* Event);
HSAKMT_STATUS HSAKMTAPI hsaKmtSetEventCtx(HsaKFDContext* ctx, HsaEvent* Event);
HSAKMT_STATUS HSAKMTAPI hsaKmtResetEventCtx(HsaKFDContext* ctx, HsaEvent* Event);
HSAKMT_STATUS HSAKMTAPI hsaKmtQueryEventStateCtx(HsaKFDContext* ctx, HsaEvent* Event);
HSAKMT_STATUS HSAKMTAPI hsaKmtWaitOnEventCtx(HsaKFDContext* ctx, HsaEvent* Event,
                                             HSAuint32 Milliseconds);
HSAKMT_STATUS HSAKMTAPI hsaKmtWaitOnEvent_ExtCtx(HsaKFDContext* ctx, HsaEvent* Event,
                                                 HSAuint32 Milliseconds, uint64_t* event_age);
HSAKMT_STATUS HSAKMTAPI hsaKmtWaitOnMultipleEventsCtx(HsaKFDContext* ctx, HsaEvent* Events[],
                                                      HSAuint32 NumEvents, bool WaitOnAll,
                                                      HSAuint32 Milliseconds);
HSAKMT_STATUS HSAKMTAPI hsaKmtWaitOnMultipleEvents_ExtCtx(HsaKFDContext* ctx, HsaEvent* Events[],
                                                          HSAuint32 NumEvents, bool WaitOnAll,
                                                          HSAuint32 Milliseconds,
                                                          uint64_t* event_age);
HSAKMT_STATUS HSAKMTAPI hsaKmtOpenSMICtx(HsaKFDContext* ctx, HSAuint32 NodeId, int* fd);

/* ---- Queues ---- */

HSAKMT_STATUS HSAKMTAPI hsaKmtCreateQueueCtx(HsaKFDContext* ctx, HSAuint32 NodeId,
                                             HSA_QUEUE_TYPE Type, HSAuint32 QueuePercentage,
                                             HSA_QUEUE_PRIORITY Priority, void* QueueAddress,
                                             HSAuint64 QueueSizeInBytes, HsaEvent* Event,
                                             HsaQueueResource* QueueResource);
HSAKMT_STATUS HSAKMTAPI hsaKmtCreateQueueExtCtx(HsaKFDContext* ctx, HSAuint32 NodeId,
                                                HSA_QUEUE_TYPE Type, HSAuint32 QueuePercentage,
                                                HSA_QUEUE_PRIORITY Priority,
                                                HSAuint32 SdmaEngineId, void* QueueAddress,
                                                HSAuint64 QueueSizeInBytes, HsaEvent* Event,
                                                HsaQueueResource* QueueResource);
HSAKMT_STATUS HSAKMTAPI hsaKmtUpdateQueueCtx(HsaKFDContext* ctx, HSA_QUEUEID QueueId,
                                             HSAuint32 QueuePercentage,
                                             HSA_QUEUE_PRIORITY Priority, void* QueueAddress,
                                             HSAuint64 QueueSize, HsaEvent* Event);
HSAKMT_STATUS HSAKMTAPI hsaKmtDestroyQueueCtx(HsaKFDContext* ctx, HSA_QUEUEID QueueId);
HSAKMT_STATUS HSAKMTAPI hsaKmtSetQueueCUMaskCtx(HsaKFDContext* ctx, HSA_QUEUEID QueueId,
                                                HSAuint32 CUMaskCount, HSAuint32* QueueCUMask);
HSAKMT_STATUS HSAKMTAPI hsaKmtGetQueueInfoCtx(HsaKFDContext* ctx, HSA_QUEUEID QueueId,
                                              HsaQueueInfo* QueueInfo);
HSAKMT_STATUS HSAKMTAPI hsaKmtAllocQueueGWSCtx(HsaKFDContext* ctx, HSA_QUEUEID QueueId,
                                               HSAuint32 nGWS, HSAuint32* firstGWS);

/* ---- Memory ---- */

HSAKMT_STATUS HSAKMTAPI hsaKmtSetMemoryPolicyCtx(HsaKFDContext* ctx, HSAuint32 Node,
                                                 HSAuint32 DefaultPolicy,
                                                 HSAuint32 AlternatePolicy,
                                                 void* MemoryAddressAlternate,
                                                 HSAuint64 MemorySizeInBytes);
HSAKMT_STATUS HSAKMTAPI hsaKmtAllocMemoryCtx(HsaKFDContext* ctx, HSAuint32 PreferredNode,
                                             HSAuint64 SizeInBytes, HsaMemFlags MemFlags,
                                             void** MemoryAddress);
HSAKMT_STATUS HSAKMTAPI hsaKmtAllocMemoryAlignCtx(HsaKFDContext* ctx, HSAuint32 PreferredNode,
                                                  HSAuint64 SizeInBytes, HSAuint64 Alignment,
                                                  HsaMemFlags MemFlags, void** MemoryAddress);
HSAKMT_STATUS HSAKMTAPI hsaKmtFreeMemoryCtx(HsaKFDContext* ctx, void* MemoryAddress,
                                            HSAuint64 SizeInBytes);
HSAKMT_STATUS HSAKMTAPI hsaKmtAvailableMemoryCtx(HsaKFDContext* ctx, HSAuint32 Node,
                                                 HSAuint64* AvailableBytes);
HSAKMT_STATUS HSAKMTAPI hsaKmtRegisterMemoryCtx(HsaKFDContext* ctx, void* MemoryAddress,
                                                HSAuint64 MemorySizeInBytes);
HSAKMT_STATUS HSAKMTAPI hsaKmtRegisterMemoryToNodesCtx(HsaKFDContext* ctx, void* MemoryAddress,
                                                       HSAuint64 MemorySizeInBytes,
                                                       HSAuint64 NumberOfNodes,
                                                       HSAuint32* NodeArray);
HSAKMT_STATUS HSAKMTAPI hsaKmtRegisterMemoryWithFlagsCtx(HsaKFDContext* ctx, void* MemoryAddress,
                                                         HSAuint64 MemorySizeInBytes,
                                                         HsaMemFlags MemFlags);
HSAKMT_STATUS HSAKMTAPI hsaKmtRegisterGraphicsHandleToNodesCtx(
    HsaKFDContext* ctx, HSAuint64 GraphicsResourceHandle,
    HsaGraphicsResourceInfo* GraphicsResourceInfo, HSAuint64 NumberOfNodes, HSAuint32* NodeArray);
HSAKMT_STATUS HSAKMTAPI hsaKmtRegisterGraphicsHandleToNodesExtCtx(
    HsaKFDContext* ctx, HSAuint64 GraphicsResourceHandle,
    HsaGraphicsResourceInfo* GraphicsResourceInfo, HSAuint64 NumberOfNodes, HSAuint32* NodeArray,
    HSA_REGISTER_MEM_FLAGS RegisterFlags);
HSAKMT_STATUS HSAKMTAPI hsaKmtExportDMABufHandleCtx(HsaKFDContext* ctx, void* MemoryAddress,
                                                    HSAuint64 MemorySizeInBytes, int* DMABufFd,
                                                    HSAuint64* Offset);
HSAKMT_STATUS HSAKMTAPI hsaKmtShareMemoryCtx(HsaKFDContext* ctx, void* MemoryAddress,
                                             HSAuint64 SizeInBytes,
                                             HsaSharedMemoryHandle* SharedMemoryHandle);
HSAKMT_STATUS HSAKMTAPI hsaKmtRegisterSharedHandleCtx(
    HsaKFDContext* ctx, const HsaSharedMemoryHandle* SharedMemoryHandle, void** MemoryAddress,
    HSAuint64* SizeInBytes);
HSAKMT_STATUS HSAKMTAPI hsaKmtRegisterSharedHandleToNodesCtx(
    HsaKFDContext* ctx, const HsaSharedMemoryHandle* SharedMemoryHandle, void** MemoryAddress,
    HSAuint64* SizeInBytes, HSAuint64 NumberOfNodes, HSAuint32* NodeArray);
HSAKMT_STATUS HSAKMTAPI hsaKmtDeregisterMemoryCtx(HsaKFDContext* ctx, void* MemoryAddress);
HSAKMT_STATUS HSAKMTAPI hsaKmtMapMemoryToGPUCtx(HsaKFDContext* ctx, void* MemoryAddress,
                                                HSAuint64 MemorySizeInBytes,
                                                HSAuint64* AlternateVAGPU);
HSAKMT_STATUS HSAKMTAPI hsaKmtMapMemoryToGPUNodesCtx(HsaKFDContext* ctx, void* MemoryAddress,
                                                     HSAuint64 MemorySizeInBytes,
                                                     HSAuint64* AlternateVAGPU,
                                                     HsaMemMapFlags MemMapFlags,
                                                     HSAuint64 NumberOfNodes,
                                                     HSAuint32* NodeArray);
HSAKMT_STATUS HSAKMTAPI hsaKmtUnmapMemoryToGPUCtx(HsaKFDContext* ctx, void* MemoryAddress);
HSAKMT_STATUS HSAKMTAPI hsaKmtUnmapGraphicHandleCtx(HsaKFDContext* ctx, HSAuint32 NodeId,
                                                    HSAuint64 FlatMemoryAddress,
                                                    HSAuint64 SizeInBytes);
HSAKMT_STATUS HSAKMTAPI hsaKmtQueryPointerInfoCtx(HsaKFDContext* ctx, const void* Pointer,
                                                  HsaPointerInfo* PointerInfo);
HSAKMT_STATUS HSAKMTAPI hsaKmtSetMemoryUserDataCtx(HsaKFDContext* ctx, const void* Pointer,
                                                   void* UserData);
HSAKMT_STATUS HSAKMTAPI hsaKmtSVMSetAttrCtx(HsaKFDContext* ctx, void* start_addr, HSAuint64 size,
                                            unsigned int nattr, HSA_SVM_ATTRIBUTE* attrs);
HSAKMT_STATUS HSAKMTAPI hsaKmtSVMGetAttrCtx(HsaKFDContext* ctx, void* start_addr, HSAuint64 size,
                                            unsigned int nattr, HSA_SVM_ATTRIBUTE* attrs);
HSAKMT_STATUS HSAKMTAPI hsaKmtSetXNACKModeCtx(HsaKFDContext* ctx, HSAint32 enable);
HSAKMT_STATUS HSAKMTAPI hsaKmtGetXNACKModeCtx(HsaKFDContext* ctx, HSAint32* enable);
HSAKMT_STATUS HSAKMTAPI hsaKmtReplaceAsanHeaderPageCtx(HsaKFDContext* ctx, void* addr);
HSAKMT_STATUS HSAKMTAPI hsaKmtReturnAsanHeaderPageCtx(HsaKFDContext* ctx, void* addr);

/* ---- Devices, clocks, trap handler ---- */

HSAKMT_STATUS HSAKMTAPI hsaKmtGetAMDGPUDeviceHandleCtx(HsaKFDContext* ctx, HSAuint32 NodeId,
                                                       HsaAMDGPUDeviceHandle* DeviceHandle);
HSAKMT_STATUS HSAKMTAPI hsaKmtSetTrapHandlerCtx(HsaKFDContext* ctx, HSAuint32 NodeId,
                                                void* TrapHandlerBaseAddress,
                                                HSAuint64 TrapHandlerSizeInBytes,
                                                void* TrapBufferBaseAddress,
                                                HSAuint64 TrapBufferSizeInBytes);
HSAKMT_STATUS HSAKMTAPI hsaKmtGetTileConfigCtx(HsaKFDContext* ctx, HSAuint32 NodeId,
                                               HsaGpuTileConfig* config);
HSAKMT_STATUS HSAKMTAPI hsaKmtGetClockCountersCtx(HsaKFDContext* ctx, HSAuint32 NodeId,
                                                  HsaClockCounters* Counters);

/* ---- Debugger (primary context only) ---- */

HSAKMT_STATUS HSAKMTAPI hsaKmtRuntimeEnableCtx(HsaKFDContext* ctx, void* rDebug, bool setupTtmp);
HSAKMT_STATUS HSAKMTAPI hsaKmtRuntimeDisableCtx(HsaKFDContext* ctx);
HSAKMT_STATUS HSAKMTAPI hsaKmtGetRuntimeCapabilitiesCtx(HsaKFDContext* ctx, HSAuint32* caps_mask);
HSAKMT_STATUS HSAKMTAPI hsaKmtDbgEnableCtx(HsaKFDContext* ctx, void** runtime_info,
                                           HSAuint32* data_size);
HSAKMT_STATUS HSAKMTAPI hsaKmtDbgDisableCtx(HsaKFDContext* ctx);
HSAKMT_STATUS HSAKMTAPI hsaKmtDbgGetDeviceDataCtx(HsaKFDContext* ctx, void** data,
                                                  HSAuint32* n_entries, HSAuint32* entry_size);
HSAKMT_STATUS HSAKMTAPI hsaKmtDbgGetQueueDataCtx(HsaKFDContext* ctx, void** data,
                                                 HSAuint32* n_entries, HSAuint32* entry_size,
                                                 bool suspend_queues);
HSAKMT_STATUS HSAKMTAPI hsaKmtCheckRuntimeDebugSupportCtx(HsaKFDContext* ctx);
HSAKMT_STATUS HSAKMTAPI hsaKmtDebugTrapIoctlCtx(HsaKFDContext* ctx,
                                                struct kfd_ioctl_dbg_trap_args* args,
                                                HSA_QUEUEID* Queues, HSAuint64* DebugReturn);

/* ---- Performance counters ---- */

HSAKMT_STATUS HSAKMTAPI hsaKmtPmcGetCounterPropertiesCtx(HsaKFDContext* ctx, HSAuint32 NodeId,
                                                         HsaCounterProperties** CounterProperties);
HSAKMT_STATUS HSAKMTAPI hsaKmtPmcRegisterTraceCtx(HsaKFDContext* ctx, HSAuint32 NodeId,
                                                  HSAuint32 NumberOfCounters, HsaCounter* Counters,
                                                  HsaPmcTraceRoot* TraceRoot);
HSAKMT_STATUS HSAKMTAPI hsaKmtPmcUnregisterTraceCtx(HsaKFDContext* ctx, HSAuint32 NodeId,
                                                    HSATraceId TraceId);
HSAKMT_STATUS HSAKMTAPI hsaKmtPmcAcquireTraceAccessCtx(HsaKFDContext* ctx, HSAuint32 NodeId,
                                                       HSATraceId TraceId);
HSAKMT_STATUS HSAKMTAPI hsaKmtPmcReleaseTraceAccessCtx(HsaKFDContext* ctx, HSAuint32 NodeId,
                                                       HSATraceId TraceId);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* _HSAKMTCTX_H_ */
