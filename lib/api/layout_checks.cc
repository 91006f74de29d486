// Compile-time checks of the public ABI layout (include/hsakmt/hsakmttypes.h).
//
// Every struct and union of the public headers is pinned here: its size,
// its alignment and the offset of every member that offsetof can name
// (bit-fields are checked at run time by tests/api/bitfield_test.cc). The
// values are upstream libhsakmt's, computed by the compiler from upstream's
// own headers; a mismatch means a consumer built against upstream headers
// would exchange different bytes with this library. This file has no code;
// it is part of lib/ only so that every target the library is built for
// (x86_64, aarch64, riscv64, armhf) runs the assertions.
//
// Everything in hsakmttypes.h is declared under `#pragma pack(4)`, so no
// member is aligned to more than 4 bytes on any target. That cancels the
// 8-byte alignment the ARM EABI gives 64-bit members on 32-bit ARM (and the
// i386-vs-x86_64 difference): the only thing that changes between targets
// is the size of pointers. LP64 targets (x86_64, aarch64, riscv64) share
// one layout; ILP32 targets (armhf) differ only in the types below.
//
//   type                           LP64  ILP32  members that hold pointers
//   HsaGraphicsResourceInfo          32     24  MemoryAddress, Metadata
//   HsaUserContextSaveAreaHeader     40     36  ErrorReason
//   HsaQueueInfo                     68     52  CUMaskInfo, UserContextSaveArea,
//                                               ControlStackTop, SaveAreaHeader
//   HsaQueueResource                 40     36  ErrorReason (the doorbell/rptr/wptr
//                                               unions stay 8 bytes: they hold a u64)
//   HsaQueueReport                   20     16  QueueAddress
//   HsaDbgWaveMessage                16     12  MemoryVA
//   HsaGpuTileConfig                 64     56  TileConfig, MacroTileConfig
//   HsaPointerInfo                   68     52  CPUAddress, RegisteredNodes,
//                                               MappedNodes, UserData
//   HsaMemoryRange                   16     12  MemoryAddress
//
// Types that hold a pointer only inside a union with a 64-bit integer
// (HsaSyncVar, so HsaEventDescriptor, HsaEventData and HsaEvent) keep their
// LP64 size on ILP32.
//
// Enums: every enum is 4 bytes except HSA_QUEUE_PRIORITY, which is 8 bytes
// (signed, holding -3..3 and 0xFFFFFFFF) in C and C++ on every target.
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "hsakmt/hsakmt.h"

#if UINTPTR_MAX == 0xFFFFFFFFFFFFFFFFu
#define HKE_LAYOUT_LP64 1
#elif UINTPTR_MAX == 0xFFFFFFFFu
#define HKE_LAYOUT_LP64 0
#else
#error "hsakmt-embedded supports 32-bit and 64-bit pointers only"
#endif

// Size and alignment of a record (every record is 4-byte aligned under
// pack(4)), and the offset of one member.
#define HKE_SIZE(T, n)                                                     \
  static_assert(sizeof(T) == (n), "sizeof(" #T ") differs from upstream"); \
  static_assert(alignof(T) == 4, "alignof(" #T ") is not 4: pack(4) lost")
#define HKE_OFFSET(T, member, n) \
  static_assert(offsetof(T, member) == (n), "offsetof(" #T ", " #member ") differs from upstream")

// ---- enums ----
static_assert(sizeof(HSA_QUEUE_PRIORITY) == 8, "HSA_QUEUE_PRIORITY must be 8 bytes");
static_assert(std::is_signed<std::underlying_type<HSA_QUEUE_PRIORITY>::type>::value,
              "HSA_QUEUE_PRIORITY must be signed");
static_assert(HSA_QUEUE_PRIORITY_MINIMUM == -3 && HSA_QUEUE_PRIORITY_MAXIMUM == 3 &&
                  HSA_QUEUE_PRIORITY_NUM_PRIORITY == 4 && HSA_QUEUE_PRIORITY_SIZE == 0xFFFFFFFF,
              "HSA_QUEUE_PRIORITY values");
#define HKE_ENUM4(T) static_assert(sizeof(T) == 4, "sizeof(" #T ") must be 4")
HKE_ENUM4(HSAKMT_STATUS);
HKE_ENUM4(HSA_HEAPTYPE);
HKE_ENUM4(HSA_IOLINKTYPE);
HKE_ENUM4(HSA_CACHING_TYPE);
HKE_ENUM4(HSA_PAGE_SIZE);
HKE_ENUM4(HSA_DEVICE);
HKE_ENUM4(HSA_QUEUE_TYPE);
HKE_ENUM4(HSA_DBG_WAVEOP);
HKE_ENUM4(HSA_DBG_WAVEMODE);
HKE_ENUM4(HSA_DBG_WAVEMSG_TYPE);
HKE_ENUM4(HSA_DBG_WATCH_MODE);
HKE_ENUM4(HSA_DBG_TRAP_OVERRIDE);
HKE_ENUM4(HSA_DBG_TRAP_MASK);
HKE_ENUM4(HSA_DBG_TRAP_EXCEPTION_CODE);
HKE_ENUM4(HSA_DBG_WAVE_LAUNCH_MODE);
HKE_ENUM4(HSA_DBG_NODE_CONTROL);
HKE_ENUM4(HSA_EVENTTYPE);
HKE_ENUM4(HSA_DEBUG_EVENT_TYPE);
HKE_ENUM4(HSA_EVENTTYPE_NODECHANGE_FLAGS);
HKE_ENUM4(HSA_EVENTTYPE_DEVICESTATECHANGE_FLAGS);
HKE_ENUM4(HSA_EVENTID_MEMORYFLAGS);
HKE_ENUM4(HSA_EVENTID_HW_EXCEPTION_CAUSE);
HKE_ENUM4(HsaEventTimeOut);
HKE_ENUM4(HSA_PROFILE_TYPE);
HKE_ENUM4(HSA_POINTER_TYPE);
HKE_ENUM4(HSA_SVM_FLAGS);
HKE_ENUM4(HSA_SVM_ATTR_TYPE);
HKE_ENUM4(HSA_EVENT_TYPE);
HKE_ENUM4(HSA_MIGRATE_TRIGGERS);
HKE_ENUM4(HSA_QUEUE_EVICTION_TRIGGERS);
HKE_ENUM4(HSA_SVM_UNMAP_TRIGGERS);
HKE_ENUM4(HSA_PC_SAMPLING_METHOD_KIND);
HKE_ENUM4(HSA_PC_SAMPLING_UNIT_INTERVAL);

// ---- scalar and array typedefs ----
static_assert(sizeof(HSA_QUEUEID) == 8 && sizeof(HSATraceId) == 8, "64-bit ids");
static_assert(sizeof(HSA_EVENTID) == 4 && sizeof(HsaPcSamplingTraceId) == 4, "32-bit ids");
static_assert(sizeof(HsaSharedMemoryHandle) == 32, "HsaSharedMemoryHandle is 8 x u32");
static_assert(HSA_PUBLIC_NAME_SIZE == 64 && HSA_CPU_SIBLINGS == 256, "array lengths");

// ---- records ----
// Identical on every target.
HKE_SIZE(HsaVersionInfo, 8);
HKE_OFFSET(HsaVersionInfo, KernelInterfaceMajorVersion, 0);
HKE_OFFSET(HsaVersionInfo, KernelInterfaceMinorVersion, 4);

HKE_SIZE(HsaSystemProperties, 16);
HKE_OFFSET(HsaSystemProperties, NumNodes, 0);
HKE_OFFSET(HsaSystemProperties, PlatformOem, 4);
HKE_OFFSET(HsaSystemProperties, PlatformId, 8);
HKE_OFFSET(HsaSystemProperties, PlatformRev, 12);

HKE_SIZE(HSA_ENGINE_ID, 4);
HKE_OFFSET(HSA_ENGINE_ID, Value, 0);
HKE_OFFSET(HSA_ENGINE_ID, ui32, 0);

HKE_SIZE(HSA_ENGINE_VERSION, 4);
HKE_OFFSET(HSA_ENGINE_VERSION, Value, 0);

HKE_SIZE(HSA_CAPABILITY, 4);
HKE_OFFSET(HSA_CAPABILITY, Value, 0);
HKE_OFFSET(HSA_CAPABILITY, ui32, 0);

HKE_SIZE(HSA_CAPABILITY2, 4);
HKE_OFFSET(HSA_CAPABILITY2, Value, 0);
HKE_OFFSET(HSA_CAPABILITY2, ui32, 0);

HKE_SIZE(HSA_DEBUG_PROPERTIES, 8);
HKE_OFFSET(HSA_DEBUG_PROPERTIES, Value, 0);

HKE_SIZE(HsaNodeProperties, 368);
HKE_OFFSET(HsaNodeProperties, NumCPUCores, 0);
HKE_OFFSET(HsaNodeProperties, NumFComputeCores, 4);
HKE_OFFSET(HsaNodeProperties, NumNeuralCores, 8);
HKE_OFFSET(HsaNodeProperties, NumMemoryBanks, 12);
HKE_OFFSET(HsaNodeProperties, NumCaches, 16);
HKE_OFFSET(HsaNodeProperties, NumIOLinks, 20);
HKE_OFFSET(HsaNodeProperties, CComputeIdLo, 24);
HKE_OFFSET(HsaNodeProperties, FComputeIdLo, 28);
HKE_OFFSET(HsaNodeProperties, Capability, 32);
HKE_OFFSET(HsaNodeProperties, Capability2, 36);
HKE_OFFSET(HsaNodeProperties, MaxWavesPerSIMD, 40);
HKE_OFFSET(HsaNodeProperties, LDSSizeInKB, 44);
HKE_OFFSET(HsaNodeProperties, GDSSizeInKB, 48);
HKE_OFFSET(HsaNodeProperties, WaveFrontSize, 52);
HKE_OFFSET(HsaNodeProperties, NumShaderBanks, 56);
HKE_OFFSET(HsaNodeProperties, NumArrays, 60);
HKE_OFFSET(HsaNodeProperties, NumCUPerArray, 64);
HKE_OFFSET(HsaNodeProperties, NumSIMDPerCU, 68);
HKE_OFFSET(HsaNodeProperties, MaxSlotsScratchCU, 72);
HKE_OFFSET(HsaNodeProperties, EngineId, 76);
HKE_OFFSET(HsaNodeProperties, OverrideEngineId, 80);
HKE_OFFSET(HsaNodeProperties, VendorId, 84);
HKE_OFFSET(HsaNodeProperties, DeviceId, 86);
HKE_OFFSET(HsaNodeProperties, LocationId, 88);
HKE_OFFSET(HsaNodeProperties, LocalMemSize, 92);
HKE_OFFSET(HsaNodeProperties, MaxEngineClockMhzFCompute, 100);
HKE_OFFSET(HsaNodeProperties, MaxEngineClockMhzCCompute, 104);
HKE_OFFSET(HsaNodeProperties, DrmRenderMinor, 108);
HKE_OFFSET(HsaNodeProperties, MarketingName, 112);
HKE_OFFSET(HsaNodeProperties, AMDName, 240);
HKE_OFFSET(HsaNodeProperties, uCodeEngineVersions, 304);
HKE_OFFSET(HsaNodeProperties, DebugProperties, 308);
HKE_OFFSET(HsaNodeProperties, HiveID, 316);
HKE_OFFSET(HsaNodeProperties, NumSdmaEngines, 324);
HKE_OFFSET(HsaNodeProperties, NumSdmaXgmiEngines, 328);
HKE_OFFSET(HsaNodeProperties, NumSdmaQueuesPerEngine, 332);
HKE_OFFSET(HsaNodeProperties, NumCpQueues, 333);
HKE_OFFSET(HsaNodeProperties, NumGws, 334);
HKE_OFFSET(HsaNodeProperties, Integrated, 335);
HKE_OFFSET(HsaNodeProperties, Domain, 336);
HKE_OFFSET(HsaNodeProperties, UniqueID, 340);
HKE_OFFSET(HsaNodeProperties, VGPRSizePerCU, 348);
HKE_OFFSET(HsaNodeProperties, SGPRSizePerCU, 352);
HKE_OFFSET(HsaNodeProperties, NumXcc, 356);
HKE_OFFSET(HsaNodeProperties, KFDGpuID, 360);
HKE_OFFSET(HsaNodeProperties, FamilyID, 364);

HKE_SIZE(HSA_MEMORYPROPERTY, 4);
HKE_OFFSET(HSA_MEMORYPROPERTY, MemoryProperty, 0);
HKE_OFFSET(HSA_MEMORYPROPERTY, ui32, 0);

HKE_SIZE(HsaMemoryProperties, 32);
HKE_OFFSET(HsaMemoryProperties, HeapType, 0);
HKE_OFFSET(HsaMemoryProperties, SizeInBytes, 4);
HKE_OFFSET(HsaMemoryProperties, ui32, 4);
HKE_OFFSET(HsaMemoryProperties, Flags, 12);
HKE_OFFSET(HsaMemoryProperties, Width, 16);
HKE_OFFSET(HsaMemoryProperties, MemoryClockMax, 20);
HKE_OFFSET(HsaMemoryProperties, VirtualBaseAddress, 24);

HKE_SIZE(HsaCacheType, 4);
HKE_OFFSET(HsaCacheType, Value, 0);
HKE_OFFSET(HsaCacheType, ui32, 0);

HKE_SIZE(HsaCacheProperties, 1056);
HKE_OFFSET(HsaCacheProperties, ProcessorIdLow, 0);
HKE_OFFSET(HsaCacheProperties, CacheLevel, 4);
HKE_OFFSET(HsaCacheProperties, CacheSize, 8);
HKE_OFFSET(HsaCacheProperties, CacheLineSize, 12);
HKE_OFFSET(HsaCacheProperties, CacheLinesPerTag, 16);
HKE_OFFSET(HsaCacheProperties, CacheAssociativity, 20);
HKE_OFFSET(HsaCacheProperties, CacheLatency, 24);
HKE_OFFSET(HsaCacheProperties, CacheType, 28);
HKE_OFFSET(HsaCacheProperties, SiblingMap, 32);

HKE_SIZE(HsaCComputeProperties, 1024);
HKE_OFFSET(HsaCComputeProperties, SiblingMap, 0);

HKE_SIZE(HSA_LINKPROPERTY, 4);
HKE_OFFSET(HSA_LINKPROPERTY, LinkProperty, 0);
HKE_OFFSET(HSA_LINKPROPERTY, ui32, 0);

HKE_SIZE(HsaIoLinkProperties, 52);
HKE_OFFSET(HsaIoLinkProperties, IoLinkType, 0);
HKE_OFFSET(HsaIoLinkProperties, VersionMajor, 4);
HKE_OFFSET(HsaIoLinkProperties, VersionMinor, 8);
HKE_OFFSET(HsaIoLinkProperties, NodeFrom, 12);
HKE_OFFSET(HsaIoLinkProperties, NodeTo, 16);
HKE_OFFSET(HsaIoLinkProperties, Weight, 20);
HKE_OFFSET(HsaIoLinkProperties, MinimumLatency, 24);
HKE_OFFSET(HsaIoLinkProperties, MaximumLatency, 28);
HKE_OFFSET(HsaIoLinkProperties, MinimumBandwidth, 32);
HKE_OFFSET(HsaIoLinkProperties, MaximumBandwidth, 36);
HKE_OFFSET(HsaIoLinkProperties, RecTransferSize, 40);
HKE_OFFSET(HsaIoLinkProperties, RecSdmaEngIdMask, 44);
HKE_OFFSET(HsaIoLinkProperties, Flags, 48);

HKE_SIZE(HsaMemFlags, 4);
HKE_OFFSET(HsaMemFlags, ui32, 0);
HKE_OFFSET(HsaMemFlags, Value, 0);

HKE_SIZE(HsaMemMapFlags, 4);
HKE_OFFSET(HsaMemMapFlags, ui32, 0);
HKE_OFFSET(HsaMemMapFlags, Value, 0);

HKE_SIZE(HsaDbgWaveMsgAMDGen2, 8);
HKE_OFFSET(HsaDbgWaveMsgAMDGen2, Value, 0);
HKE_OFFSET(HsaDbgWaveMsgAMDGen2, Reserved2, 4);

HKE_SIZE(HsaDbgWaveMessageAMD, 8);
HKE_OFFSET(HsaDbgWaveMessageAMD, WaveMsgInfoGen2, 0);

HKE_SIZE(HsaSyncVar, 16);
HKE_OFFSET(HsaSyncVar, SyncVar, 0);
HKE_OFFSET(HsaSyncVar, SyncVarSize, 8);

HKE_SIZE(HsaNodeChange, 4);
HKE_OFFSET(HsaNodeChange, Flags, 0);

HKE_SIZE(HsaDeviceStateChange, 12);
HKE_OFFSET(HsaDeviceStateChange, NodeId, 0);
HKE_OFFSET(HsaDeviceStateChange, Device, 4);
HKE_OFFSET(HsaDeviceStateChange, Flags, 8);

HKE_SIZE(HsaAccessAttributeFailure, 4);

HKE_SIZE(HsaMemoryAccessFault, 20);
HKE_OFFSET(HsaMemoryAccessFault, NodeId, 0);
HKE_OFFSET(HsaMemoryAccessFault, VirtualAddress, 4);
HKE_OFFSET(HsaMemoryAccessFault, Failure, 12);
HKE_OFFSET(HsaMemoryAccessFault, Flags, 16);

HKE_SIZE(HsaHwException, 16);
HKE_OFFSET(HsaHwException, NodeId, 0);
HKE_OFFSET(HsaHwException, ResetType, 4);
HKE_OFFSET(HsaHwException, MemoryLost, 8);
HKE_OFFSET(HsaHwException, ResetCause, 12);

HKE_SIZE(HsaEventData, 44);
HKE_OFFSET(HsaEventData, EventType, 0);
HKE_OFFSET(HsaEventData, EventData, 4);
HKE_OFFSET(HsaEventData, HWData1, 24);
HKE_OFFSET(HsaEventData, HWData2, 32);
HKE_OFFSET(HsaEventData, HWData3, 40);

HKE_SIZE(HsaEventDescriptor, 24);
HKE_OFFSET(HsaEventDescriptor, EventType, 0);
HKE_OFFSET(HsaEventDescriptor, NodeId, 4);
HKE_OFFSET(HsaEventDescriptor, SyncVar, 8);

HKE_SIZE(HsaEvent, 48);
HKE_OFFSET(HsaEvent, EventId, 0);
HKE_OFFSET(HsaEvent, EventData, 4);

HKE_SIZE(HsaClockCounters, 32);
HKE_OFFSET(HsaClockCounters, GPUClockCounter, 0);
HKE_OFFSET(HsaClockCounters, CPUClockCounter, 8);
HKE_OFFSET(HsaClockCounters, SystemClockCounter, 16);
HKE_OFFSET(HsaClockCounters, SystemClockFrequencyHz, 24);

HKE_SIZE(HSA_UUID, 16);
HKE_OFFSET(HSA_UUID, Data1, 0);
HKE_OFFSET(HSA_UUID, Data2, 4);
HKE_OFFSET(HSA_UUID, Data3, 6);
HKE_OFFSET(HSA_UUID, Data4, 8);

HKE_SIZE(HsaCounterFlags, 4);
HKE_OFFSET(HsaCounterFlags, ui32, 0);
HKE_OFFSET(HsaCounterFlags, Value, 0);

HKE_SIZE(HsaCounter, 32);
HKE_OFFSET(HsaCounter, Type, 0);
HKE_OFFSET(HsaCounter, CounterId, 4);
HKE_OFFSET(HsaCounter, CounterSizeInBits, 12);
HKE_OFFSET(HsaCounter, CounterMask, 16);
HKE_OFFSET(HsaCounter, Flags, 24);
HKE_OFFSET(HsaCounter, BlockIndex, 28);

HKE_SIZE(HsaCounterBlockProperties, 56);
HKE_OFFSET(HsaCounterBlockProperties, BlockId, 0);
HKE_OFFSET(HsaCounterBlockProperties, NumCounters, 16);
HKE_OFFSET(HsaCounterBlockProperties, NumConcurrent, 20);
HKE_OFFSET(HsaCounterBlockProperties, Counters, 24);

HKE_SIZE(HsaCounterProperties, 64);
HKE_OFFSET(HsaCounterProperties, NumBlocks, 0);
HKE_OFFSET(HsaCounterProperties, NumConcurrent, 4);
HKE_OFFSET(HsaCounterProperties, Blocks, 8);

HKE_SIZE(HsaPmcTraceRoot, 20);
HKE_OFFSET(HsaPmcTraceRoot, TraceBufferMinSizeBytes, 0);
HKE_OFFSET(HsaPmcTraceRoot, NumberOfPasses, 8);
HKE_OFFSET(HsaPmcTraceRoot, TraceId, 12);

HKE_SIZE(HSA_SVM_ATTRIBUTE, 8);
HKE_OFFSET(HSA_SVM_ATTRIBUTE, type, 0);
HKE_OFFSET(HSA_SVM_ATTRIBUTE, value, 4);

HKE_SIZE(HsaPcSamplingInfo, 40);
HKE_OFFSET(HsaPcSamplingInfo, value, 0);
HKE_OFFSET(HsaPcSamplingInfo, value_min, 8);
HKE_OFFSET(HsaPcSamplingInfo, value_max, 16);
HKE_OFFSET(HsaPcSamplingInfo, flags, 24);
HKE_OFFSET(HsaPcSamplingInfo, method, 32);
HKE_OFFSET(HsaPcSamplingInfo, units, 36);

HKE_SIZE(HSA_REGISTER_MEM_FLAGS, 4);
HKE_OFFSET(HSA_REGISTER_MEM_FLAGS, Value, 0);
HKE_OFFSET(HSA_REGISTER_MEM_FLAGS, ui32, 0);

#if HKE_LAYOUT_LP64
// LP64: x86_64, aarch64, riscv64.
HKE_SIZE(HsaGraphicsResourceInfo, 32);
HKE_OFFSET(HsaGraphicsResourceInfo, MemoryAddress, 0);
HKE_OFFSET(HsaGraphicsResourceInfo, SizeInBytes, 8);
HKE_OFFSET(HsaGraphicsResourceInfo, Metadata, 16);
HKE_OFFSET(HsaGraphicsResourceInfo, MetadataSizeInBytes, 24);
HKE_OFFSET(HsaGraphicsResourceInfo, NodeId, 28);

HKE_SIZE(HsaUserContextSaveAreaHeader, 40);
HKE_OFFSET(HsaUserContextSaveAreaHeader, ControlStackOffset, 0);
HKE_OFFSET(HsaUserContextSaveAreaHeader, ControlStackSize, 4);
HKE_OFFSET(HsaUserContextSaveAreaHeader, WaveStateOffset, 8);
HKE_OFFSET(HsaUserContextSaveAreaHeader, WaveStateSize, 12);
HKE_OFFSET(HsaUserContextSaveAreaHeader, DebugOffset, 16);
HKE_OFFSET(HsaUserContextSaveAreaHeader, DebugSize, 20);
HKE_OFFSET(HsaUserContextSaveAreaHeader, ErrorReason, 24);
HKE_OFFSET(HsaUserContextSaveAreaHeader, ErrorEventId, 32);
HKE_OFFSET(HsaUserContextSaveAreaHeader, Reserved1, 36);

HKE_SIZE(HsaQueueInfo, 68);
HKE_OFFSET(HsaQueueInfo, QueueDetailError, 0);
HKE_OFFSET(HsaQueueInfo, QueueTypeExtended, 4);
HKE_OFFSET(HsaQueueInfo, NumCUAssigned, 8);
HKE_OFFSET(HsaQueueInfo, CUMaskInfo, 12);
HKE_OFFSET(HsaQueueInfo, UserContextSaveArea, 20);
HKE_OFFSET(HsaQueueInfo, SaveAreaSizeInBytes, 28);
HKE_OFFSET(HsaQueueInfo, ControlStackTop, 36);
HKE_OFFSET(HsaQueueInfo, ControlStackUsedInBytes, 44);
HKE_OFFSET(HsaQueueInfo, SaveAreaHeader, 52);
HKE_OFFSET(HsaQueueInfo, Reserved2, 60);

HKE_SIZE(HsaQueueResource, 40);
HKE_OFFSET(HsaQueueResource, QueueId, 0);
HKE_OFFSET(HsaQueueResource, Queue_DoorBell, 8);
HKE_OFFSET(HsaQueueResource, Queue_DoorBell_aql, 8);
HKE_OFFSET(HsaQueueResource, QueueDoorBell, 8);
HKE_OFFSET(HsaQueueResource, Queue_write_ptr, 16);
HKE_OFFSET(HsaQueueResource, Queue_write_ptr_aql, 16);
HKE_OFFSET(HsaQueueResource, QueueWptrValue, 16);
HKE_OFFSET(HsaQueueResource, Queue_read_ptr, 24);
HKE_OFFSET(HsaQueueResource, Queue_read_ptr_aql, 24);
HKE_OFFSET(HsaQueueResource, QueueRptrValue, 24);
HKE_OFFSET(HsaQueueResource, ErrorReason, 32);

HKE_SIZE(HsaQueueReport, 20);
HKE_OFFSET(HsaQueueReport, VMID, 0);
HKE_OFFSET(HsaQueueReport, QueueAddress, 4);
HKE_OFFSET(HsaQueueReport, QueueSize, 12);

HKE_SIZE(HsaDbgWaveMessage, 16);
HKE_OFFSET(HsaDbgWaveMessage, MemoryVA, 0);
HKE_OFFSET(HsaDbgWaveMessage, DbgWaveMsg, 8);

HKE_SIZE(HsaGpuTileConfig, 64);
HKE_OFFSET(HsaGpuTileConfig, TileConfig, 0);
HKE_OFFSET(HsaGpuTileConfig, MacroTileConfig, 8);
HKE_OFFSET(HsaGpuTileConfig, NumTileConfigs, 16);
HKE_OFFSET(HsaGpuTileConfig, NumMacroTileConfigs, 20);
HKE_OFFSET(HsaGpuTileConfig, GbAddrConfig, 24);
HKE_OFFSET(HsaGpuTileConfig, NumBanks, 28);
HKE_OFFSET(HsaGpuTileConfig, NumRanks, 32);
HKE_OFFSET(HsaGpuTileConfig, Reserved, 36);

HKE_SIZE(HsaPointerInfo, 68);
HKE_OFFSET(HsaPointerInfo, Type, 0);
HKE_OFFSET(HsaPointerInfo, Node, 4);
HKE_OFFSET(HsaPointerInfo, MemFlags, 8);
HKE_OFFSET(HsaPointerInfo, CPUAddress, 12);
HKE_OFFSET(HsaPointerInfo, GPUAddress, 20);
HKE_OFFSET(HsaPointerInfo, SizeInBytes, 28);
HKE_OFFSET(HsaPointerInfo, NRegisteredNodes, 36);
HKE_OFFSET(HsaPointerInfo, NMappedNodes, 40);
HKE_OFFSET(HsaPointerInfo, RegisteredNodes, 44);
HKE_OFFSET(HsaPointerInfo, MappedNodes, 52);
HKE_OFFSET(HsaPointerInfo, UserData, 60);

HKE_SIZE(HsaMemoryRange, 16);
HKE_OFFSET(HsaMemoryRange, MemoryAddress, 0);
HKE_OFFSET(HsaMemoryRange, SizeInBytes, 8);

#else  // HKE_LAYOUT_LP64
// ILP32: armhf.
HKE_SIZE(HsaGraphicsResourceInfo, 24);
HKE_OFFSET(HsaGraphicsResourceInfo, MemoryAddress, 0);
HKE_OFFSET(HsaGraphicsResourceInfo, SizeInBytes, 4);
HKE_OFFSET(HsaGraphicsResourceInfo, Metadata, 12);
HKE_OFFSET(HsaGraphicsResourceInfo, MetadataSizeInBytes, 16);
HKE_OFFSET(HsaGraphicsResourceInfo, NodeId, 20);

HKE_SIZE(HsaUserContextSaveAreaHeader, 36);
HKE_OFFSET(HsaUserContextSaveAreaHeader, ControlStackOffset, 0);
HKE_OFFSET(HsaUserContextSaveAreaHeader, ControlStackSize, 4);
HKE_OFFSET(HsaUserContextSaveAreaHeader, WaveStateOffset, 8);
HKE_OFFSET(HsaUserContextSaveAreaHeader, WaveStateSize, 12);
HKE_OFFSET(HsaUserContextSaveAreaHeader, DebugOffset, 16);
HKE_OFFSET(HsaUserContextSaveAreaHeader, DebugSize, 20);
HKE_OFFSET(HsaUserContextSaveAreaHeader, ErrorReason, 24);
HKE_OFFSET(HsaUserContextSaveAreaHeader, ErrorEventId, 28);
HKE_OFFSET(HsaUserContextSaveAreaHeader, Reserved1, 32);

HKE_SIZE(HsaQueueInfo, 52);
HKE_OFFSET(HsaQueueInfo, QueueDetailError, 0);
HKE_OFFSET(HsaQueueInfo, QueueTypeExtended, 4);
HKE_OFFSET(HsaQueueInfo, NumCUAssigned, 8);
HKE_OFFSET(HsaQueueInfo, CUMaskInfo, 12);
HKE_OFFSET(HsaQueueInfo, UserContextSaveArea, 16);
HKE_OFFSET(HsaQueueInfo, SaveAreaSizeInBytes, 20);
HKE_OFFSET(HsaQueueInfo, ControlStackTop, 28);
HKE_OFFSET(HsaQueueInfo, ControlStackUsedInBytes, 32);
HKE_OFFSET(HsaQueueInfo, SaveAreaHeader, 40);
HKE_OFFSET(HsaQueueInfo, Reserved2, 44);

HKE_SIZE(HsaQueueResource, 36);
HKE_OFFSET(HsaQueueResource, QueueId, 0);
HKE_OFFSET(HsaQueueResource, Queue_DoorBell, 8);
HKE_OFFSET(HsaQueueResource, Queue_DoorBell_aql, 8);
HKE_OFFSET(HsaQueueResource, QueueDoorBell, 8);
HKE_OFFSET(HsaQueueResource, Queue_write_ptr, 16);
HKE_OFFSET(HsaQueueResource, Queue_write_ptr_aql, 16);
HKE_OFFSET(HsaQueueResource, QueueWptrValue, 16);
HKE_OFFSET(HsaQueueResource, Queue_read_ptr, 24);
HKE_OFFSET(HsaQueueResource, Queue_read_ptr_aql, 24);
HKE_OFFSET(HsaQueueResource, QueueRptrValue, 24);
HKE_OFFSET(HsaQueueResource, ErrorReason, 32);

HKE_SIZE(HsaQueueReport, 16);
HKE_OFFSET(HsaQueueReport, VMID, 0);
HKE_OFFSET(HsaQueueReport, QueueAddress, 4);
HKE_OFFSET(HsaQueueReport, QueueSize, 8);

HKE_SIZE(HsaDbgWaveMessage, 12);
HKE_OFFSET(HsaDbgWaveMessage, MemoryVA, 0);
HKE_OFFSET(HsaDbgWaveMessage, DbgWaveMsg, 4);

HKE_SIZE(HsaGpuTileConfig, 56);
HKE_OFFSET(HsaGpuTileConfig, TileConfig, 0);
HKE_OFFSET(HsaGpuTileConfig, MacroTileConfig, 4);
HKE_OFFSET(HsaGpuTileConfig, NumTileConfigs, 8);
HKE_OFFSET(HsaGpuTileConfig, NumMacroTileConfigs, 12);
HKE_OFFSET(HsaGpuTileConfig, GbAddrConfig, 16);
HKE_OFFSET(HsaGpuTileConfig, NumBanks, 20);
HKE_OFFSET(HsaGpuTileConfig, NumRanks, 24);
HKE_OFFSET(HsaGpuTileConfig, Reserved, 28);

HKE_SIZE(HsaPointerInfo, 52);
HKE_OFFSET(HsaPointerInfo, Type, 0);
HKE_OFFSET(HsaPointerInfo, Node, 4);
HKE_OFFSET(HsaPointerInfo, MemFlags, 8);
HKE_OFFSET(HsaPointerInfo, CPUAddress, 12);
HKE_OFFSET(HsaPointerInfo, GPUAddress, 16);
HKE_OFFSET(HsaPointerInfo, SizeInBytes, 24);
HKE_OFFSET(HsaPointerInfo, NRegisteredNodes, 32);
HKE_OFFSET(HsaPointerInfo, NMappedNodes, 36);
HKE_OFFSET(HsaPointerInfo, RegisteredNodes, 40);
HKE_OFFSET(HsaPointerInfo, MappedNodes, 44);
HKE_OFFSET(HsaPointerInfo, UserData, 48);

HKE_SIZE(HsaMemoryRange, 12);
HKE_OFFSET(HsaMemoryRange, MemoryAddress, 0);
HKE_OFFSET(HsaMemoryRange, SizeInBytes, 4);

#endif  // HKE_LAYOUT_LP64
