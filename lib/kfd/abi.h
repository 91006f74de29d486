// The KFD ioctl ABI (/dev/kfd, ioctl type 'K') up to KFD 1.19, plus the
// DKMS-only requests 0x80..0x85.
//
// These are this project's own definitions of the kernel's argument
// structures. Field names follow the kernel's spelling so that offsets can
// be cross-checked field by field against <linux/kfd_ioctl.h> in tests;
// type names are ours. Every structure has a static_assert on its size: all
// members are fixed-width and 64-bit members are naturally aligned, so the
// layout is the same on x86_64, arm64, riscv64 and armhf (EABI aligns
// uint64_t to 8). 32-bit x86 would differ and is not a supported target.
//
// Direction comments: "in" = user to kernel, "out" = kernel to user.
// Pointers travel as uint64_t user addresses.
//
// Pure data, no state: safe to use from any thread.
#ifndef HKE_LIB_KFD_ABI_H_
#define HKE_LIB_KFD_ABI_H_

#include <cstddef>
#include <cstdint>

#include "lib/kfd/ioc.h"
#include "lib/kfd/ioctl_list.h"

namespace hke::kfd {

// ---------------------------------------------------------------------------
// Versions
// ---------------------------------------------------------------------------

constexpr uint32_t kKfdMajorVersion = 1;
// The newest minor this library knows the ABI of.
constexpr uint32_t kKfdNewestKnownMinor = 19;

// Minor versions that introduced a feature the library tests for.
constexpr uint32_t kMinorSmiEvents = 3;
constexpr uint32_t kMinorSvm = 5;
constexpr uint32_t kMinorSvmClearFlagsQuery = 6;
constexpr uint32_t kMinorCriu = 7;
constexpr uint32_t kMinorAvailableMemory = 9;
constexpr uint32_t kMinorSmiProfilerLog = 10;
constexpr uint32_t kMinorCwsrUnifiedMemory = 11;
constexpr uint32_t kMinorExportDmabuf = 12;
constexpr uint32_t kMinorDebugger = 13;
constexpr uint32_t kMinorEventAge = 14;
constexpr uint32_t kMinorGemVaInComputeVm = 15;
constexpr uint32_t kMinorContiguousVram = 16;
// DKMS kernels serve PC_SAMPLE (0x85) from the same minor on; upstream's
// hsaKmtPcSamplingSupport and QueryCapabilities check it.
constexpr uint32_t kMinorPcSampling = 16;
constexpr uint32_t kMinorSdmaByEngineId = 17;
constexpr uint32_t kMinorMiscProcessFlag = 18;
constexpr uint32_t kMinorCreateProcess = 19;

// ---------------------------------------------------------------------------
// 0x01 GET_VERSION
// ---------------------------------------------------------------------------

struct GetVersionArgs {
  uint32_t major_version;  // out
  uint32_t minor_version;  // out
};
static_assert(sizeof(GetVersionArgs) == 8);

// ---------------------------------------------------------------------------
// Queues: 0x02 CREATE_QUEUE, 0x03 DESTROY_QUEUE, 0x07 UPDATE_QUEUE,
// 0x1A SET_CU_MASK, 0x1B GET_QUEUE_WAVE_STATE, 0x1E ALLOC_QUEUE_GWS
// ---------------------------------------------------------------------------

constexpr uint32_t kQueueTypeCompute = 0;      // PM4 compute
constexpr uint32_t kQueueTypeSdma = 1;
constexpr uint32_t kQueueTypeComputeAql = 2;
constexpr uint32_t kQueueTypeSdmaXgmi = 3;
constexpr uint32_t kQueueTypeSdmaByEngId = 4;  // KFD 1.17; engine in sdma_engine_id
constexpr uint32_t kQueueTypeLast = kQueueTypeSdmaByEngId;

constexpr uint32_t kMaxQueuePercentage = 100;  // low 8 bits of queue_percentage
constexpr uint32_t kMaxQueuePriority = 15;
// The kernel clamps smaller nonzero ring sizes up to this.
constexpr uint32_t kMinQueueRingSize = 1024;

struct CreateQueueArgs {
  uint64_t ring_base_address;         // in
  uint64_t write_pointer_address;     // in
  uint64_t read_pointer_address;      // in
  uint64_t doorbell_offset;           // out: mmap offset of the doorbell
  uint32_t ring_size;                 // in, bytes, power of two
  uint32_t gpu_id;                    // in
  uint32_t queue_type;                // in, kQueueType*
  uint32_t queue_percentage;          // in, bits 0-7 percent, 8-15 PM4 target XCC
  uint32_t queue_priority;            // in, 0..15
  uint32_t queue_id;                  // out
  uint64_t eop_buffer_address;        // in
  uint64_t eop_buffer_size;           // in
  uint64_t ctx_save_restore_address;  // in
  uint32_t ctx_save_restore_size;     // in, per XCC
  uint32_t ctl_stack_size;            // in
  uint32_t sdma_engine_id;            // in, KFD 1.17 (SDMA_BY_ENG_ID only)
  uint32_t pad;
};
static_assert(sizeof(CreateQueueArgs) == 96);
// Size of the structure before KFD 1.17 added sdma_engine_id and pad.
constexpr size_t kCreateQueueArgsSizeV11 = 88;

struct DestroyQueueArgs {
  uint32_t queue_id;  // in
  uint32_t pad;
};
static_assert(sizeof(DestroyQueueArgs) == 8);

struct UpdateQueueArgs {
  uint64_t ring_base_address;  // in
  uint32_t queue_id;           // in
  uint32_t ring_size;          // in
  uint32_t queue_percentage;   // in
  uint32_t queue_priority;     // in
};
static_assert(sizeof(UpdateQueueArgs) == 24);

// The kernel truncates masks longer than this many bits.
constexpr uint32_t kMaxCuMaskBits = 1024;

struct SetCuMaskArgs {
  uint32_t queue_id;     // in
  uint32_t num_cu_mask;  // in, bits; nonzero multiple of 32
  uint64_t cu_mask_ptr;  // in, array of num_cu_mask / 32 uint32_t
};
static_assert(sizeof(SetCuMaskArgs) == 16);

struct GetQueueWaveStateArgs {
  uint64_t ctl_stack_address;    // in
  uint32_t ctl_stack_used_size;  // out
  uint32_t save_area_used_size;  // out
  uint32_t queue_id;             // in
  uint32_t pad;
};
static_assert(sizeof(GetQueueWaveStateArgs) == 24);

struct AllocQueueGwsArgs {
  uint32_t queue_id;   // in
  uint32_t num_gws;    // in
  uint32_t first_gws;  // out
  uint32_t pad;
};
static_assert(sizeof(AllocQueueGwsArgs) == 16);

// ---------------------------------------------------------------------------
// 0x04 SET_MEMORY_POLICY
// ---------------------------------------------------------------------------

constexpr uint32_t kCachePolicyCoherent = 0;
constexpr uint32_t kCachePolicyNonCoherent = 1;
// misc_process_flag bits (KFD 1.18).
constexpr uint32_t kProcFlagMfmaHighPrecision = 1u << 0;

struct SetMemoryPolicyArgs {
  uint64_t alternate_aperture_base;  // in
  uint64_t alternate_aperture_size;  // in
  uint32_t gpu_id;                   // in
  uint32_t default_policy;           // in, kCachePolicy*
  uint32_t alternate_policy;         // in, kCachePolicy*
  uint32_t misc_process_flag;        // in, KFD 1.18 (was padding)
};
static_assert(sizeof(SetMemoryPolicyArgs) == 32);

// ---------------------------------------------------------------------------
// 0x05 GET_CLOCK_COUNTERS
// ---------------------------------------------------------------------------

struct GetClockCountersArgs {
  uint64_t gpu_clock_counter;     // out
  uint64_t cpu_clock_counter;     // out, CLOCK_MONOTONIC_RAW ns
  uint64_t system_clock_counter;  // out, CLOCK_BOOTTIME ns
  uint64_t system_clock_freq;     // out, Hz
  uint32_t gpu_id;                // in
  uint32_t pad;
};
static_assert(sizeof(GetClockCountersArgs) == 40);

// ---------------------------------------------------------------------------
// Apertures: 0x06 GET_PROCESS_APERTURES (old, at most 7 GPUs),
// 0x14 GET_PROCESS_APERTURES_NEW
// ---------------------------------------------------------------------------

struct ProcessDeviceApertures {
  uint64_t lds_base;       // out
  uint64_t lds_limit;      // out, inclusive
  uint64_t scratch_base;   // out
  uint64_t scratch_limit;  // out, inclusive
  uint64_t gpuvm_base;     // out
  uint64_t gpuvm_limit;    // out, inclusive
  uint32_t gpu_id;         // out
  uint32_t pad;
};
static_assert(sizeof(ProcessDeviceApertures) == 56);

constexpr uint32_t kOldAperturesMaxGpus = 7;

struct GetProcessAperturesArgs {
  ProcessDeviceApertures process_apertures[kOldAperturesMaxGpus];  // out
  uint32_t num_of_nodes;                                            // out, 1..7
  uint32_t pad;
};
static_assert(sizeof(GetProcessAperturesArgs) == 400);

struct GetProcessAperturesNewArgs {
  uint64_t kfd_process_device_apertures_ptr;  // in, array of ProcessDeviceApertures
  uint32_t num_of_nodes;  // in: array capacity (0 = count only); out: entries
  uint32_t pad;
};
static_assert(sizeof(GetProcessAperturesNewArgs) == 16);

// ---------------------------------------------------------------------------
// Events: 0x08 CREATE_EVENT, 0x09 DESTROY_EVENT, 0x0A SET_EVENT,
// 0x0B RESET_EVENT, 0x0C WAIT_EVENTS
// ---------------------------------------------------------------------------

// Event types (the same numbering as HSA_EVENTTYPE).
constexpr uint32_t kEventSignal = 0;
constexpr uint32_t kEventNodeChange = 1;
constexpr uint32_t kEventDeviceStateChange = 2;
constexpr uint32_t kEventHwException = 3;
constexpr uint32_t kEventSystemEvent = 4;
constexpr uint32_t kEventDebugEvent = 5;
constexpr uint32_t kEventProfileEvent = 6;
constexpr uint32_t kEventQueueEvent = 7;
constexpr uint32_t kEventMemory = 8;
constexpr uint32_t kEventTypeLast = kEventMemory;

constexpr uint32_t kWaitResultComplete = 0;
constexpr uint32_t kWaitResultTimeout = 1;
constexpr uint32_t kWaitResultFail = 2;

// Signal-event slots in the event page (8 bytes each); slot 0 / id 0 is
// reserved, so signal ids are 1..4095.
constexpr uint32_t kSignalEventLimit = 4096;
constexpr uint32_t kEventSlotSize = 8;

// hw_exception_data.reset_type / reset_cause
constexpr uint32_t kHwExceptionWholeGpuReset = 0;
constexpr uint32_t kHwExceptionPerEngineReset = 1;
constexpr uint32_t kHwExceptionGpuHang = 0;
constexpr uint32_t kHwExceptionEcc = 1;

// memory_exception_data.ErrorType
constexpr uint32_t kMemErrNoRas = 0;
constexpr uint32_t kMemErrSramEcc = 1;
constexpr uint32_t kMemErrPoisonConsumed = 2;
constexpr uint32_t kMemErrGpuHang = 3;

// Value meaning "no file descriptor" in fd fields.
constexpr uint32_t kInvalidFd = 0xFFFFFFFFu;

struct CreateEventArgs {
  uint64_t event_page_offset;   // in: KFD handle of the user event page (dGPU) / out: mmap offset
  uint32_t event_trigger_data;  // out, signal events only
  uint32_t event_type;          // in, kEvent*
  uint32_t auto_reset;          // in
  uint32_t node_id;             // in, for some event types
  uint32_t event_id;            // out
  uint32_t event_slot_index;    // out
};
static_assert(sizeof(CreateEventArgs) == 32);

struct DestroyEventArgs {
  uint32_t event_id;  // in
  uint32_t pad;
};
static_assert(sizeof(DestroyEventArgs) == 8);

struct SetEventArgs {
  uint32_t event_id;  // in
  uint32_t pad;
};
static_assert(sizeof(SetEventArgs) == 8);

struct ResetEventArgs {
  uint32_t event_id;  // in
  uint32_t pad;
};
static_assert(sizeof(ResetEventArgs) == 8);

struct MemoryExceptionFailure {
  uint32_t NotPresent;  // page not present or privilege fault
  uint32_t ReadOnly;    // write to a read-only page
  uint32_t NoExecute;   // execute from a no-execute page
  uint32_t imprecise;   // the address is not exact
};
static_assert(sizeof(MemoryExceptionFailure) == 16);

struct HsaMemoryExceptionData {
  MemoryExceptionFailure failure;
  uint64_t va;
  uint32_t gpu_id;
  uint32_t ErrorType;  // kMemErr*
};
static_assert(sizeof(HsaMemoryExceptionData) == 32);

struct HsaHwExceptionData {
  uint32_t reset_type;   // kHwException*Reset
  uint32_t reset_cause;  // kHwExceptionGpuHang / kHwExceptionEcc
  uint32_t memory_lost;
  uint32_t gpu_id;
};
static_assert(sizeof(HsaHwExceptionData) == 16);

// KFD 1.14: per-signal-event age (0 = legacy waiting; ages start at 1 and
// wrap to 2).
struct HsaSignalEventData {
  uint64_t last_event_age;  // in and out
};
static_assert(sizeof(HsaSignalEventData) == 8);

// One entry of the WAIT_EVENTS array.
struct EventData {
  union {
    HsaMemoryExceptionData memory_exception_data;  // out
    HsaHwExceptionData hw_exception_data;          // out
    HsaSignalEventData signal_event_data;          // in and out
  };
  uint64_t kfd_event_data_ext;  // reserved extension pointer
  uint32_t event_id;            // in
  uint32_t pad;
};
static_assert(sizeof(EventData) == 48);

struct WaitEventsArgs {
  uint64_t events_ptr;    // in, array of EventData
  uint32_t num_events;    // in
  uint32_t wait_for_all;  // in
  uint32_t timeout;       // in: ms (0 poll, ~0 infinite) / out: remaining on interruption
  uint32_t wait_result;   // out, kWaitResult*
};
static_assert(sizeof(WaitEventsArgs) == 24);

constexpr uint32_t kWaitInfinite = 0xFFFFFFFFu;

// ---------------------------------------------------------------------------
// 0x0D..0x10: the pre-1.13 debugger interface. Current kernels answer EPERM.
// ---------------------------------------------------------------------------

constexpr uint32_t kDeprecatedMaxWatchPoints = 100;
constexpr uint32_t kDeprecatedMaxAddressWatchBuffer = 4096;
constexpr uint32_t kDeprecatedMaxWaveControlBuffer = 128;

struct DbgRegisterArgs {
  uint32_t gpu_id;  // in
  uint32_t pad;
};
static_assert(sizeof(DbgRegisterArgs) == 8);

struct DbgUnregisterArgs {
  uint32_t gpu_id;  // in
  uint32_t pad;
};
static_assert(sizeof(DbgUnregisterArgs) == 8);

struct DbgAddressWatchArgs {
  uint64_t content_ptr;        // in, packed variable buffer
  uint32_t gpu_id;             // in
  uint32_t buf_size_in_bytes;  // in, whole buffer
};
static_assert(sizeof(DbgAddressWatchArgs) == 16);

struct DbgWaveControlArgs {
  uint64_t content_ptr;        // in, packed variable buffer
  uint32_t gpu_id;             // in
  uint32_t buf_size_in_bytes;  // in, whole buffer
};
static_assert(sizeof(DbgWaveControlArgs) == 16);

// ---------------------------------------------------------------------------
// 0x11 SET_SCRATCH_BACKING_VA, 0x12 GET_TILE_CONFIG, 0x13 SET_TRAP_HANDLER,
// 0x15 ACQUIRE_VM
// ---------------------------------------------------------------------------

struct SetScratchBackingVaArgs {
  uint64_t va_addr;  // in
  uint32_t gpu_id;   // in
  uint32_t pad;
};
static_assert(sizeof(SetScratchBackingVaArgs) == 16);

struct GetTileConfigArgs {
  uint64_t tile_config_ptr;         // in, uint32_t array
  uint64_t macro_tile_config_ptr;   // in, uint32_t array
  uint32_t num_tile_configs;        // in: capacity / out: filled
  uint32_t num_macro_tile_configs;  // in: capacity / out: filled
  uint32_t gpu_id;                  // in
  uint32_t gb_addr_config;          // out
  uint32_t num_banks;               // out
  uint32_t num_ranks;               // out
};
static_assert(sizeof(GetTileConfigArgs) == 40);

struct SetTrapHandlerArgs {
  uint64_t tba_addr;  // in
  uint64_t tma_addr;  // in
  uint32_t gpu_id;    // in
  uint32_t pad;
};
static_assert(sizeof(SetTrapHandlerArgs) == 24);

struct AcquireVmArgs {
  uint32_t drm_fd;  // in, render node fd
  uint32_t gpu_id;  // in
};
static_assert(sizeof(AcquireVmArgs) == 8);

// ---------------------------------------------------------------------------
// Memory: 0x16 ALLOC_MEMORY_OF_GPU, 0x17 FREE_MEMORY_OF_GPU,
// 0x18 MAP_MEMORY_TO_GPU, 0x19 UNMAP_MEMORY_FROM_GPU, 0x23 AVAILABLE_MEMORY
// ---------------------------------------------------------------------------

// Domain bits: exactly one of them per allocation.
constexpr uint32_t kAllocMemVram = 1u << 0;
constexpr uint32_t kAllocMemGtt = 1u << 1;
constexpr uint32_t kAllocMemUserptr = 1u << 2;
constexpr uint32_t kAllocMemDoorbell = 1u << 3;
constexpr uint32_t kAllocMemMmioRemap = 1u << 4;
constexpr uint32_t kAllocMemDomainMask = kAllocMemVram | kAllocMemGtt | kAllocMemUserptr |
                                         kAllocMemDoorbell | kAllocMemMmioRemap;
// Attribute bits.
constexpr uint32_t kAllocMemWritable = 1u << 31;
constexpr uint32_t kAllocMemExecutable = 1u << 30;
constexpr uint32_t kAllocMemPublic = 1u << 29;
constexpr uint32_t kAllocMemNoSubstitute = 1u << 28;
constexpr uint32_t kAllocMemAqlQueueMem = 1u << 27;
constexpr uint32_t kAllocMemCoherent = 1u << 26;
constexpr uint32_t kAllocMemUncached = 1u << 25;
constexpr uint32_t kAllocMemExtCoherent = 1u << 24;  // KFD 1.13 era
constexpr uint32_t kAllocMemContiguous = 1u << 23;   // KFD 1.16, best effort
constexpr uint32_t kAllocMemAttrMask = kAllocMemWritable | kAllocMemExecutable | kAllocMemPublic |
                                       kAllocMemNoSubstitute | kAllocMemAqlQueueMem |
                                       kAllocMemCoherent | kAllocMemUncached |
                                       kAllocMemExtCoherent | kAllocMemContiguous;
constexpr uint32_t kAllocMemKnownMask = kAllocMemDomainMask | kAllocMemAttrMask;

struct AllocMemoryOfGpuArgs {
  uint64_t va_addr;      // in
  uint64_t size;         // in, bytes
  uint64_t handle;       // out: (gpu_id << 32) | per-process id
  uint64_t mmap_offset;  // in: CPU address for USERPTR / out: render-node mmap offset
  uint32_t gpu_id;       // in
  uint32_t flags;        // in, kAllocMem*
};
static_assert(sizeof(AllocMemoryOfGpuArgs) == 40);

struct FreeMemoryOfGpuArgs {
  uint64_t handle;  // in
};
static_assert(sizeof(FreeMemoryOfGpuArgs) == 8);

// Map and unmap share the layout. n_success makes the call resumable: the
// kernel starts at device n_success and reports how many are done.
struct MapMemoryToGpuArgs {
  uint64_t handle;                // in
  uint64_t device_ids_array_ptr;  // in, uint32_t gpu_ids
  uint32_t n_devices;             // in
  uint32_t n_success;             // in and out
};
static_assert(sizeof(MapMemoryToGpuArgs) == 24);

struct UnmapMemoryFromGpuArgs {
  uint64_t handle;                // in
  uint64_t device_ids_array_ptr;  // in, uint32_t gpu_ids
  uint32_t n_devices;             // in
  uint32_t n_success;             // in and out
};
static_assert(sizeof(UnmapMemoryFromGpuArgs) == 24);

struct GetAvailableMemoryArgs {
  uint64_t available;  // out, bytes
  uint32_t gpu_id;     // in
  uint32_t pad;
};
static_assert(sizeof(GetAvailableMemoryArgs) == 16);

// ---------------------------------------------------------------------------
// dma-buf: 0x1C GET_DMABUF_INFO, 0x1D IMPORT_DMABUF, 0x24 EXPORT_DMABUF
// ---------------------------------------------------------------------------

struct GetDmabufInfoArgs {
  uint64_t size;           // out
  uint64_t metadata_ptr;   // in
  uint32_t metadata_size;  // in: capacity / out: actual size
  uint32_t gpu_id;         // out
  uint32_t flags;          // out, kAllocMem*
  uint32_t dmabuf_fd;      // in
};
static_assert(sizeof(GetDmabufInfoArgs) == 32);

struct ImportDmabufArgs {
  uint64_t va_addr;    // in
  uint64_t handle;     // out
  uint32_t gpu_id;     // in
  uint32_t dmabuf_fd;  // in
};
static_assert(sizeof(ImportDmabufArgs) == 24);

struct ExportDmabufArgs {
  uint64_t handle;     // in
  uint32_t flags;      // in, open flags (O_CLOEXEC ...)
  uint32_t dmabuf_fd;  // out
};
static_assert(sizeof(ExportDmabufArgs) == 16);

// ---------------------------------------------------------------------------
// 0x1F SMI_EVENTS
// ---------------------------------------------------------------------------

constexpr uint32_t kSmiEventNone = 0;
constexpr uint32_t kSmiEventVmFault = 1;
constexpr uint32_t kSmiEventThermalThrottle = 2;
constexpr uint32_t kSmiEventGpuPreReset = 3;
constexpr uint32_t kSmiEventGpuPostReset = 4;
constexpr uint32_t kSmiEventMigrateStart = 5;
constexpr uint32_t kSmiEventMigrateEnd = 6;
constexpr uint32_t kSmiEventPageFaultStart = 7;
constexpr uint32_t kSmiEventPageFaultEnd = 8;
constexpr uint32_t kSmiEventQueueEviction = 9;
constexpr uint32_t kSmiEventQueueRestore = 10;
constexpr uint32_t kSmiEventUnmapFromGpu = 11;
constexpr uint32_t kSmiEventProcessStart = 12;
constexpr uint32_t kSmiEventProcessEnd = 13;
// As a mask bit: receive events of every process (privileged).
constexpr uint32_t kSmiEventAllProcess = 64;
// Largest text record read from the SMI fd.
constexpr uint32_t kSmiEventMsgSize = 96;

// Mask bit of event id `i` (1..64) for the SMI fd's 64-bit mask write.
constexpr uint64_t SmiEventMask(uint32_t i) { return (i >= 1 && i <= 64) ? (1ull << (i - 1)) : 0; }

// Reasons carried in SMI records.
constexpr uint32_t kMigrateTriggerPrefetch = 0;
constexpr uint32_t kMigrateTriggerPagefaultGpu = 1;
constexpr uint32_t kMigrateTriggerPagefaultCpu = 2;
constexpr uint32_t kMigrateTriggerTtmEviction = 3;
constexpr uint32_t kQueueEvictionTriggerSvm = 0;
constexpr uint32_t kQueueEvictionTriggerUserptr = 1;
constexpr uint32_t kQueueEvictionTriggerTtm = 2;
constexpr uint32_t kQueueEvictionTriggerSuspend = 3;
constexpr uint32_t kQueueEvictionCriuCheckpoint = 4;
constexpr uint32_t kQueueEvictionCriuRestore = 5;
constexpr uint32_t kSvmUnmapTriggerMmuNotify = 0;
constexpr uint32_t kSvmUnmapTriggerMmuNotifyMigrate = 1;
constexpr uint32_t kSvmUnmapTriggerUnmapFromCpu = 2;

struct SmiEventsArgs {
  uint32_t gpuid;    // in
  uint32_t anon_fd;  // out
};
static_assert(sizeof(SmiEventsArgs) == 8);

// ---------------------------------------------------------------------------
// 0x20 SVM (variable size), 0x21 SET_XNACK_MODE
// ---------------------------------------------------------------------------

constexpr uint32_t kSvmOpSetAttr = 0;
constexpr uint32_t kSvmOpGetAttr = 1;

constexpr uint32_t kSvmLocationSysmem = 0;
constexpr uint32_t kSvmLocationUndefined = 0xFFFFFFFFu;

constexpr uint32_t kSvmAttrPreferredLoc = 0;   // value: gpu_id or kSvmLocation*
constexpr uint32_t kSvmAttrPrefetchLoc = 1;    // value: gpu_id or kSvmLocationSysmem
constexpr uint32_t kSvmAttrAccess = 2;         // value: gpu_id
constexpr uint32_t kSvmAttrAccessInPlace = 3;  // value: gpu_id
constexpr uint32_t kSvmAttrNoAccess = 4;       // value: gpu_id
constexpr uint32_t kSvmAttrSetFlags = 5;       // value: kSvmFlag* to set
constexpr uint32_t kSvmAttrClrFlags = 6;       // value: kSvmFlag* to clear
constexpr uint32_t kSvmAttrGranularity = 7;    // value: log2(pages)
constexpr uint32_t kSvmAttrLast = kSvmAttrGranularity;

constexpr uint32_t kSvmFlagHostAccess = 0x01;
constexpr uint32_t kSvmFlagCoherent = 0x02;
constexpr uint32_t kSvmFlagHiveLocal = 0x04;
constexpr uint32_t kSvmFlagGpuRo = 0x08;
constexpr uint32_t kSvmFlagGpuExec = 0x10;
constexpr uint32_t kSvmFlagGpuReadMostly = 0x20;
constexpr uint32_t kSvmFlagGpuAlwaysMapped = 0x40;  // KFD 1.11
constexpr uint32_t kSvmFlagExtCoherent = 0x80;
constexpr uint32_t kSvmFlagKnownMask = 0xFF;

struct SvmAttribute {
  uint32_t type;   // kSvmAttr*
  uint32_t value;  // meaning depends on type
};
static_assert(sizeof(SvmAttribute) == 8);

// Fixed head of the SVM argument; `nattr` SvmAttribute records follow it
// directly and the request's size field covers head plus records.
struct SvmArgs {
  uint64_t start_addr;  // in, page aligned
  uint64_t size;        // in, page multiple, nonzero
  uint32_t op;          // in, kSvmOp*
  uint32_t nattr;       // in
};
static_assert(sizeof(SvmArgs) == 24);

struct SetXnackModeArgs {
  int32_t xnack_enabled;  // in: <0 query, 0 off, >0 on / out: current mode
};
static_assert(sizeof(SetXnackModeArgs) == 4);

// ---------------------------------------------------------------------------
// 0x22 CRIU_OP (checkpoint / restore)
// ---------------------------------------------------------------------------

constexpr uint32_t kCriuOpProcessInfo = 0;
constexpr uint32_t kCriuOpCheckpoint = 1;
constexpr uint32_t kCriuOpUnpause = 2;
constexpr uint32_t kCriuOpRestore = 3;
constexpr uint32_t kCriuOpResume = 4;

struct CriuArgs {
  uint64_t devices;         // in/out, array of CriuDeviceBucket
  uint64_t bos;             // in/out, array of CriuBoBucket
  uint64_t priv_data;       // in/out, opaque blob
  uint64_t priv_data_size;  // in/out, bytes
  uint32_t num_devices;     // in/out
  uint32_t num_bos;         // in/out
  uint32_t num_objects;     // in/out
  uint32_t pid;             // in/out
  uint32_t op;              // in, kCriuOp*
};
static_assert(sizeof(CriuArgs) == 56);

struct CriuDeviceBucket {
  uint32_t user_gpu_id;
  uint32_t actual_gpu_id;
  uint32_t drm_fd;
  uint32_t pad;
};
static_assert(sizeof(CriuDeviceBucket) == 16);

struct CriuBoBucket {
  uint64_t addr;
  uint64_t size;
  uint64_t offset;
  uint64_t restored_offset;  // out on restore
  uint32_t gpu_id;           // user gpu_id
  uint32_t alloc_flags;      // kAllocMem*
  uint32_t dmabuf_fd;
  uint32_t pad;
};
static_assert(sizeof(CriuBoBucket) == 48);

// Byte offsets of registers inside the MMIO_REMAP page.
constexpr uint32_t kMmioRemapHdpMemFlushCntl = 0;
constexpr uint32_t kMmioRemapHdpRegFlushCntl = 4;

// ---------------------------------------------------------------------------
// Debugger (KFD 1.13): 0x25 RUNTIME_ENABLE, 0x26 DBG_TRAP
// ---------------------------------------------------------------------------

constexpr uint32_t kRuntimeStateDisabled = 0;
constexpr uint32_t kRuntimeStateEnabled = 1;
constexpr uint32_t kRuntimeStateEnabledBusy = 2;
constexpr uint32_t kRuntimeStateEnabledError = 3;

constexpr uint32_t kRuntimeEnableModeEnable = 1u << 0;
constexpr uint32_t kRuntimeEnableModeTtmpSave = 1u << 1;
constexpr uint32_t kRuntimeEnableModeKnownMask = kRuntimeEnableModeEnable |
                                                 kRuntimeEnableModeTtmpSave;
constexpr uint32_t kRuntimeEnableCapsSupportsCoreDump = 0x80000000u;

struct RuntimeInfo {
  uint64_t r_debug;
  uint32_t runtime_state;  // kRuntimeState*
  uint32_t ttmp_setup;
};
static_assert(sizeof(RuntimeInfo) == 16);

struct RuntimeEnableArgs {
  uint64_t r_debug;            // in, runtime <-> debugger rendezvous
  uint32_t mode_mask;          // in, kRuntimeEnableMode*
  uint32_t capabilities_mask;  // out, kRuntimeEnableCaps*
};
static_assert(sizeof(RuntimeEnableArgs) == 16);

// Header the KFD and the trap handler share at the start of each XCC's
// context-save area.
struct ContextSaveAreaHeader {
  struct {
    uint32_t control_stack_offset;
    uint32_t control_stack_size;
    uint32_t wave_state_offset;
    uint32_t wave_state_size;
  } wave_state;
  uint32_t debug_offset;
  uint32_t debug_size;
  uint64_t err_payload_addr;
  uint32_t err_event_id;
  uint32_t reserved1;
};
static_assert(sizeof(ContextSaveAreaHeader) == 40);

// Suspend/resume per-queue status bits reported in the queue-id array.
constexpr uint32_t kDbgQueueErrorBit = 30;
constexpr uint32_t kDbgQueueInvalidBit = 31;
constexpr uint32_t kDbgQueueErrorMask = 1u << kDbgQueueErrorBit;
constexpr uint32_t kDbgQueueInvalidMask = 1u << kDbgQueueInvalidBit;
constexpr uint32_t kDbgEvFlagClearStatus = 1;

constexpr uint32_t kInvalidGpuId = 0xFFFFFFFFu;
constexpr uint32_t kInvalidQueueId = 0xFFFFFFFFu;

constexpr uint32_t kDbgTrapOverrideOr = 0;
constexpr uint32_t kDbgTrapOverrideReplace = 1;

constexpr uint32_t kDbgTrapMaskFpInvalid = 1u << 0;
constexpr uint32_t kDbgTrapMaskFpInputDenormal = 1u << 1;
constexpr uint32_t kDbgTrapMaskFpDivideByZero = 1u << 2;
constexpr uint32_t kDbgTrapMaskFpOverflow = 1u << 3;
constexpr uint32_t kDbgTrapMaskFpUnderflow = 1u << 4;
constexpr uint32_t kDbgTrapMaskFpInexact = 1u << 5;
constexpr uint32_t kDbgTrapMaskIntDivideByZero = 1u << 6;
constexpr uint32_t kDbgTrapMaskDbgAddressWatch = 1u << 7;
constexpr uint32_t kDbgTrapMaskDbgMemoryViolation = 1u << 8;
constexpr uint32_t kDbgTrapMaskTrapOnWaveStart = 1u << 30;
constexpr uint32_t kDbgTrapMaskTrapOnWaveEnd = 1u << 31;

constexpr uint32_t kDbgTrapWaveLaunchModeNormal = 0;
constexpr uint32_t kDbgTrapWaveLaunchModeHalt = 1;
constexpr uint32_t kDbgTrapWaveLaunchModeDebug = 3;

constexpr uint32_t kDbgTrapAddressWatchModeRead = 0;
constexpr uint32_t kDbgTrapAddressWatchModeNonRead = 1;
constexpr uint32_t kDbgTrapAddressWatchModeAtomic = 2;
constexpr uint32_t kDbgTrapAddressWatchModeAll = 3;

constexpr uint32_t kDbgTrapFlagSingleMemOp = 1;

// Exception codes; the mask bit of code c is 1 << (c - 1).
enum DbgExceptionCode : uint32_t {
  kEcNone = 0,
  kEcQueueWaveAbort = 1,
  kEcQueueWaveTrap = 2,
  kEcQueueWaveMathError = 3,
  kEcQueueWaveIllegalInstruction = 4,
  kEcQueueWaveMemoryViolation = 5,
  kEcQueueWaveApertureViolation = 6,
  kEcQueuePacketDispatchDimInvalid = 16,
  kEcQueuePacketDispatchGroupSegmentSizeInvalid = 17,
  kEcQueuePacketDispatchCodeInvalid = 18,
  kEcQueuePacketReserved = 19,
  kEcQueuePacketUnsupported = 20,
  kEcQueuePacketDispatchWorkGroupSizeInvalid = 21,
  kEcQueuePacketDispatchRegisterInvalid = 22,
  kEcQueuePacketVendorUnsupported = 23,
  kEcQueuePreemptionError = 30,
  kEcQueueNew = 31,
  kEcDeviceQueueDelete = 32,
  kEcDeviceMemoryViolation = 33,
  kEcDeviceRasError = 34,
  kEcDeviceFatalHalt = 35,
  kEcDeviceNew = 36,
  kEcProcessRuntime = 48,
  kEcProcessDeviceRemove = 49,
  kEcMax = 50,
};

constexpr uint64_t EcMask(uint32_t code) {
  return (code >= 1 && code <= 64) ? (1ull << (code - 1)) : 0;
}
constexpr uint64_t kEcMaskQueue =
    EcMask(kEcQueueWaveAbort) | EcMask(kEcQueueWaveTrap) | EcMask(kEcQueueWaveMathError) |
    EcMask(kEcQueueWaveIllegalInstruction) | EcMask(kEcQueueWaveMemoryViolation) |
    EcMask(kEcQueueWaveApertureViolation) | EcMask(kEcQueuePacketDispatchDimInvalid) |
    EcMask(kEcQueuePacketDispatchGroupSegmentSizeInvalid) |
    EcMask(kEcQueuePacketDispatchCodeInvalid) | EcMask(kEcQueuePacketUnsupported) |
    EcMask(kEcQueuePacketDispatchWorkGroupSizeInvalid) |
    EcMask(kEcQueuePacketDispatchRegisterInvalid) | EcMask(kEcQueuePacketVendorUnsupported) |
    EcMask(kEcQueuePreemptionError) | EcMask(kEcQueueNew);
constexpr uint64_t kEcMaskDevice = EcMask(kEcDeviceQueueDelete) | EcMask(kEcDeviceRasError) |
                                   EcMask(kEcDeviceFatalHalt) |
                                   EcMask(kEcDeviceMemoryViolation) | EcMask(kEcDeviceNew);
constexpr uint64_t kEcMaskProcess = EcMask(kEcProcessRuntime) | EcMask(kEcProcessDeviceRemove);

// DBG_TRAP operations (the union member each one uses in brackets).
constexpr uint32_t kDbgTrapEnable = 0;                  // [enable]
constexpr uint32_t kDbgTrapDisable = 1;                 // [none]
constexpr uint32_t kDbgTrapSendRuntimeEvent = 2;        // [send_runtime_event]
constexpr uint32_t kDbgTrapSetExceptionsEnabled = 3;    // [set_exceptions_enabled]
constexpr uint32_t kDbgTrapSetWaveLaunchOverride = 4;   // [launch_override]
constexpr uint32_t kDbgTrapSetWaveLaunchMode = 5;       // [launch_mode]
constexpr uint32_t kDbgTrapSuspendQueues = 6;           // [suspend_queues]
constexpr uint32_t kDbgTrapResumeQueues = 7;            // [resume_queues]
constexpr uint32_t kDbgTrapSetNodeAddressWatch = 8;     // [set_node_address_watch]
constexpr uint32_t kDbgTrapClearNodeAddressWatch = 9;   // [clear_node_address_watch]
constexpr uint32_t kDbgTrapSetFlags = 10;               // [set_flags]
constexpr uint32_t kDbgTrapQueryDebugEvent = 11;        // [query_debug_event]
constexpr uint32_t kDbgTrapQueryExceptionInfo = 12;     // [query_exception_info]
constexpr uint32_t kDbgTrapGetQueueSnapshot = 13;       // [queue_snapshot]
constexpr uint32_t kDbgTrapGetDeviceSnapshot = 14;      // [device_snapshot]
constexpr uint32_t kDbgTrapOpLast = kDbgTrapGetDeviceSnapshot;

struct DbgTrapEnableArgs {
  uint64_t exception_mask;  // in
  uint64_t rinfo_ptr;       // in, RuntimeInfo buffer
  uint32_t rinfo_size;      // in: capacity / out: size the KFD has
  uint32_t dbg_fd;          // in, fd the KFD notifies the debugger through
};
static_assert(sizeof(DbgTrapEnableArgs) == 24);

struct DbgTrapSendRuntimeEventArgs {
  uint64_t exception_mask;  // in
  uint32_t gpu_id;          // in
  uint32_t queue_id;        // in
};
static_assert(sizeof(DbgTrapSendRuntimeEventArgs) == 16);

struct DbgTrapSetExceptionsEnabledArgs {
  uint64_t exception_mask;  // in
};
static_assert(sizeof(DbgTrapSetExceptionsEnabledArgs) == 8);

struct DbgTrapSetWaveLaunchOverrideArgs {
  uint32_t override_mode;         // in, kDbgTrapOverride*
  uint32_t enable_mask;           // in: wanted / out: previous
  uint32_t support_request_mask;  // in: asked / out: supported
  uint32_t pad;
};
static_assert(sizeof(DbgTrapSetWaveLaunchOverrideArgs) == 16);

struct DbgTrapSetWaveLaunchModeArgs {
  uint32_t launch_mode;  // in, kDbgTrapWaveLaunchMode*
  uint32_t pad;
};
static_assert(sizeof(DbgTrapSetWaveLaunchModeArgs) == 8);

struct DbgTrapSuspendQueuesArgs {
  uint64_t exception_mask;   // in, exceptions to clear
  uint64_t queue_array_ptr;  // in/out, uint32_t queue ids (+ status bits)
  uint32_t num_queues;       // in
  uint32_t grace_period;     // in, units of 1K GPU clocks
};
static_assert(sizeof(DbgTrapSuspendQueuesArgs) == 24);

struct DbgTrapResumeQueuesArgs {
  uint64_t queue_array_ptr;  // in/out
  uint32_t num_queues;       // in
  uint32_t pad;
};
static_assert(sizeof(DbgTrapResumeQueuesArgs) == 16);

struct DbgTrapSetNodeAddressWatchArgs {
  uint64_t address;  // in
  uint32_t mode;     // in, kDbgTrapAddressWatchMode*
  uint32_t mask;     // in
  uint32_t gpu_id;   // in
  uint32_t id;       // out
};
static_assert(sizeof(DbgTrapSetNodeAddressWatchArgs) == 24);

struct DbgTrapClearNodeAddressWatchArgs {
  uint32_t gpu_id;  // in
  uint32_t id;      // in
};
static_assert(sizeof(DbgTrapClearNodeAddressWatchArgs) == 8);

struct DbgTrapSetFlagsArgs {
  uint32_t flags;  // in: wanted / out: previous
  uint32_t pad;
};
static_assert(sizeof(DbgTrapSetFlagsArgs) == 8);

struct DbgTrapQueryDebugEventArgs {
  uint64_t exception_mask;  // in: to clear / out: raised
  uint32_t gpu_id;          // out
  uint32_t queue_id;        // out
};
static_assert(sizeof(DbgTrapQueryDebugEventArgs) == 16);

struct DbgTrapQueryExceptionInfoArgs {
  uint64_t info_ptr;         // in
  uint32_t info_size;        // in: capacity / out: needed
  uint32_t source_id;        // in, gpu or queue id
  uint32_t exception_code;   // in
  uint32_t clear_exception;  // in, 0 or 1
};
static_assert(sizeof(DbgTrapQueryExceptionInfoArgs) == 24);

struct DbgTrapQueueSnapshotArgs {
  uint64_t exception_mask;    // in, exceptions to clear
  uint64_t snapshot_buf_ptr;  // in, QueueSnapshotEntry records of entry_size bytes
  uint32_t num_queues;        // in: capacity / out: existing
  uint32_t entry_size;        // in: stride / out: bytes filled per entry
};
static_assert(sizeof(DbgTrapQueueSnapshotArgs) == 24);

struct DbgTrapDeviceSnapshotArgs {
  uint64_t exception_mask;    // in, exceptions to clear
  uint64_t snapshot_buf_ptr;  // in, DbgDeviceInfoEntry records of entry_size bytes
  uint32_t num_devices;       // in: capacity / out: existing
  uint32_t entry_size;        // in: stride / out: bytes filled per entry
};
static_assert(sizeof(DbgTrapDeviceSnapshotArgs) == 24);

struct DbgTrapArgs {
  uint32_t pid;  // in, target process
  uint32_t op;   // in, kDbgTrap*
  union {
    DbgTrapEnableArgs enable;
    DbgTrapSendRuntimeEventArgs send_runtime_event;
    DbgTrapSetExceptionsEnabledArgs set_exceptions_enabled;
    DbgTrapSetWaveLaunchOverrideArgs launch_override;
    DbgTrapSetWaveLaunchModeArgs launch_mode;
    DbgTrapSuspendQueuesArgs suspend_queues;
    DbgTrapResumeQueuesArgs resume_queues;
    DbgTrapSetNodeAddressWatchArgs set_node_address_watch;
    DbgTrapClearNodeAddressWatchArgs clear_node_address_watch;
    DbgTrapSetFlagsArgs set_flags;
    DbgTrapQueryDebugEventArgs query_debug_event;
    DbgTrapQueryExceptionInfoArgs query_exception_info;
    DbgTrapQueueSnapshotArgs queue_snapshot;
    DbgTrapDeviceSnapshotArgs device_snapshot;
  };
};
static_assert(sizeof(DbgTrapArgs) == 32);

struct QueueSnapshotEntry {
  uint64_t exception_status;
  uint64_t ring_base_address;
  uint64_t write_pointer_address;
  uint64_t read_pointer_address;
  uint64_t ctx_save_restore_address;
  uint32_t queue_id;
  uint32_t gpu_id;
  uint32_t ring_size;
  uint32_t queue_type;
  uint32_t ctx_save_restore_area_size;
  uint32_t reserved;
};
static_assert(sizeof(QueueSnapshotEntry) == 64);

struct DbgDeviceInfoEntry {
  uint64_t exception_status;
  uint64_t lds_base;
  uint64_t lds_limit;
  uint64_t scratch_base;
  uint64_t scratch_limit;
  uint64_t gpuvm_base;
  uint64_t gpuvm_limit;
  uint32_t gpu_id;
  uint32_t location_id;
  uint32_t vendor_id;
  uint32_t device_id;
  uint32_t revision_id;
  uint32_t subsystem_vendor_id;
  uint32_t subsystem_device_id;
  uint32_t fw_version;
  uint32_t gfx_target_version;
  uint32_t simd_count;
  uint32_t max_waves_per_simd;
  uint32_t array_count;
  uint32_t simd_arrays_per_engine;
  uint32_t num_xcc;
  uint32_t capability;
  uint32_t debug_prop;
};
static_assert(sizeof(DbgDeviceInfoEntry) == 120);

// ---------------------------------------------------------------------------
// DKMS-only (ROCm out-of-tree kernel): 0x80 IPC_IMPORT_HANDLE,
// 0x81 IPC_EXPORT_HANDLE, 0x83 CROSS_MEMORY_COPY, 0x84 RLC_SPM, 0x85 PC_SAMPLE
// ---------------------------------------------------------------------------

struct IpcImportHandleArgs {
  uint64_t handle;           // out
  uint64_t va_addr;          // in
  uint64_t mmap_offset;      // out
  uint32_t share_handle[4];  // in
  uint32_t gpu_id;           // in
  uint32_t flags;            // out, kAllocMem*
};
static_assert(sizeof(IpcImportHandleArgs) == 48);

struct IpcExportHandleArgs {
  uint64_t handle;           // in
  uint32_t share_handle[4];  // out
  uint32_t gpu_id;           // in
  uint32_t flags;            // in
};
static_assert(sizeof(IpcExportHandleArgs) == 32);

struct MemoryRange {
  uint64_t va_addr;
  uint64_t size;
};
static_assert(sizeof(MemoryRange) == 16);

// flags bit 0: 0 = read from the remote process, 1 = write to it.
constexpr uint32_t kCrossMemoryWrite = 1u << 0;

struct CrossMemoryCopyArgs {
  uint32_t pid;                  // in, remote process
  uint32_t flags;                // in, kCrossMemoryWrite
  uint64_t src_mem_range_array;  // in, MemoryRange array
  uint64_t src_mem_array_size;   // in, entries
  uint64_t dst_mem_range_array;  // in, MemoryRange array
  uint64_t dst_mem_array_size;   // in, entries
  uint64_t bytes_copied;         // out
};
static_assert(sizeof(CrossMemoryCopyArgs) == 48);

constexpr uint32_t kSpmOpAcquire = 0;
constexpr uint32_t kSpmOpRelease = 1;
constexpr uint32_t kSpmOpSetDestBuf = 2;

struct SpmArgs {
  uint64_t dest_buf;       // in, 0 = stop streaming
  uint32_t buf_size;       // in
  uint32_t op;             // in, kSpmOp*
  uint32_t timeout;        // in: ms to wait for the previous buffer / out: remaining
  uint32_t gpu_id;         // in
  uint32_t bytes_copied;   // out, into the previous buffer
  uint32_t has_data_loss;  // out
};
static_assert(sizeof(SpmArgs) == 32);

// Header the kernel writes at the start of an SPM destination buffer.
struct SpmBufferHeader {
  uint32_t version;  // bits 24-31 major, 0-23 minor
  uint32_t bytes_copied;
  uint32_t has_data_loss;
  uint32_t reserved[5];
};
static_assert(sizeof(SpmBufferHeader) == 32);

constexpr uint32_t kPcsOpQueryCapabilities = 0;
constexpr uint32_t kPcsOpCreate = 1;
constexpr uint32_t kPcsOpDestroy = 2;
constexpr uint32_t kPcsOpStart = 3;
constexpr uint32_t kPcsOpStop = 4;
constexpr uint32_t kPcsOpLast = kPcsOpStop;

constexpr uint32_t kPcsMethodHostTrap = 1;
constexpr uint32_t kPcsMethodStochastic = 2;

constexpr uint32_t kPcsTypeTimeUs = 0;
constexpr uint32_t kPcsTypeClockCycles = 1;
constexpr uint32_t kPcsTypeInstructions = 2;

constexpr uint64_t kPcsFlagPowerOf2 = 1;         // PcSampleInfo.flags
constexpr uint32_t kPcsQueryTypeFull = 1u << 0;  // PcSampleArgs.flags, query op

struct PcSampleInfo {
  uint64_t interval;      // in, unit given by type
  uint64_t interval_min;  // out
  uint64_t interval_max;  // out
  uint64_t flags;         // out, kPcsFlag*
  uint32_t method;        // in/out, kPcsMethod*
  uint32_t type;          // in/out, kPcsType*
};
static_assert(sizeof(PcSampleInfo) == 40);

struct PcSampleArgs {
  uint64_t sample_info_ptr;  // in, PcSampleInfo array
  uint32_t num_sample_info;  // in: capacity / out: count
  uint32_t op;               // in, kPcsOp*
  uint32_t gpu_id;           // in
  uint32_t trace_id;         // in, or out for create (0 is invalid)
  uint32_t flags;            // in, kPcsQuery*
  uint32_t reserved;
};
static_assert(sizeof(PcSampleArgs) == 32);

// ---------------------------------------------------------------------------
// mmap offsets on /dev/kfd
// ---------------------------------------------------------------------------

// Bits 63-62 type, 61-46 gpu_id, 45-0 value.
constexpr uint32_t kMmapTypeShift = 62;
constexpr uint32_t kMmapGpuIdShift = 46;
constexpr uint32_t kMmapGpuIdBits = 16;
constexpr uint64_t kMmapTypeMask = 3ull << kMmapTypeShift;
constexpr uint64_t kMmapGpuIdMask = ((1ull << kMmapGpuIdBits) - 1) << kMmapGpuIdShift;
constexpr uint64_t kMmapValueMask = (1ull << kMmapGpuIdShift) - 1;

constexpr uint32_t kMmapTypeDoorbell = 3;
constexpr uint32_t kMmapTypeEvents = 2;
constexpr uint32_t kMmapTypeReservedMem = 1;
constexpr uint32_t kMmapTypeMmio = 0;

// Largest EVENTS mapping the kernel accepts.
constexpr uint64_t kMaxEventsMapping = uint64_t{kSignalEventLimit} * kEventSlotSize;

// ---------------------------------------------------------------------------
// Request numbers
// ---------------------------------------------------------------------------

// Derived from the one list (ioctl_list.h): kIoc<Name> for every request,
// and IoctlOf<Args>, the request a fixed-size argument structure travels
// with. SVM's size field carries its payload length (kIocSvm has the
// fixed head's size); CREATE_PROCESS (0x27) takes no argument.

// The argument structure of a request without one.
struct NoArgs {};

enum IoctlSizeKind : uint8_t { kFixedSize, kVariableSize };

template <class Args>
constexpr size_t IoctlArgSize() {
  return sizeof(Args);
}
template <>
constexpr size_t IoctlArgSize<NoArgs>() {
  return 0;
}

// IoctlOf<Args>::kRequest: the request of the structure. Every structure
// appears once in the list; a structure no request takes has no IoctlOf.
template <class Args>
struct IoctlOf;

#define HKE_KFD_IOCTL_DEFINE(nr, Name, NAME, dir, Args, kind, major, minor)           \
  constexpr uint32_t kIoc##Name = IocEncode(dir, kKfdIocType, nr, IoctlArgSize<Args>()); \
  template <>                                                                          \
  struct IoctlOf<Args> {                                                               \
    static constexpr uint32_t kRequest = kIoc##Name;                                   \
    static constexpr bool kVariable = (kind) == kVariableSize;                         \
  };
HKE_KFD_IOCTL_LIST(HKE_KFD_IOCTL_DEFINE)
#undef HKE_KFD_IOCTL_DEFINE

// Upstream dispatch range [first, end) and the DKMS range.
constexpr uint32_t kKfdCommandStart = 0x01;
constexpr uint32_t kKfdCommandEnd = 0x28;
constexpr uint32_t kKfdDkmsCommandStart = 0x80;
constexpr uint32_t kKfdDkmsCommandEnd = 0x86;

}  // namespace hke::kfd

#endif  // HKE_LIB_KFD_ABI_H_
