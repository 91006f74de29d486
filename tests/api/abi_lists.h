/*
 * Shared lists for the tests/api checks. Plain C, included by the C
 * consumer (c_consumer.c, compiled as strict C11) and by the C++ tests, so
 * that both languages evaluate exactly the same expressions.
 *
 * HKE_API_FUNCTIONS lists every hsaKmt* function declared in
 * include/hsakmt/hsakmt.h, in header order. api_table_test.cc parses the
 * header at run time and fails if a declaration is missing here; a name
 * here that the header does not declare fails to compile.
 *
 * HKE_CTX_FUNCTIONS lists, in header order, every hsaKmt*Ctx function of
 * include/hsakmt/hsakmtctx.h; api_table_test.cc parses that header and
 * requires the list to be exactly its declarations, each once.
 *
 * HKE_ABI_LAYOUT lists the size of every public enum and record and the
 * offset of every record member that offsetof can name.
 */
#ifndef HKE_TESTS_API_ABI_LISTS_H_
#define HKE_TESTS_API_ABI_LISTS_H_

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One evaluated layout expression, e.g. {"sizeof(HsaEvent)", 48}. */
typedef struct hke_abi_value {
  const char* what;
  size_t value;
} hke_abi_value;

/* One API function and its address. */
typedef void (*hke_api_fn)(void);
typedef struct hke_api_entry {
  const char* name;
  hke_api_fn fn;
} hke_api_entry;

/* Defined by c_consumer.c, evaluated by the C compiler. */
extern const hke_abi_value hke_c_layout[];
extern const size_t hke_c_layout_count;
extern const hke_api_entry hke_c_api[];
extern const size_t hke_c_api_count;
extern const hke_api_entry hke_c_ctx_api[];
extern const size_t hke_c_ctx_api_count;

/* Defined by debian_types.c from Debian's libhsakmt 5.2.3 hsakmttypes.h
 * (only built when that header is installed). */
extern const hke_abi_value hke_debian_layout[];
extern const size_t hke_debian_layout_count;

#ifdef __cplusplus
} /* extern "C" */
#endif

#define HKE_API_FUNCTIONS(X) \
  X(hsaKmtOpenKFD) \
  X(hsaKmtCloseKFD) \
  X(hsaKmtGetVersion) \
  X(hsaKmtModelEnabled) \
  X(hsaKmtAcquireSystemProperties) \
  X(hsaKmtReleaseSystemProperties) \
  X(hsaKmtGetNodeProperties) \
  X(hsaKmtGetNodeMemoryProperties) \
  X(hsaKmtGetNodeCacheProperties) \
  X(hsaKmtGetNodeIoLinkProperties) \
  X(hsaKmtGetAMDGPUDeviceHandle) \
  X(hsaKmtCreateEvent) \
  X(hsaKmtDestroyEvent) \
  X(hsaKmtSetEvent) \
  X(hsaKmtResetEvent) \
  X(hsaKmtQueryEventState) \
  X(hsaKmtWaitOnEvent) \
  X(hsaKmtWaitOnEvent_Ext) \
  X(hsaKmtWaitOnMultipleEvents) \
  X(hsaKmtWaitOnMultipleEvents_Ext) \
  X(hsaKmtOpenSMI) \
  X(hsaKmtReportQueue) \
  X(hsaKmtCreateQueue) \
  X(hsaKmtCreateQueueExt) \
  X(hsaKmtUpdateQueue) \
  X(hsaKmtDestroyQueue) \
  X(hsaKmtSetQueueCUMask) \
  X(hsaKmtGetQueueInfo) \
  X(hsaKmtAllocQueueGWS) \
  X(hsaKmtSetMemoryPolicy) \
  X(hsaKmtAllocMemory) \
  X(hsaKmtAllocMemoryAlign) \
  X(hsaKmtFreeMemory) \
  X(hsaKmtAvailableMemory) \
  X(hsaKmtRegisterMemory) \
  X(hsaKmtRegisterMemoryToNodes) \
  X(hsaKmtRegisterMemoryWithFlags) \
  X(hsaKmtRegisterGraphicsHandleToNodes) \
  X(hsaKmtRegisterGraphicsHandleToNodesExt) \
  X(hsaKmtExportDMABufHandle) \
  X(hsaKmtShareMemory) \
  X(hsaKmtRegisterSharedHandle) \
  X(hsaKmtRegisterSharedHandleToNodes) \
  X(hsaKmtProcessVMRead) \
  X(hsaKmtProcessVMWrite) \
  X(hsaKmtDeregisterMemory) \
  X(hsaKmtMapMemoryToGPU) \
  X(hsaKmtMapMemoryToGPUNodes) \
  X(hsaKmtUnmapMemoryToGPU) \
  X(hsaKmtMapGraphicHandle) \
  X(hsaKmtUnmapGraphicHandle) \
  X(hsaKmtQueryPointerInfo) \
  X(hsaKmtSetMemoryUserData) \
  X(hsaKmtSVMSetAttr) \
  X(hsaKmtSVMGetAttr) \
  X(hsaKmtSetXNACKMode) \
  X(hsaKmtGetXNACKMode) \
  X(hsaKmtReplaceAsanHeaderPage) \
  X(hsaKmtReturnAsanHeaderPage) \
  X(hsaKmtDbgRegister) \
  X(hsaKmtDbgUnregister) \
  X(hsaKmtDbgWavefrontControl) \
  X(hsaKmtDbgAddressWatch) \
  X(hsaKmtRuntimeEnable) \
  X(hsaKmtRuntimeDisable) \
  X(hsaKmtGetRuntimeCapabilities) \
  X(hsaKmtDbgEnable) \
  X(hsaKmtDbgDisable) \
  X(hsaKmtDbgGetDeviceData) \
  X(hsaKmtDbgGetQueueData) \
  X(hsaKmtCheckRuntimeDebugSupport) \
  X(hsaKmtDebugTrapIoctl) \
  X(hsaKmtGetClockCounters) \
  X(hsaKmtSetTrapHandler) \
  X(hsaKmtGetTileConfig) \
  X(hsaKmtPmcGetCounterProperties) \
  X(hsaKmtPmcRegisterTrace) \
  X(hsaKmtPmcUnregisterTrace) \
  X(hsaKmtPmcAcquireTraceAccess) \
  X(hsaKmtPmcReleaseTraceAccess) \
  X(hsaKmtPmcStartTrace) \
  X(hsaKmtPmcQueryTrace) \
  X(hsaKmtPmcStopTrace) \
  X(hsaKmtSPMAcquire) \
  X(hsaKmtSPMRelease) \
  X(hsaKmtSPMSetDestBuffer) \
  X(hsaKmtPcSamplingSupport) \
  X(hsaKmtPcSamplingQueryCapabilities) \
  X(hsaKmtPcSamplingCreate) \
  X(hsaKmtPcSamplingDestroy) \
  X(hsaKmtPcSamplingStart) \
  X(hsaKmtPcSamplingStop)

#define HKE_CTX_FUNCTIONS(X) \
  X(hsaKmtOpenKFDCtx) \
  X(hsaKmtCloseKFDCtx) \
  X(hsaKmtOpenSecondaryKFDCtx) \
  X(hsaKmtCloseSecondaryKFDCtx) \
  X(hsaKmtAcquireSystemPropertiesCtx) \
  X(hsaKmtReleaseSystemPropertiesCtx) \
  X(hsaKmtGetNodePropertiesCtx) \
  X(hsaKmtGetNodeMemoryPropertiesCtx) \
  X(hsaKmtGetNodeCachePropertiesCtx) \
  X(hsaKmtGetNodeIoLinkPropertiesCtx) \
  X(hsaKmtCreateEventCtx) \
  X(hsaKmtDestroyEventCtx) \
  X(hsaKmtSetEventCtx) \
  X(hsaKmtResetEventCtx) \
  X(hsaKmtQueryEventStateCtx) \
  X(hsaKmtWaitOnEventCtx) \
  X(hsaKmtWaitOnEvent_ExtCtx) \
  X(hsaKmtWaitOnMultipleEventsCtx) \
  X(hsaKmtWaitOnMultipleEvents_ExtCtx) \
  X(hsaKmtOpenSMICtx) \
  X(hsaKmtCreateQueueCtx) \
  X(hsaKmtCreateQueueExtCtx) \
  X(hsaKmtUpdateQueueCtx) \
  X(hsaKmtDestroyQueueCtx) \
  X(hsaKmtSetQueueCUMaskCtx) \
  X(hsaKmtGetQueueInfoCtx) \
  X(hsaKmtAllocQueueGWSCtx) \
  X(hsaKmtSetMemoryPolicyCtx) \
  X(hsaKmtAllocMemoryCtx) \
  X(hsaKmtAllocMemoryAlignCtx) \
  X(hsaKmtFreeMemoryCtx) \
  X(hsaKmtAvailableMemoryCtx) \
  X(hsaKmtRegisterMemoryCtx) \
  X(hsaKmtRegisterMemoryToNodesCtx) \
  X(hsaKmtRegisterMemoryWithFlagsCtx) \
  X(hsaKmtRegisterGraphicsHandleToNodesCtx) \
  X(hsaKmtRegisterGraphicsHandleToNodesExtCtx) \
  X(hsaKmtExportDMABufHandleCtx) \
  X(hsaKmtShareMemoryCtx) \
  X(hsaKmtRegisterSharedHandleCtx) \
  X(hsaKmtRegisterSharedHandleToNodesCtx) \
  X(hsaKmtDeregisterMemoryCtx) \
  X(hsaKmtMapMemoryToGPUCtx) \
  X(hsaKmtMapMemoryToGPUNodesCtx) \
  X(hsaKmtUnmapMemoryToGPUCtx) \
  X(hsaKmtUnmapGraphicHandleCtx) \
  X(hsaKmtQueryPointerInfoCtx) \
  X(hsaKmtSetMemoryUserDataCtx) \
  X(hsaKmtSVMSetAttrCtx) \
  X(hsaKmtSVMGetAttrCtx) \
  X(hsaKmtSetXNACKModeCtx) \
  X(hsaKmtGetXNACKModeCtx) \
  X(hsaKmtReplaceAsanHeaderPageCtx) \
  X(hsaKmtReturnAsanHeaderPageCtx) \
  X(hsaKmtGetAMDGPUDeviceHandleCtx) \
  X(hsaKmtSetTrapHandlerCtx) \
  X(hsaKmtGetTileConfigCtx) \
  X(hsaKmtGetClockCountersCtx) \
  X(hsaKmtRuntimeEnableCtx) \
  X(hsaKmtRuntimeDisableCtx) \
  X(hsaKmtGetRuntimeCapabilitiesCtx) \
  X(hsaKmtDbgEnableCtx) \
  X(hsaKmtDbgDisableCtx) \
  X(hsaKmtDbgGetDeviceDataCtx) \
  X(hsaKmtDbgGetQueueDataCtx) \
  X(hsaKmtCheckRuntimeDebugSupportCtx) \
  X(hsaKmtDebugTrapIoctlCtx) \
  X(hsaKmtPmcGetCounterPropertiesCtx) \
  X(hsaKmtPmcRegisterTraceCtx) \
  X(hsaKmtPmcUnregisterTraceCtx) \
  X(hsaKmtPmcAcquireTraceAccessCtx) \
  X(hsaKmtPmcReleaseTraceAccessCtx)

#define HKE_ABI_LAYOUT(SIZE, OFFSET) \
  SIZE(HSAKMT_STATUS) \
  SIZE(HSA_CACHING_TYPE) \
  SIZE(HSA_DBG_NODE_CONTROL) \
  SIZE(HSA_DBG_TRAP_EXCEPTION_CODE) \
  SIZE(HSA_DBG_TRAP_MASK) \
  SIZE(HSA_DBG_TRAP_OVERRIDE) \
  SIZE(HSA_DBG_WATCH_MODE) \
  SIZE(HSA_DBG_WAVEMODE) \
  SIZE(HSA_DBG_WAVEMSG_TYPE) \
  SIZE(HSA_DBG_WAVEOP) \
  SIZE(HSA_DBG_WAVE_LAUNCH_MODE) \
  SIZE(HSA_DEBUG_EVENT_TYPE) \
  SIZE(HSA_DEVICE) \
  SIZE(HSA_EVENTID_HW_EXCEPTION_CAUSE) \
  SIZE(HSA_EVENTID_MEMORYFLAGS) \
  SIZE(HSA_EVENTTYPE) \
  SIZE(HSA_EVENTTYPE_DEVICESTATECHANGE_FLAGS) \
  SIZE(HSA_EVENTTYPE_NODECHANGE_FLAGS) \
  SIZE(HSA_EVENT_TYPE) \
  SIZE(HSA_HEAPTYPE) \
  SIZE(HSA_IOLINKTYPE) \
  SIZE(HSA_MIGRATE_TRIGGERS) \
  SIZE(HSA_PAGE_SIZE) \
  SIZE(HSA_PC_SAMPLING_METHOD_KIND) \
  SIZE(HSA_PC_SAMPLING_UNIT_INTERVAL) \
  SIZE(HSA_POINTER_TYPE) \
  SIZE(HSA_PROFILE_TYPE) \
  SIZE(HSA_QUEUE_EVICTION_TRIGGERS) \
  SIZE(HSA_QUEUE_PRIORITY) \
  SIZE(HSA_QUEUE_TYPE) \
  SIZE(HSA_SVM_ATTR_TYPE) \
  SIZE(HSA_SVM_FLAGS) \
  SIZE(HSA_SVM_UNMAP_TRIGGERS) \
  SIZE(HsaEventTimeOut) \
  SIZE(HsaSharedMemoryHandle) \
  SIZE(HsaVersionInfo) \
  OFFSET(HsaVersionInfo, KernelInterfaceMajorVersion) \
  OFFSET(HsaVersionInfo, KernelInterfaceMinorVersion) \
  SIZE(HsaSystemProperties) \
  OFFSET(HsaSystemProperties, NumNodes) \
  OFFSET(HsaSystemProperties, PlatformOem) \
  OFFSET(HsaSystemProperties, PlatformId) \
  OFFSET(HsaSystemProperties, PlatformRev) \
  SIZE(HSA_ENGINE_ID) \
  OFFSET(HSA_ENGINE_ID, Value) \
  OFFSET(HSA_ENGINE_ID, ui32) \
  SIZE(HSA_ENGINE_VERSION) \
  OFFSET(HSA_ENGINE_VERSION, Value) \
  SIZE(HSA_CAPABILITY) \
  OFFSET(HSA_CAPABILITY, Value) \
  OFFSET(HSA_CAPABILITY, ui32) \
  SIZE(HSA_CAPABILITY2) \
  OFFSET(HSA_CAPABILITY2, Value) \
  OFFSET(HSA_CAPABILITY2, ui32) \
  SIZE(HSA_DEBUG_PROPERTIES) \
  OFFSET(HSA_DEBUG_PROPERTIES, Value) \
  SIZE(HsaNodeProperties) \
  OFFSET(HsaNodeProperties, NumCPUCores) \
  OFFSET(HsaNodeProperties, NumFComputeCores) \
  OFFSET(HsaNodeProperties, NumNeuralCores) \
  OFFSET(HsaNodeProperties, NumMemoryBanks) \
  OFFSET(HsaNodeProperties, NumCaches) \
  OFFSET(HsaNodeProperties, NumIOLinks) \
  OFFSET(HsaNodeProperties, CComputeIdLo) \
  OFFSET(HsaNodeProperties, FComputeIdLo) \
  OFFSET(HsaNodeProperties, Capability) \
  OFFSET(HsaNodeProperties, Capability2) \
  OFFSET(HsaNodeProperties, MaxWavesPerSIMD) \
  OFFSET(HsaNodeProperties, LDSSizeInKB) \
  OFFSET(HsaNodeProperties, GDSSizeInKB) \
  OFFSET(HsaNodeProperties, WaveFrontSize) \
  OFFSET(HsaNodeProperties, NumShaderBanks) \
  OFFSET(HsaNodeProperties, NumArrays) \
  OFFSET(HsaNodeProperties, NumCUPerArray) \
  OFFSET(HsaNodeProperties, NumSIMDPerCU) \
  OFFSET(HsaNodeProperties, MaxSlotsScratchCU) \
  OFFSET(HsaNodeProperties, EngineId) \
  OFFSET(HsaNodeProperties, OverrideEngineId) \
  OFFSET(HsaNodeProperties, VendorId) \
  OFFSET(HsaNodeProperties, DeviceId) \
  OFFSET(HsaNodeProperties, LocationId) \
  OFFSET(HsaNodeProperties, LocalMemSize) \
  OFFSET(HsaNodeProperties, MaxEngineClockMhzFCompute) \
  OFFSET(HsaNodeProperties, MaxEngineClockMhzCCompute) \
  OFFSET(HsaNodeProperties, DrmRenderMinor) \
  OFFSET(HsaNodeProperties, MarketingName) \
  OFFSET(HsaNodeProperties, AMDName) \
  OFFSET(HsaNodeProperties, uCodeEngineVersions) \
  OFFSET(HsaNodeProperties, DebugProperties) \
  OFFSET(HsaNodeProperties, HiveID) \
  OFFSET(HsaNodeProperties, NumSdmaEngines) \
  OFFSET(HsaNodeProperties, NumSdmaXgmiEngines) \
  OFFSET(HsaNodeProperties, NumSdmaQueuesPerEngine) \
  OFFSET(HsaNodeProperties, NumCpQueues) \
  OFFSET(HsaNodeProperties, NumGws) \
  OFFSET(HsaNodeProperties, Integrated) \
  OFFSET(HsaNodeProperties, Domain) \
  OFFSET(HsaNodeProperties, UniqueID) \
  OFFSET(HsaNodeProperties, VGPRSizePerCU) \
  OFFSET(HsaNodeProperties, SGPRSizePerCU) \
  OFFSET(HsaNodeProperties, NumXcc) \
  OFFSET(HsaNodeProperties, KFDGpuID) \
  OFFSET(HsaNodeProperties, FamilyID) \
  SIZE(HSA_MEMORYPROPERTY) \
  OFFSET(HSA_MEMORYPROPERTY, MemoryProperty) \
  OFFSET(HSA_MEMORYPROPERTY, ui32) \
  SIZE(HsaMemoryProperties) \
  OFFSET(HsaMemoryProperties, HeapType) \
  OFFSET(HsaMemoryProperties, SizeInBytes) \
  OFFSET(HsaMemoryProperties, ui32) \
  OFFSET(HsaMemoryProperties, Flags) \
  OFFSET(HsaMemoryProperties, Width) \
  OFFSET(HsaMemoryProperties, MemoryClockMax) \
  OFFSET(HsaMemoryProperties, VirtualBaseAddress) \
  SIZE(HsaCacheType) \
  OFFSET(HsaCacheType, Value) \
  OFFSET(HsaCacheType, ui32) \
  SIZE(HsaCacheProperties) \
  OFFSET(HsaCacheProperties, ProcessorIdLow) \
  OFFSET(HsaCacheProperties, CacheLevel) \
  OFFSET(HsaCacheProperties, CacheSize) \
  OFFSET(HsaCacheProperties, CacheLineSize) \
  OFFSET(HsaCacheProperties, CacheLinesPerTag) \
  OFFSET(HsaCacheProperties, CacheAssociativity) \
  OFFSET(HsaCacheProperties, CacheLatency) \
  OFFSET(HsaCacheProperties, CacheType) \
  OFFSET(HsaCacheProperties, SiblingMap) \
  SIZE(HsaCComputeProperties) \
  OFFSET(HsaCComputeProperties, SiblingMap) \
  SIZE(HSA_LINKPROPERTY) \
  OFFSET(HSA_LINKPROPERTY, LinkProperty) \
  OFFSET(HSA_LINKPROPERTY, ui32) \
  SIZE(HsaIoLinkProperties) \
  OFFSET(HsaIoLinkProperties, IoLinkType) \
  OFFSET(HsaIoLinkProperties, VersionMajor) \
  OFFSET(HsaIoLinkProperties, VersionMinor) \
  OFFSET(HsaIoLinkProperties, NodeFrom) \
  OFFSET(HsaIoLinkProperties, NodeTo) \
  OFFSET(HsaIoLinkProperties, Weight) \
  OFFSET(HsaIoLinkProperties, MinimumLatency) \
  OFFSET(HsaIoLinkProperties, MaximumLatency) \
  OFFSET(HsaIoLinkProperties, MinimumBandwidth) \
  OFFSET(HsaIoLinkProperties, MaximumBandwidth) \
  OFFSET(HsaIoLinkProperties, RecTransferSize) \
  OFFSET(HsaIoLinkProperties, RecSdmaEngIdMask) \
  OFFSET(HsaIoLinkProperties, Flags) \
  SIZE(HsaMemFlags) \
  OFFSET(HsaMemFlags, ui32) \
  OFFSET(HsaMemFlags, Value) \
  SIZE(HsaMemMapFlags) \
  OFFSET(HsaMemMapFlags, ui32) \
  OFFSET(HsaMemMapFlags, Value) \
  SIZE(HsaGraphicsResourceInfo) \
  OFFSET(HsaGraphicsResourceInfo, MemoryAddress) \
  OFFSET(HsaGraphicsResourceInfo, SizeInBytes) \
  OFFSET(HsaGraphicsResourceInfo, Metadata) \
  OFFSET(HsaGraphicsResourceInfo, MetadataSizeInBytes) \
  OFFSET(HsaGraphicsResourceInfo, NodeId) \
  SIZE(HsaUserContextSaveAreaHeader) \
  OFFSET(HsaUserContextSaveAreaHeader, ControlStackOffset) \
  OFFSET(HsaUserContextSaveAreaHeader, ControlStackSize) \
  OFFSET(HsaUserContextSaveAreaHeader, WaveStateOffset) \
  OFFSET(HsaUserContextSaveAreaHeader, WaveStateSize) \
  OFFSET(HsaUserContextSaveAreaHeader, DebugOffset) \
  OFFSET(HsaUserContextSaveAreaHeader, DebugSize) \
  OFFSET(HsaUserContextSaveAreaHeader, ErrorReason) \
  OFFSET(HsaUserContextSaveAreaHeader, ErrorEventId) \
  OFFSET(HsaUserContextSaveAreaHeader, Reserved1) \
  SIZE(HsaQueueInfo) \
  OFFSET(HsaQueueInfo, QueueDetailError) \
  OFFSET(HsaQueueInfo, QueueTypeExtended) \
  OFFSET(HsaQueueInfo, NumCUAssigned) \
  OFFSET(HsaQueueInfo, CUMaskInfo) \
  OFFSET(HsaQueueInfo, UserContextSaveArea) \
  OFFSET(HsaQueueInfo, SaveAreaSizeInBytes) \
  OFFSET(HsaQueueInfo, ControlStackTop) \
  OFFSET(HsaQueueInfo, ControlStackUsedInBytes) \
  OFFSET(HsaQueueInfo, SaveAreaHeader) \
  OFFSET(HsaQueueInfo, Reserved2) \
  SIZE(HsaQueueResource) \
  OFFSET(HsaQueueResource, QueueId) \
  OFFSET(HsaQueueResource, Queue_DoorBell) \
  OFFSET(HsaQueueResource, Queue_DoorBell_aql) \
  OFFSET(HsaQueueResource, QueueDoorBell) \
  OFFSET(HsaQueueResource, Queue_write_ptr) \
  OFFSET(HsaQueueResource, Queue_write_ptr_aql) \
  OFFSET(HsaQueueResource, QueueWptrValue) \
  OFFSET(HsaQueueResource, Queue_read_ptr) \
  OFFSET(HsaQueueResource, Queue_read_ptr_aql) \
  OFFSET(HsaQueueResource, QueueRptrValue) \
  OFFSET(HsaQueueResource, ErrorReason) \
  SIZE(HsaQueueReport) \
  OFFSET(HsaQueueReport, VMID) \
  OFFSET(HsaQueueReport, QueueAddress) \
  OFFSET(HsaQueueReport, QueueSize) \
  SIZE(HsaDbgWaveMsgAMDGen2) \
  OFFSET(HsaDbgWaveMsgAMDGen2, Value) \
  OFFSET(HsaDbgWaveMsgAMDGen2, Reserved2) \
  SIZE(HsaDbgWaveMessageAMD) \
  OFFSET(HsaDbgWaveMessageAMD, WaveMsgInfoGen2) \
  SIZE(HsaDbgWaveMessage) \
  OFFSET(HsaDbgWaveMessage, MemoryVA) \
  OFFSET(HsaDbgWaveMessage, DbgWaveMsg) \
  SIZE(HsaSyncVar) \
  OFFSET(HsaSyncVar, SyncVar) \
  OFFSET(HsaSyncVar, SyncVarSize) \
  SIZE(HsaNodeChange) \
  OFFSET(HsaNodeChange, Flags) \
  SIZE(HsaDeviceStateChange) \
  OFFSET(HsaDeviceStateChange, NodeId) \
  OFFSET(HsaDeviceStateChange, Device) \
  OFFSET(HsaDeviceStateChange, Flags) \
  SIZE(HsaAccessAttributeFailure) \
  SIZE(HsaMemoryAccessFault) \
  OFFSET(HsaMemoryAccessFault, NodeId) \
  OFFSET(HsaMemoryAccessFault, VirtualAddress) \
  OFFSET(HsaMemoryAccessFault, Failure) \
  OFFSET(HsaMemoryAccessFault, Flags) \
  SIZE(HsaHwException) \
  OFFSET(HsaHwException, NodeId) \
  OFFSET(HsaHwException, ResetType) \
  OFFSET(HsaHwException, MemoryLost) \
  OFFSET(HsaHwException, ResetCause) \
  SIZE(HsaEventData) \
  OFFSET(HsaEventData, EventType) \
  OFFSET(HsaEventData, EventData) \
  OFFSET(HsaEventData, HWData1) \
  OFFSET(HsaEventData, HWData2) \
  OFFSET(HsaEventData, HWData3) \
  SIZE(HsaEventDescriptor) \
  OFFSET(HsaEventDescriptor, EventType) \
  OFFSET(HsaEventDescriptor, NodeId) \
  OFFSET(HsaEventDescriptor, SyncVar) \
  SIZE(HsaEvent) \
  OFFSET(HsaEvent, EventId) \
  OFFSET(HsaEvent, EventData) \
  SIZE(HsaClockCounters) \
  OFFSET(HsaClockCounters, GPUClockCounter) \
  OFFSET(HsaClockCounters, CPUClockCounter) \
  OFFSET(HsaClockCounters, SystemClockCounter) \
  OFFSET(HsaClockCounters, SystemClockFrequencyHz) \
  SIZE(HSA_UUID) \
  OFFSET(HSA_UUID, Data1) \
  OFFSET(HSA_UUID, Data2) \
  OFFSET(HSA_UUID, Data3) \
  OFFSET(HSA_UUID, Data4) \
  SIZE(HsaCounterFlags) \
  OFFSET(HsaCounterFlags, ui32) \
  OFFSET(HsaCounterFlags, Value) \
  SIZE(HsaCounter) \
  OFFSET(HsaCounter, Type) \
  OFFSET(HsaCounter, CounterId) \
  OFFSET(HsaCounter, CounterSizeInBits) \
  OFFSET(HsaCounter, CounterMask) \
  OFFSET(HsaCounter, Flags) \
  OFFSET(HsaCounter, BlockIndex) \
  SIZE(HsaCounterBlockProperties) \
  OFFSET(HsaCounterBlockProperties, BlockId) \
  OFFSET(HsaCounterBlockProperties, NumCounters) \
  OFFSET(HsaCounterBlockProperties, NumConcurrent) \
  OFFSET(HsaCounterBlockProperties, Counters) \
  SIZE(HsaCounterProperties) \
  OFFSET(HsaCounterProperties, NumBlocks) \
  OFFSET(HsaCounterProperties, NumConcurrent) \
  OFFSET(HsaCounterProperties, Blocks) \
  SIZE(HsaPmcTraceRoot) \
  OFFSET(HsaPmcTraceRoot, TraceBufferMinSizeBytes) \
  OFFSET(HsaPmcTraceRoot, NumberOfPasses) \
  OFFSET(HsaPmcTraceRoot, TraceId) \
  SIZE(HsaGpuTileConfig) \
  OFFSET(HsaGpuTileConfig, TileConfig) \
  OFFSET(HsaGpuTileConfig, MacroTileConfig) \
  OFFSET(HsaGpuTileConfig, NumTileConfigs) \
  OFFSET(HsaGpuTileConfig, NumMacroTileConfigs) \
  OFFSET(HsaGpuTileConfig, GbAddrConfig) \
  OFFSET(HsaGpuTileConfig, NumBanks) \
  OFFSET(HsaGpuTileConfig, NumRanks) \
  OFFSET(HsaGpuTileConfig, Reserved) \
  SIZE(HsaPointerInfo) \
  OFFSET(HsaPointerInfo, Type) \
  OFFSET(HsaPointerInfo, Node) \
  OFFSET(HsaPointerInfo, MemFlags) \
  OFFSET(HsaPointerInfo, CPUAddress) \
  OFFSET(HsaPointerInfo, GPUAddress) \
  OFFSET(HsaPointerInfo, SizeInBytes) \
  OFFSET(HsaPointerInfo, NRegisteredNodes) \
  OFFSET(HsaPointerInfo, NMappedNodes) \
  OFFSET(HsaPointerInfo, RegisteredNodes) \
  OFFSET(HsaPointerInfo, MappedNodes) \
  OFFSET(HsaPointerInfo, UserData) \
  SIZE(HsaMemoryRange) \
  OFFSET(HsaMemoryRange, MemoryAddress) \
  OFFSET(HsaMemoryRange, SizeInBytes) \
  SIZE(HSA_SVM_ATTRIBUTE) \
  OFFSET(HSA_SVM_ATTRIBUTE, type) \
  OFFSET(HSA_SVM_ATTRIBUTE, value) \
  SIZE(HsaPcSamplingInfo) \
  OFFSET(HsaPcSamplingInfo, value) \
  OFFSET(HsaPcSamplingInfo, value_min) \
  OFFSET(HsaPcSamplingInfo, value_max) \
  OFFSET(HsaPcSamplingInfo, flags) \
  OFFSET(HsaPcSamplingInfo, method) \
  OFFSET(HsaPcSamplingInfo, units) \
  SIZE(HSA_REGISTER_MEM_FLAGS) \
  OFFSET(HSA_REGISTER_MEM_FLAGS, Value) \
  OFFSET(HSA_REGISTER_MEM_FLAGS, ui32)

#endif /* HKE_TESTS_API_ABI_LISTS_H_ */
