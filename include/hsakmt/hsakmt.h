/*
 * hsakmt-embedded: the public libhsakmt API.
 *
 * Declares every hsaKmt* entry point of current upstream libhsakmt (ROCm
 * rocm-systems, projects/rocr-runtime/libhsakmt) with the upstream name,
 * return type and parameter types, so that code written against upstream
 * compiles and links unchanged. Types are in hsakmttypes.h.
 *
 * Conventions shared by every function here:
 *  - The result is an HSAKMT_STATUS. Outputs are written only when the call
 *    returns HSAKMT_STATUS_SUCCESS; on failure the caller's memory is left
 *    as it was.
 *  - A call that needs the driver fails with
 *    HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED while the KFD is not open,
 *    and in a child process forked after the open (until the child opens
 *    again); hsaKmtCloseKFD and hsaKmtReleaseSystemProperties succeed there,
 *    as upstream's do, without touching the parent's kernel objects.
 *  - Node ids are indices into the topology snapshot (0 .. NumNodes-1, CPU
 *    and GPU nodes mixed), not KFD gpu_ids.
 *  - Memory the library allocates for itself (the events page, a queue's
 *    page, EOP buffer and CWSR area, doorbells, the MMIO page, scratch
 *    backing) is not the caller's: every call that takes an address
 *    (FreeMemory, Map/UnmapMemoryToGPU(Nodes), SetMemoryUserData,
 *    ShareMemory, ExportDMABufHandle, RegisterMemory*, DeregisterMemory,
 *    SVMSetAttr) refuses it with HSAKMT_STATUS_INVALID_HANDLE and a
 *    diagnostic naming it, before any kernel call; QueryPointerInfo still
 *    reports it.
 *  - The API runs on the library's default context (see hsakmt_embedded.h)
 *    and may be called from any thread.
 *  - Entry points that this build does not implement yet return
 *    HSAKMT_STATUS_NOT_IMPLEMENTED and touch nothing.
 *
 * Annotations: [in] the function reads it, [out] the function writes it on
 * success, [in,out] both.
 */
#ifndef _HSAKMT_H_
#define _HSAKMT_H_

#include "hsakmttypes.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Argument block of the KFD debug-trap ioctl (defined by the kernel's
 * linux/kfd_ioctl.h); only used through a pointer here. */
struct kfd_ioctl_dbg_trap_args;

/* ========================================================================
 * Opening the driver
 * ======================================================================== */

/* Opens /dev/kfd for this process. Reference counted: the first call opens
 * and returns SUCCESS, later calls return KERNEL_ALREADY_OPENED and only
 * count. DRIVER_MISMATCH if the kernel interface major version is unknown. */
HSAKMT_STATUS HSAKMTAPI hsaKmtOpenKFD(void);

/* Drops one reference taken by hsaKmtOpenKFD. In a forked child it drops
 * one the child inherited, with no kernel call; after the last one the
 * child may open again. */
HSAKMT_STATUS HSAKMTAPI hsaKmtCloseKFD(void);

/* [out] VersionInfo: the KFD interface version read at open time. */
HSAKMT_STATUS HSAKMTAPI hsaKmtGetVersion(HsaVersionInfo* VersionInfo);

/* [out] enable: true when the library drives an in-process GPU model
 * instead of the kernel driver. This library has no model mode (the
 * simulator emulates the driver itself), so it is always false. */
HSAKMT_STATUS HSAKMTAPI hsaKmtModelEnabled(bool* enable);

/* ========================================================================
 * Topology
 * ======================================================================== */

/* Takes (on first use) the topology snapshot and returns its summary.
 * [out] SystemProperties. */
HSAKMT_STATUS HSAKMTAPI hsaKmtAcquireSystemProperties(HsaSystemProperties* SystemProperties);

/* Drops the topology snapshot and the per-process GPU state built on it
 * (in a forked child: the inherited snapshot, with no kernel call). */
HSAKMT_STATUS HSAKMTAPI hsaKmtReleaseSystemProperties(void);

/* [in] NodeId, [out] NodeProperties. */
HSAKMT_STATUS HSAKMTAPI hsaKmtGetNodeProperties(HSAuint32 NodeId,
                                                HsaNodeProperties* NodeProperties);

/* [in] NodeId; [in] NumBanks: entries in MemoryProperties (at most the
 * node's NumMemoryBanks); [out] MemoryProperties. */
HSAKMT_STATUS HSAKMTAPI hsaKmtGetNodeMemoryProperties(HSAuint32 NodeId, HSAuint32 NumBanks,
                                                      HsaMemoryProperties* MemoryProperties);

/* [in] NodeId; [in] ProcessorId (kept for compatibility); [in] NumCaches:
 * entries in CacheProperties (at most the node's NumCaches);
 * [out] CacheProperties. */
HSAKMT_STATUS HSAKMTAPI hsaKmtGetNodeCacheProperties(HSAuint32 NodeId, HSAuint32 ProcessorId,
                                                     HSAuint32 NumCaches,
                                                     HsaCacheProperties* CacheProperties);

/* [in] NodeId; [in] NumIoLinks: entries in IoLinkProperties (at most the
 * node's NumIOLinks); [out] IoLinkProperties. */
HSAKMT_STATUS HSAKMTAPI hsaKmtGetNodeIoLinkProperties(HSAuint32 NodeId, HSAuint32 NumIoLinks,
                                                      HsaIoLinkProperties* IoLinkProperties);

/* [in] NodeId (a GPU node); [out] DeviceHandle: the libdrm device handle of
 * its render node, owned by the library (valid while the render node stays
 * open; never deinitialize it). NOT_SUPPORTED when the platform has no
 * libdrm devices (a build without libdrm, the simulator). */
HSAKMT_STATUS HSAKMTAPI hsaKmtGetAMDGPUDeviceHandle(HSAuint32 NodeId,
                                                    HsaAMDGPUDeviceHandle* DeviceHandle);

/* ========================================================================
 * Events
 * ======================================================================== */

/* Creates an event. [in] EventDesc; [in] ManualReset: stays signalled until
 * reset; [in] IsSignaled: initial state; [out] Event: owned by the library
 * until hsaKmtDestroyEvent. */
HSAKMT_STATUS HSAKMTAPI hsaKmtCreateEvent(HsaEventDescriptor* EventDesc, bool ManualReset,
                                          bool IsSignaled, HsaEvent** Event);

/* [in] Event: destroyed; the pointer is invalid afterwards. */
HSAKMT_STATUS HSAKMTAPI hsaKmtDestroyEvent(HsaEvent* Event);

/* Signals / unsignals an event (signal and debug events only). */
HSAKMT_STATUS HSAKMTAPI hsaKmtSetEvent(HsaEvent* Event);
HSAKMT_STATUS HSAKMTAPI hsaKmtResetEvent(HsaEvent* Event);

/* Queries an event's state. */
HSAKMT_STATUS HSAKMTAPI hsaKmtQueryEventState(HsaEvent* Event);

/* Waits until Event is signalled or Milliseconds pass (WAIT_TIMEOUT);
 * HSA_EVENTTIMEOUT_INFINITE waits forever. */
HSAKMT_STATUS HSAKMTAPI hsaKmtWaitOnEvent(HsaEvent* Event, HSAuint32 Milliseconds);

/* As hsaKmtWaitOnEvent; [in,out] event_age: the last age seen, so that a
 * signal that came after it is not missed. */
HSAKMT_STATUS HSAKMTAPI hsaKmtWaitOnEvent_Ext(HsaEvent* Event, HSAuint32 Milliseconds,
                                              uint64_t* event_age);

/* Waits for any (WaitOnAll false) or all (true) of NumEvents events. */
HSAKMT_STATUS HSAKMTAPI hsaKmtWaitOnMultipleEvents(HsaEvent* Events[], HSAuint32 NumEvents,
                                                   bool WaitOnAll, HSAuint32 Milliseconds);

/* As hsaKmtWaitOnMultipleEvents with one [in,out] age per event. */
HSAKMT_STATUS HSAKMTAPI hsaKmtWaitOnMultipleEvents_Ext(HsaEvent* Events[], HSAuint32 NumEvents,
                                                       bool WaitOnAll, HSAuint32 Milliseconds,
                                                       uint64_t* event_age);

/* Opens an SMI event file for a GPU node. [out] fd: write a 64-bit mask of
 * HSA_SMI_EVENT_MASK_FROM_INDEX bits to enable events, then poll and read
 * text records; the kernel drops events when its FIFO is full. */
HSAKMT_STATUS HSAKMTAPI hsaKmtOpenSMI(HSAuint32 NodeId, int* fd);

/* ========================================================================
 * Queues
 * ======================================================================== */

/* Legacy Southern Islands query; NOT_SUPPORTED (the KFD never served those
 * GPUs). */
HSAKMT_STATUS HSAKMTAPI hsaKmtReportQueue(HSA_QUEUEID QueueId, HsaQueueReport* QueueReport);

/* Creates a user-mode queue on a GPU node. [in] QueueAddress and
 * QueueSizeInBytes: the ring; [in] Event: optional; [out] QueueResource. */
HSAKMT_STATUS HSAKMTAPI hsaKmtCreateQueue(HSAuint32 NodeId, HSA_QUEUE_TYPE Type,
                                          HSAuint32 QueuePercentage,
                                          HSA_QUEUE_PRIORITY Priority, void* QueueAddress,
                                          HSAuint64 QueueSizeInBytes, HsaEvent* Event,
                                          HsaQueueResource* QueueResource);

/* As hsaKmtCreateQueue; [in] SdmaEngineId: the engine of an
 * HSA_QUEUE_SDMA_BY_ENG_ID queue. */
HSAKMT_STATUS HSAKMTAPI hsaKmtCreateQueueExt(HSAuint32 NodeId, HSA_QUEUE_TYPE Type,
                                             HSAuint32 QueuePercentage,
                                             HSA_QUEUE_PRIORITY Priority, HSAuint32 SdmaEngineId,
                                             void* QueueAddress, HSAuint64 QueueSizeInBytes,
                                             HsaEvent* Event, HsaQueueResource* QueueResource);

/* Changes the ring, percentage or priority of a queue. */
HSAKMT_STATUS HSAKMTAPI hsaKmtUpdateQueue(HSA_QUEUEID QueueId, HSAuint32 QueuePercentage,
                                          HSA_QUEUE_PRIORITY Priority, void* QueueAddress,
                                          HSAuint64 QueueSize, HsaEvent* Event);

HSAKMT_STATUS HSAKMTAPI hsaKmtDestroyQueue(HSA_QUEUEID QueueId);

/* [in] CUMaskCount: bits in QueueCUMask, a nonzero multiple of 32. */
HSAKMT_STATUS HSAKMTAPI hsaKmtSetQueueCUMask(HSA_QUEUEID QueueId, HSAuint32 CUMaskCount,
                                             HSAuint32* QueueCUMask);

/* [out] QueueInfo: the queue's save-area state. */
HSAKMT_STATUS HSAKMTAPI hsaKmtGetQueueInfo(HSA_QUEUEID QueueId, HsaQueueInfo* QueueInfo);

/* Reserves nGWS global wave sync entries for a queue. [out] firstGWS. */
HSAKMT_STATUS HSAKMTAPI hsaKmtAllocQueueGWS(HSA_QUEUEID QueueId, HSAuint32 nGWS,
                                            HSAuint32* firstGWS);

/* ========================================================================
 * Memory
 * ======================================================================== */

/* Sets the default and alternate coherence policies of a node. Kaveri
 * (gfx 7.0.0) only; NOT_IMPLEMENTED on every other node, as upstream. */
HSAKMT_STATUS HSAKMTAPI hsaKmtSetMemoryPolicy(HSAuint32 Node, HSAuint32 DefaultPolicy,
                                              HSAuint32 AlternatePolicy,
                                              void* MemoryAddressAlternate,
                                              HSAuint64 MemorySizeInBytes);

/* Allocates GPU-accessible memory. [in] SizeInBytes: a multiple of the page
 * size; [in,out] MemoryAddress: the requested VA with FixedAddress, else
 * the VA chosen. */
HSAKMT_STATUS HSAKMTAPI hsaKmtAllocMemory(HSAuint32 PreferredNode, HSAuint64 SizeInBytes,
                                          HsaMemFlags MemFlags, void** MemoryAddress);

/* As hsaKmtAllocMemory; [in] Alignment: a power of two of at least a page,
 * or 0 for the smallest possible. */
HSAKMT_STATUS HSAKMTAPI hsaKmtAllocMemoryAlign(HSAuint32 PreferredNode, HSAuint64 SizeInBytes,
                                               HSAuint64 Alignment, HsaMemFlags MemFlags,
                                               void** MemoryAddress);

/* Frees an allocation by its start address (SizeInBytes is not used). A
 * scratch range goes with every slice still mapped. */
HSAKMT_STATUS HSAKMTAPI hsaKmtFreeMemory(void* MemoryAddress, HSAuint64 SizeInBytes);

/* [out] AvailableBytes: memory the node can still allocate. */
HSAKMT_STATUS HSAKMTAPI hsaKmtAvailableMemory(HSAuint32 Node, HSAuint64* AvailableBytes);

/* Registers user memory for GPU access (all GPUs / the listed nodes / with
 * flags). Registering the same address and size again counts one more
 * registration (each needs its hsaKmtDeregisterMemory); the same address
 * with another size is a registration of its own. A no-op on an APU whose
 * GPU shares its node with the CPUs. */
HSAKMT_STATUS HSAKMTAPI hsaKmtRegisterMemory(void* MemoryAddress, HSAuint64 MemorySizeInBytes);
HSAKMT_STATUS HSAKMTAPI hsaKmtRegisterMemoryToNodes(void* MemoryAddress,
                                                    HSAuint64 MemorySizeInBytes,
                                                    HSAuint64 NumberOfNodes,
                                                    HSAuint32* NodeArray);
HSAKMT_STATUS HSAKMTAPI hsaKmtRegisterMemoryWithFlags(void* MemoryAddress,
                                                      HSAuint64 MemorySizeInBytes,
                                                      HsaMemFlags MemFlags);

/* Imports a graphics (dma-buf) buffer for the listed nodes.
 * [out] GraphicsResourceInfo. */
HSAKMT_STATUS HSAKMTAPI hsaKmtRegisterGraphicsHandleToNodes(
    HSAuint64 GraphicsResourceHandle, HsaGraphicsResourceInfo* GraphicsResourceInfo,
    HSAuint64 NumberOfNodes, HSAuint32* NodeArray);

/* As hsaKmtRegisterGraphicsHandleToNodes with options. */
HSAKMT_STATUS HSAKMTAPI hsaKmtRegisterGraphicsHandleToNodesExt(
    HSAuint64 GraphicsResourceHandle, HsaGraphicsResourceInfo* GraphicsResourceInfo,
    HSAuint64 NumberOfNodes, HSAuint32* NodeArray, HSA_REGISTER_MEM_FLAGS RegisterFlags);

/* Exports memory as a dma-buf. [out] DMABufFd: owned by the caller;
 * [out] Offset: of MemoryAddress inside the exported buffer. */
HSAKMT_STATUS HSAKMTAPI hsaKmtExportDMABufHandle(void* MemoryAddress,
                                                 HSAuint64 MemorySizeInBytes, int* DMABufFd,
                                                 HSAuint64* Offset);

/* Exports a whole allocation for another process. [out] SharedMemoryHandle. */
HSAKMT_STATUS HSAKMTAPI hsaKmtShareMemory(void* MemoryAddress, HSAuint64 SizeInBytes,
                                          HsaSharedMemoryHandle* SharedMemoryHandle);

/* Imports a handle made by hsaKmtShareMemory. [out] MemoryAddress,
 * [out] SizeInBytes. */
HSAKMT_STATUS HSAKMTAPI hsaKmtRegisterSharedHandle(const HsaSharedMemoryHandle* SharedMemoryHandle,
                                                   void** MemoryAddress, HSAuint64* SizeInBytes);

/* As hsaKmtRegisterSharedHandle, registered only to the listed nodes. */
HSAKMT_STATUS HSAKMTAPI hsaKmtRegisterSharedHandleToNodes(
    const HsaSharedMemoryHandle* SharedMemoryHandle, void** MemoryAddress,
    HSAuint64* SizeInBytes, HSAuint64 NumberOfNodes, HSAuint32* NodeArray);

/* Cross-process copies (deprecated upstream; not provided by any kernel):
 * NOT_IMPLEMENTED, as upstream. */
HSAKMT_STATUS HSAKMTAPI hsaKmtProcessVMRead(HSAuint32 Pid, HsaMemoryRange* LocalMemoryArray,
                                            HSAuint64 LocalMemoryArrayCount,
                                            HsaMemoryRange* RemoteMemoryArray,
                                            HSAuint64 RemoteMemoryArrayCount,
                                            HSAuint64* SizeCopied);
HSAKMT_STATUS HSAKMTAPI hsaKmtProcessVMWrite(HSAuint32 Pid, HsaMemoryRange* LocalMemoryArray,
                                             HSAuint64 LocalMemoryArrayCount,
                                             HsaMemoryRange* RemoteMemoryArray,
                                             HSAuint64 RemoteMemoryArrayCount,
                                             HSAuint64* SizeCopied);

/* Undoes a registration or import, named by its user address (when only
 * one registration starts there) or by the GPU address
 * hsaKmtMapMemoryToGPU returned for it. */
HSAKMT_STATUS HSAKMTAPI hsaKmtDeregisterMemory(void* MemoryAddress);

/* Makes memory resident and mapped on its GPUs. [out] AlternateVAGPU: the
 * GPU virtual address of registered user memory (with SVM registration the
 * user address itself, otherwise the userptr buffer's own VA plus the
 * address's page offset), 0 for memory the library allocated (its GPU
 * address is its CPU address). An address inside a scratch range backs
 * exactly [MemoryAddress, MemoryAddress + MemorySizeInBytes) of it (page
 * aligned, inside the range, not overlapping another mapped slice).
 * INVALID_PARAMETER for an address-only (OnlyAddress) reservation and for
 * NoAddress memory, as upstream. */
HSAKMT_STATUS HSAKMTAPI hsaKmtMapMemoryToGPU(void* MemoryAddress, HSAuint64 MemorySizeInBytes,
                                             HSAuint64* AlternateVAGPU);

/* As hsaKmtMapMemoryToGPU for exactly the listed nodes. */
HSAKMT_STATUS HSAKMTAPI hsaKmtMapMemoryToGPUNodes(void* MemoryAddress,
                                                  HSAuint64 MemorySizeInBytes,
                                                  HSAuint64* AlternateVAGPU,
                                                  HsaMemMapFlags MemMapFlags,
                                                  HSAuint64 NumberOfNodes, HSAuint32* NodeArray);

/* Undoes hsaKmtMapMemoryToGPU(Nodes) for the address it was given or the
 * GPU address it returned; a scratch slice by its start. Memory that is not
 * mapped, and NULL, succeed (upstream). */
HSAKMT_STATUS HSAKMTAPI hsaKmtUnmapMemoryToGPU(void* MemoryAddress);

/* Legacy graphics interop: NOT_IMPLEMENTED, as upstream (see
 * hsaKmtRegisterGraphicsHandleToNodes). */
HSAKMT_STATUS HSAKMTAPI hsaKmtMapGraphicHandle(HSAuint32 NodeId, HSAuint64 GraphicDeviceHandle,
                                               HSAuint64 GraphicResourceHandle,
                                               HSAuint64 GraphicResourceOffset,
                                               HSAuint64 GraphicResourceSize,
                                               HSAuint64* FlatMemoryAddress);

/* hsaKmtUnmapMemoryToGPU(FlatMemoryAddress), statuses included, as
 * upstream defines it; NodeId and SizeInBytes are not used. */
HSAKMT_STATUS HSAKMTAPI hsaKmtUnmapGraphicHandle(HSAuint32 NodeId, HSAuint64 FlatMemoryAddress,
                                                 HSAuint64 SizeInBytes);

/* [out] PointerInfo: what the library knows about the allocation that
 * contains Pointer. */
HSAKMT_STATUS HSAKMTAPI hsaKmtQueryPointerInfo(const void* Pointer, HsaPointerInfo* PointerInfo);

/* Attaches an opaque value to an allocation (see HsaPointerInfo.UserData). */
HSAKMT_STATUS HSAKMTAPI hsaKmtSetMemoryUserData(const void* Pointer, void* UserData);

/* Sets / reads shared-virtual-memory attributes of a page-aligned range.
 * [in] nattr: entries in attrs ([in] for Set, [in,out] for Get). */
HSAKMT_STATUS HSAKMTAPI hsaKmtSVMSetAttr(void* start_addr, HSAuint64 size, unsigned int nattr,
                                         HSA_SVM_ATTRIBUTE* attrs);
HSAKMT_STATUS HSAKMTAPI hsaKmtSVMGetAttr(void* start_addr, HSAuint64 size, unsigned int nattr,
                                         HSA_SVM_ATTRIBUTE* attrs);

/* Sets / reads the process's XNACK (retry on GPU page fault) mode. The
 * kernel refuses a change while the process has queues: ERROR, as upstream;
 * a GPU that cannot switch per process: NOT_SUPPORTED. */
HSAKMT_STATUS HSAKMTAPI hsaKmtSetXNACKMode(HSAint32 enable);
HSAKMT_STATUS HSAKMTAPI hsaKmtGetXNACKMode(HSAint32* enable);

/* AddressSanitizer support: swap the first page of a GPU allocation for
 * system memory and back. NOT_SUPPORTED unless built for ASan. */
HSAKMT_STATUS HSAKMTAPI hsaKmtReplaceAsanHeaderPage(void* addr);
HSAKMT_STATUS HSAKMTAPI hsaKmtReturnAsanHeaderPage(void* addr);

/* ========================================================================
 * Debugging
 * ======================================================================== */

/* Legacy debugger interface: the deprecated ioctls are still sent, and
 * current kernels refuse them (ERROR). */
HSAKMT_STATUS HSAKMTAPI hsaKmtDbgRegister(HSAuint32 NodeId);
HSAKMT_STATUS HSAKMTAPI hsaKmtDbgUnregister(HSAuint32 NodeId);
HSAKMT_STATUS HSAKMTAPI hsaKmtDbgWavefrontControl(HSAuint32 NodeId, HSA_DBG_WAVEOP Operand,
                                                  HSA_DBG_WAVEMODE Mode, HSAuint32 TrapId,
                                                  HsaDbgWaveMessage* DbgWaveMsgRing);
HSAKMT_STATUS HSAKMTAPI hsaKmtDbgAddressWatch(HSAuint32 NodeId, HSAuint32 NumWatchPoints,
                                              HSA_DBG_WATCH_MODE WatchMode[],
                                              void* WatchAddress[], HSAuint64 WatchMask[],
                                              HsaEvent* WatchEvent[]);

/* Tells the kernel that the ROCm runtime is up. [in] rDebug: the runtime's
 * r_debug; [in] setupTtmp: have trap temporaries set up for the debugger. */
HSAKMT_STATUS HSAKMTAPI hsaKmtRuntimeEnable(void* rDebug, bool setupTtmp);
HSAKMT_STATUS HSAKMTAPI hsaKmtRuntimeDisable(void);

/* [out] caps_mask: capabilities reported by the last hsaKmtRuntimeEnable. */
HSAKMT_STATUS HSAKMTAPI hsaKmtGetRuntimeCapabilities(HSAuint32* caps_mask);

/* Enables / disables debug trapping for this process. [out] runtime_info:
 * a block owned by the library (the kernel's kfd_runtime_info), valid until
 * the next hsaKmtDbgEnable or the last close; do not free it. [out]
 * data_size: the bytes the kernel filled. */
HSAKMT_STATUS HSAKMTAPI hsaKmtDbgEnable(void** runtime_info, HSAuint32* data_size);
HSAKMT_STATUS HSAKMTAPI hsaKmtDbgDisable(void);

/* Device / queue snapshots for a debugger. [out] data: an array of
 * n_entries entries of entry_size bytes owned by the library, valid until
 * the next call of the same function or the last close; do not free it. */
HSAKMT_STATUS HSAKMTAPI hsaKmtDbgGetDeviceData(void** data, HSAuint32* n_entries,
                                               HSAuint32* entry_size);
HSAKMT_STATUS HSAKMTAPI hsaKmtDbgGetQueueData(void** data, HSAuint32* n_entries,
                                              HSAuint32* entry_size, bool suspend_queues);

/* SUCCESS when every GPU's firmware and the kernel support debugging. */
HSAKMT_STATUS HSAKMTAPI hsaKmtCheckRuntimeDebugSupport(void);

/* Raw debug-trap ioctl (a testing interface). [in,out] arg: written back
 * on success; [in] Queues: HSA_QUEUEIDs written as KFD queue ids into the
 * SUSPEND/RESUME queue array; [out] DebugReturn: 0 on success. */
HSAKMT_STATUS HSAKMTAPI hsaKmtDebugTrapIoctl(struct kfd_ioctl_dbg_trap_args* arg,
                                             HSA_QUEUEID* Queues, HSAuint64* DebugReturn);

/* ========================================================================
 * Clocks, trap handler, tiling
 * ======================================================================== */

/* [out] Counters: GPU, CPU and system clocks sampled together (a CPU node
 * gives a GPU counter of 0). */
HSAKMT_STATUS HSAKMTAPI hsaKmtGetClockCounters(HSAuint32 NodeId, HsaClockCounters* Counters);

/* Installs the trap handler and trap buffer of every queue of the node in
 * this process. */
HSAKMT_STATUS HSAKMTAPI hsaKmtSetTrapHandler(HSAuint32 NodeId, void* TrapHandlerBaseAddress,
                                             HSAuint64 TrapHandlerSizeInBytes,
                                             void* TrapBufferBaseAddress,
                                             HSAuint64 TrapBufferSizeInBytes);

/* [in,out] config: NumTileConfigs / NumMacroTileConfigs are the capacities
 * of the caller's arrays on input and the entries filled on output; see
 * HsaGpuTileConfig. */
HSAKMT_STATUS HSAKMTAPI hsaKmtGetTileConfig(HSAuint32 NodeId, HsaGpuTileConfig* config);

/* ========================================================================
 * Performance counters
 * ======================================================================== */

/* [out] CounterProperties: library-owned description of the node's blocks. */
HSAKMT_STATUS HSAKMTAPI hsaKmtPmcGetCounterProperties(HSAuint32 NodeId,
                                                      HsaCounterProperties** CounterProperties);

/* Registers NumberOfCounters counters for a trace. [out] TraceRoot. */
HSAKMT_STATUS HSAKMTAPI hsaKmtPmcRegisterTrace(HSAuint32 NodeId, HSAuint32 NumberOfCounters,
                                               HsaCounter* Counters, HsaPmcTraceRoot* TraceRoot);
HSAKMT_STATUS HSAKMTAPI hsaKmtPmcUnregisterTrace(HSAuint32 NodeId, HSATraceId TraceId);

/* Takes / gives back exclusive use of a registered trace's counters. */
HSAKMT_STATUS HSAKMTAPI hsaKmtPmcAcquireTraceAccess(HSAuint32 NodeId, HSATraceId TraceId);
HSAKMT_STATUS HSAKMTAPI hsaKmtPmcReleaseTraceAccess(HSAuint32 NodeId, HSATraceId TraceId);

/* Starts a trace into a page-aligned buffer, refreshes the buffer, stops. */
HSAKMT_STATUS HSAKMTAPI hsaKmtPmcStartTrace(HSATraceId TraceId, void* TraceBuffer,
                                            HSAuint64 TraceBufferSizeBytes);
HSAKMT_STATUS HSAKMTAPI hsaKmtPmcQueryTrace(HSATraceId TraceId);
HSAKMT_STATUS HSAKMTAPI hsaKmtPmcStopTrace(HSATraceId TraceId);

/* ========================================================================
 * Streaming performance monitor (SPM): the DKMS RLC_SPM ioctl; kernels
 * without it give NOT_SUPPORTED. A CPU node is INVALID_NODE_UNIT.
 * ======================================================================== */

/* Takes / gives back the GPU's SPM for this process (a second Acquire is
 * the kernel's EINVAL: INVALID_PARAMETER). */
HSAKMT_STATUS HSAKMTAPI hsaKmtSPMAcquire(HSAuint32 PreferredNode);
HSAKMT_STATUS HSAKMTAPI hsaKmtSPMRelease(HSAuint32 PreferredNode);

/* Hands the kernel the next buffer for SPM data (at least 32 bytes, a
 * multiple of 32), or none (NULL: streaming stops, SizeInBytes is not
 * used). [in,out] timeout: ms to wait for the previous buffer to fill,
 * then the time left; [out] SizeCopied: bytes written into the previous
 * buffer; [out] isSPMDataLoss: data was dropped. */
HSAKMT_STATUS HSAKMTAPI hsaKmtSPMSetDestBuffer(HSAuint32 PreferredNode, HSAuint32 SizeInBytes,
                                               HSAuint32* timeout, HSAuint32* SizeCopied,
                                               void* DestMemoryAddress, bool* isSPMDataLoss);

/* ========================================================================
 * PC sampling: the DKMS PC_SAMPLE ioctl, KFD 1.16 or later.
 * ======================================================================== */

/* SUCCESS when the kernel supports PC sampling (KFD 1.16 or later). */
HSAKMT_STATUS HSAKMTAPI hsaKmtPcSamplingSupport(void);

/* [out] sample_info: up to sample_info_sz HsaPcSamplingInfo entries (NULL
 * or 0 asks for the count only); [out] sz_needed: entries available, also
 * on BUFFER_TOO_SMALL. While sessions run on the node the entries are
 * their configurations. A GPU without PC sampling is NOT_SUPPORTED. */
HSAKMT_STATUS HSAKMTAPI hsaKmtPcSamplingQueryCapabilities(HSAuint32 NodeId, void* sample_info,
                                                          HSAuint32 sample_info_sz,
                                                          HSAuint32* sz_needed);

/* [in] sample_info: the configuration; [out] traceId: nonzero, the
 * library's id for the session (not the kernel's), valid until Destroy or
 * the last hsaKmtCloseKFD; another id is INVALID_HANDLE. When a different
 * configuration of the same method runs already the result is ERROR and
 * *sample_info receives the running configuration. At most 64 sessions
 * per context (4 in the small-board configuration): OUT_OF_RESOURCES.
 * Destroy stops a started session first; Start of a started and Stop of
 * a stopped session are KERNEL_ALREADY_OPENED. */
HSAKMT_STATUS HSAKMTAPI hsaKmtPcSamplingCreate(HSAuint32 node_id, HsaPcSamplingInfo* sample_info,
                                               HsaPcSamplingTraceId* traceId);
HSAKMT_STATUS HSAKMTAPI hsaKmtPcSamplingDestroy(HSAuint32 NodeId, HsaPcSamplingTraceId traceId);
HSAKMT_STATUS HSAKMTAPI hsaKmtPcSamplingStart(HSAuint32 NodeId, HsaPcSamplingTraceId traceId);
HSAKMT_STATUS HSAKMTAPI hsaKmtPcSamplingStop(HSAuint32 NodeId, HsaPcSamplingTraceId traceId);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* _HSAKMT_H_ */
