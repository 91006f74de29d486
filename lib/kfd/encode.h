// Encoders and decoders between API-level arguments and KFD ioctl argument
// structures.
//
// Contract, for every function here:
//  - Pure: no I/O, no globals, no heap; callable from any thread.
//  - Inputs are validated; every size, count and address sum is computed
//    with checked arithmetic, so a command can never be built from a
//    wrapped value and the _IOC size field can never overflow.
//  - Outputs are written only when the function returns OK; on failure the
//    caller's output objects are left byte-for-byte unchanged.
//  - Status values: INVALID_ARGUMENT for caller mistakes the kernel would
//    reject (or that would make it write out of bounds), OUT_OF_RANGE for
//    a count above a documented cap, OVERFLOW when a size or address sum
//    does not fit its field, BUFFER_TOO_SMALL for a too-small output
//    buffer, PROTOCOL for a kernel reply that breaks the ABI's promises
//    (counts larger than the buffer, ids of another device, inverted
//    ranges), VERSION_MISMATCH for a KFD major other than 1.
//  - Decoders take the request as sent and the reply as received; the
//    reply is treated as hostile input.
#ifndef HKE_LIB_KFD_ENCODE_H_
#define HKE_LIB_KFD_ENCODE_H_

#include <cstddef>
#include <cstdint>

#include "lib/core/status.h"
#include "lib/kfd/abi.h"

namespace hke::kfd {

// Smallest page size of every supported target; used when a caller does
// not know the kernel's page size. Larger kernel pages only make the
// kernel stricter than these checks.
constexpr uint64_t kDefaultPageSize = 4096;

// A page size the encoders accept: a power of two in [4 KiB, 1 GiB].
constexpr bool ValidPageSize(uint64_t page_size) {
  return page_size >= 4096 && page_size <= (1ull << 30) && (page_size & (page_size - 1)) == 0;
}

// ---------------------------------------------------------------------------
// GET_VERSION
// ---------------------------------------------------------------------------

struct KfdVersion {
  uint32_t major;
  uint32_t minor;
};

// Major must be kKfdMajorVersion (VERSION_MISMATCH otherwise).
Status DecodeGetVersion(const GetVersionArgs& reply, KfdVersion* out);

constexpr bool KfdAtLeast(const KfdVersion& v, uint32_t minor) {
  return v.major == kKfdMajorVersion && v.minor >= minor;
}

// ---------------------------------------------------------------------------
// GET_PROCESS_APERTURES_NEW
// ---------------------------------------------------------------------------

// Inclusive address range; {0, 0} means "absent".
struct AddressRange {
  uint64_t base;
  uint64_t limit;
};

struct NodeApertures {
  uint32_t gpu_id;
  AddressRange lds;
  AddressRange scratch;
  AddressRange gpuvm;
};

// Highest GPU virtual address bit any supported GPU can use (57-bit VA).
constexpr uint64_t kMaxGpuVaExclusive = 1ull << 57;
// LDS and scratch apertures are windows of at most 4 GiB whose base has
// zero low 32 bits (the hardware aperture registers hold the high half).
constexpr uint64_t kPrivateApertureMaxSpan = 1ull << 32;
// Most apertures a caller may ask for in one request (far above any real
// system; keeps capacity * 56 comfortably in range).
constexpr uint32_t kMaxApertureNodes = 1024;

// Builds the request: `capacity` entries at user address `buffer`;
// capacity 0 (with buffer 0) asks for the count only.
Status EncodeGetProcessAperturesNew(uint64_t buffer, uint32_t capacity,
                                    GetProcessAperturesNewArgs* out);

// Count-only reply: 1..max_nodes (PROTOCOL outside that range).
Status DecodeApertureCount(const GetProcessAperturesNewArgs& reply, uint32_t max_nodes,
                           uint32_t* out_count);

// Validates the filled entries and converts them. `entries` is the array
// the request pointed at and has sent.num_of_nodes elements. A reply count
// above the sent capacity, a zero or duplicate gpu_id, limit < base, a GPUVM
// range reaching beyond 2^57 or not page-granular, a private aperture not
// 4 GiB-based or wider than 4 GiB, and overlapping apertures are PROTOCOL.
// `out` must have room for the reply count (BUFFER_TOO_SMALL otherwise).
Status DecodeGetProcessAperturesNew(const GetProcessAperturesNewArgs& sent,
                                    const GetProcessAperturesNewArgs& reply,
                                    const ProcessDeviceApertures* entries, NodeApertures* out,
                                    uint32_t out_capacity, uint32_t* out_count);

// ---------------------------------------------------------------------------
// ALLOC_MEMORY_OF_GPU / FREE / MAP / UNMAP / AVAILABLE_MEMORY
// ---------------------------------------------------------------------------

struct AllocRequest {
  uint32_t gpu_id;     // nonzero
  uint32_t flags;      // kAllocMem*: exactly one domain bit, known bits only
  uint64_t va_addr;    // page aligned
  uint64_t size;       // nonzero page multiple
  uint64_t userptr;    // CPU address for USERPTR (page aligned), else 0
  uint64_t page_size;  // kernel page size, or kDefaultPageSize
};

// Rejects: gpu_id 0, size 0 or not a page multiple, unaligned va/userptr,
// va+size or userptr+size wrapping, unknown flag bits, zero or several
// domain bits, a userptr with a non-USERPTR domain or none with USERPTR,
// MMIO_REMAP with size != 4096 or a page size above 4 KiB (the kernel
// cannot remap it), CONTIGUOUS on anything but VRAM.
Status EncodeAllocMemoryOfGpu(const AllocRequest& req, AllocMemoryOfGpuArgs* out);

struct AllocResult {
  uint64_t handle;
  uint64_t mmap_offset;  // render-node offset; /dev/kfd MMIO offset for MMIO_REMAP
};

// The handle's high half must be the gpu_id sent; an MMIO_REMAP reply must
// carry the MMIO mmap offset of that gpu; other offsets must be page
// aligned (DRM fake offsets).
Status DecodeAllocMemoryOfGpu(const AllocMemoryOfGpuArgs& sent, const AllocMemoryOfGpuArgs& reply,
                              AllocResult* out);

// gpu_id of a KFD memory handle (its high 32 bits).
constexpr uint32_t HandleGpuId(uint64_t handle) { return static_cast<uint32_t>(handle >> 32); }

Status EncodeFreeMemoryOfGpu(uint64_t handle, FreeMemoryOfGpuArgs* out);

// Most devices one MAP/UNMAP call may name.
constexpr uint32_t kMaxMapDevices = 1024;

struct MapRequest {
  uint64_t handle;          // nonzero
  uint64_t device_ids;      // user address of n_devices uint32_t gpu_ids
  uint32_t n_devices;       // 1..kMaxMapDevices
  uint32_t already_done;    // resume point: devices finished by an earlier call
};

// n_devices 0 or above the cap, already_done > n_devices, a zero handle or
// device-id address, and an id array whose end wraps are rejected.
Status EncodeMapMemoryToGpu(const MapRequest& req, MapMemoryToGpuArgs* out);
Status EncodeUnmapMemoryFromGpu(const MapRequest& req, UnmapMemoryFromGpuArgs* out);

// Progress after a MAP/UNMAP call (successful or not): the reply's
// n_success must not go backwards, must not exceed n_devices, handle and
// n_devices must be unchanged, and a call that returned 0 must report every
// device done. `*out_done` is the new resume point.
Status DecodeMapProgress(const MapMemoryToGpuArgs& sent, const MapMemoryToGpuArgs& reply,
                         bool call_succeeded, uint32_t* out_done);
Status DecodeUnmapProgress(const UnmapMemoryFromGpuArgs& sent,
                           const UnmapMemoryFromGpuArgs& reply, bool call_succeeded,
                           uint32_t* out_done);

Status EncodeAvailableMemory(uint32_t gpu_id, GetAvailableMemoryArgs* out);
// gpu_id must come back unchanged.
Status DecodeAvailableMemory(const GetAvailableMemoryArgs& sent,
                             const GetAvailableMemoryArgs& reply, uint64_t* out_bytes);

// ---------------------------------------------------------------------------
// Queues
// ---------------------------------------------------------------------------

struct QueueRequest {
  uint32_t gpu_id;          // nonzero
  uint32_t queue_type;      // kQueueType*
  uint64_t ring_base;       // nonzero
  uint32_t ring_size;       // power of two, >= kMinQueueRingSize
  uint32_t percentage;      // bits 0-7 <= 100, bits 8-15 PM4 target XCC, rest 0
  uint32_t priority;        // <= 15
  uint32_t sdma_engine_id;  // the engine of a kQueueTypeSdmaByEngId queue; ignored by the kernel otherwise
  uint64_t read_ptr;        // nonzero, 4-byte aligned
  uint64_t write_ptr;       // nonzero, 4-byte aligned
  uint64_t eop_addr;        // 0 with eop_size 0, or both nonzero
  uint64_t eop_size;
  uint64_t ctx_save_addr;   // 0 with both sizes 0, or nonzero
  uint32_t ctx_save_size;   // per XCC
  uint32_t ctl_stack_size;  // <= ctx_save_size
};

Status EncodeCreateQueue(const QueueRequest& req, CreateQueueArgs* out);

struct CreateQueueResult {
  uint32_t queue_id;
  uint64_t doorbell_offset;  // /dev/kfd mmap offset (type DOORBELL)
};

// Largest queue id the kernel hands out (1024 queues per process).
constexpr uint32_t kMaxQueuesPerProcess = 1024;
// The in-frame byte offset a doorbell reply may carry (one process slice
// of 1024 8-byte doorbells, rounded up to the largest page size).
constexpr uint64_t kMaxDoorbellFrameOffset = 1ull << 16;

// The doorbell offset must be of type DOORBELL for the sent gpu_id with an
// in-frame offset below kMaxDoorbellFrameOffset; queue_id < 1024.
Status DecodeCreateQueue(const CreateQueueArgs& sent, const CreateQueueArgs& reply,
                         CreateQueueResult* out);

struct QueueUpdate {
  uint32_t queue_id;
  uint64_t ring_base;  // 0 disables the queue (as percentage 0 does)
  uint32_t ring_size;  // power of two >= 1024, or 0 with ring_base 0
  uint32_t percentage;
  uint32_t priority;
};

Status EncodeUpdateQueue(const QueueUpdate& req, UpdateQueueArgs* out);
Status EncodeDestroyQueue(uint32_t queue_id, DestroyQueueArgs* out);

// num_bits: nonzero multiple of 32 (INVALID_ARGUMENT), at most
// kMaxCuMaskBits (OUT_OF_RANGE: longer masks are refused rather than
// silently truncated as the kernel would).
Status EncodeSetCuMask(uint32_t queue_id, uint64_t mask_addr, uint32_t num_bits,
                       SetCuMaskArgs* out);

// ---------------------------------------------------------------------------
// Events
// ---------------------------------------------------------------------------

struct EventRequest {
  uint32_t event_type;         // kEvent*
  bool auto_reset;
  uint32_t node_id;
  uint64_t event_page_handle;  // KFD handle of a user event page, or 0
};

Status EncodeCreateEvent(const EventRequest& req, CreateEventArgs* out);

struct CreateEventResult {
  uint32_t event_id;
  uint32_t slot_index;     // signal/debug events only, else 0
  uint32_t trigger_data;   // signal/debug events only, else 0
  uint64_t events_mmap_offset;  // EVENTS mmap offset for signal/debug events, else 0
};

// Signal/debug events: 1 <= slot < kSignalEventLimit, event_id == slot ==
// trigger data, the page offset of type EVENTS with no gpu/value bits.
// Other types: event_id >= kSignalEventLimit (the kernel uses the upper id
// range; the slot is ignored).
Status DecodeCreateEvent(const CreateEventArgs& sent, const CreateEventArgs& reply,
                         CreateEventResult* out);

Status EncodeDestroyEvent(uint32_t event_id, DestroyEventArgs* out);
Status EncodeSetEvent(uint32_t event_id, SetEventArgs* out);
Status EncodeResetEvent(uint32_t event_id, ResetEventArgs* out);

// Most events one wait may name (the size of the signal-slot space).
constexpr uint32_t kMaxWaitEvents = kSignalEventLimit;

// `events` is the user address of `count` EventData records: count 0 is
// INVALID_ARGUMENT, above kMaxWaitEvents OUT_OF_RANGE.
Status EncodeWaitEvents(uint64_t events, uint32_t count, bool wait_for_all, uint32_t timeout_ms,
                        WaitEventsArgs* out);

struct WaitResult {
  uint32_t result;        // kWaitResult*
  uint32_t remaining_ms;  // time left, meaningful after an interrupted wait
};

// wait_result must be a known value; the remaining timeout may not grow
// (except for an infinite wait); events/count/all must be unchanged.
Status DecodeWaitEvents(const WaitEventsArgs& sent, const WaitEventsArgs& reply, WaitResult* out);

// ---------------------------------------------------------------------------
// SVM (variable-size request)
// ---------------------------------------------------------------------------

// Largest attribute count whose request still fits the 14-bit size field:
// 24 + 8 * 2044 = 16376 <= 16383.
constexpr uint32_t kSvmMaxAttributes =
    static_cast<uint32_t>((kIocMaxSize - sizeof(SvmArgs)) / sizeof(SvmAttribute));
static_assert(kSvmMaxAttributes == 2044);

// Writes an SvmArgs head followed by `nattr` attributes into `out_buffer`
// (no alignment needed) and returns the request number whose size field is
// exactly the byte count. Rejects: start 0, start/size unaligned to the
// page size, size 0, start+size wrapping, op not SET/GET, nattr above
// kSvmMaxAttributes (OVERFLOW), attrs null with nattr > 0, an unknown
// attribute type or unknown SET/CLR flag bits, a buffer smaller than the
// command (BUFFER_TOO_SMALL).
Status BuildSvmCommand(uint64_t start, uint64_t size, uint32_t op, const SvmAttribute* attrs,
                       uint32_t nattr, void* out_buffer, size_t capacity, uint32_t* out_request,
                       size_t* out_bytes, uint64_t page_size = kDefaultPageSize);

// Reads the attributes back from a GET_ATTR reply buffer of `bytes` bytes
// (the buffer the request was built in). The head must be unchanged
// (start, size, op, nattr == `nattr`); returned types must be known.
Status DecodeSvmGetReply(const void* reply, size_t bytes, uint64_t start, uint64_t size,
                         uint32_t nattr, SvmAttribute* out_attrs, uint32_t out_capacity);

// Bytes of a SVM request carrying `nattr` attributes (OVERFLOW above the cap).
Status SvmCommandBytes(uint32_t nattr, size_t* out_bytes);

// ---------------------------------------------------------------------------
// mmap offsets on /dev/kfd
// ---------------------------------------------------------------------------

struct MmapOffset {
  uint32_t type;    // kMmapType*
  uint32_t gpu_id;  // 16-bit gpu id
  uint64_t value;   // bits 45-0
};

// type <= 3, gpu_id < 2^16, value < 2^46; EVENTS carries neither gpu nor
// value, MMIO no value.
Status EncodeMmapOffset(const MmapOffset& in, uint64_t* out);
// Splits an offset and applies the same per-type rules (PROTOCOL on a
// violation, since such offsets come from the kernel).
Status DecodeMmapOffset(uint64_t offset, MmapOffset* out);

// ---------------------------------------------------------------------------
// GET_TILE_CONFIG
// ---------------------------------------------------------------------------

struct TileConfigRequest {
  uint32_t gpu_id;
  uint64_t tile_config;        // user address of tile_capacity uint32_t, or 0 with capacity 0
  uint32_t tile_capacity;
  uint64_t macro_tile_config;  // user address of macro_capacity uint32_t
  uint32_t macro_capacity;
};

Status EncodeGetTileConfig(const TileConfigRequest& req, GetTileConfigArgs* out);

struct TileConfigResult {
  uint32_t num_tile_configs;
  uint32_t num_macro_tile_configs;
  uint32_t gb_addr_config;
  uint32_t num_banks;
  uint32_t num_ranks;
};

// The filled counts may not exceed the capacities sent; pointers and
// gpu_id must be unchanged.
Status DecodeGetTileConfig(const GetTileConfigArgs& sent, const GetTileConfigArgs& reply,
                           TileConfigResult* out);

// ---------------------------------------------------------------------------
// Debugger: RUNTIME_ENABLE, DBG_TRAP snapshots
// ---------------------------------------------------------------------------

// mode_mask: known kRuntimeEnableMode* bits only; TTMP_SAVE needs ENABLE.
Status EncodeRuntimeEnable(uint64_t r_debug, uint32_t mode_mask, RuntimeEnableArgs* out);
// Returns the capability mask; r_debug and mode must be unchanged.
Status DecodeRuntimeEnable(const RuntimeEnableArgs& sent, const RuntimeEnableArgs& reply,
                           uint32_t* out_caps);

// entry_size * count in size_t with overflow detection (upstream computes
// this in 32 bits and wraps). OVERFLOW when it does not fit.
Status SnapshotBufferBytes(uint32_t entry_size, uint32_t count, size_t* out_bytes);

// Snapshot requests for `count` entries of our entry type at user address
// `buffer` with `buffer_bytes` of room. count 0 asks for the number only.
Status EncodeQueueSnapshot(uint32_t pid, uint64_t clear_mask, uint64_t buffer,
                           size_t buffer_bytes, uint32_t count, DbgTrapArgs* out);
Status EncodeDeviceSnapshot(uint32_t pid, uint64_t clear_mask, uint64_t buffer,
                            size_t buffer_bytes, uint32_t count, DbgTrapArgs* out);

struct SnapshotResult {
  uint32_t available;   // entries the kernel has
  uint32_t filled;      // entries written: min(sent count, available)
  uint32_t entry_size;  // bytes valid per entry (stride stays the sent size)
};

// The op must be unchanged; the reply entry size may not be 0 (when
// entries were asked for) or larger than the sent stride.
Status DecodeSnapshot(const DbgTrapArgs& sent, const DbgTrapArgs& reply, SnapshotResult* out);

// DBG_TRAP ENABLE / DISABLE / SUSPEND_QUEUES (the library's own debugger
// calls; hsaKmtDebugTrapIoctl passes other ops through unchecked).

// pid nonzero, dbg_fd a descriptor (not negative), rinfo_ptr nonzero with
// rinfo_size in [1, sizeof(RuntimeInfo) * 16] (the kernel copies at most
// its own RuntimeInfo, 16 bytes today; a larger capacity leaves room for
// growth) and the buffer end not wrapping.
Status EncodeDbgTrapEnable(uint32_t pid, int32_t dbg_fd, uint64_t exception_mask,
                           uint64_t rinfo_ptr, uint32_t rinfo_size, DbgTrapArgs* out);

// The number of RuntimeInfo bytes the kernel wrote: min(sent capacity,
// the size it reports). op, pid, the buffer and dbg_fd must come back
// unchanged and the reported size must be nonzero (PROTOCOL).
Status DecodeDbgTrapEnable(const DbgTrapArgs& sent, const DbgTrapArgs& reply,
                           uint32_t* out_bytes);

// pid nonzero. dbg_fd travels in the enable member as upstream sends it
// (the kernel ignores it for DISABLE).
Status EncodeDbgTrapDisable(uint32_t pid, int32_t dbg_fd, DbgTrapArgs* out);

// `ids` is the user address of `count` uint32_t KFD queue ids (the kernel
// writes status bits into them). count in [1, kMaxQueuesPerProcess]
// (0 INVALID_ARGUMENT, above OUT_OF_RANGE), ids nonzero, the array end not
// wrapping (OVERFLOW).
Status EncodeDbgSuspendQueues(uint32_t pid, uint64_t ids, uint32_t count, uint64_t clear_mask,
                              uint32_t grace_period, DbgTrapArgs* out);

// Deprecated debugger buffers (0x0F DBG_ADDRESS_WATCH, 0x10
// DBG_WAVE_CONTROL). Current kernels refuse both with EPERM; the library
// still builds the packed layout upstream's thunk sends, into a caller
// buffer: the 16-byte argument header, then the content the header's
// content_ptr points at, unaligned and without padding. Pointer-sized
// items are packed as 64-bit values (the KFD never served 32-bit
// processes). `*out_bytes` is the whole size (= buf_size_in_bytes).

// Content: operand u32, mode u32, trap id u32, the 8-byte wave message,
// memory VA u64 (28 bytes; 44 with the header).
struct LegacyWaveControl {
  uint32_t gpu_id;
  uint32_t operand;   // HSA_DBG_WAVEOP: 1..5
  uint32_t mode;      // HSA_DBG_WAVEMODE: 0, 2 or 3
  uint32_t trap_id;
  uint64_t message;   // HsaDbgWaveMessageAMD, 8 bytes
  uint64_t memory_va;
};
constexpr size_t kLegacyWaveControlBytes = sizeof(DbgWaveControlArgs) + 4 * 3 + 8 + 8;
// Unknown operand or mode: INVALID_ARGUMENT; a buffer below
// kLegacyWaveControlBytes: BUFFER_TOO_SMALL.
Status BuildLegacyWaveControl(const LegacyWaveControl& req, void* buf, size_t capacity,
                              size_t* out_bytes);

// Content: count u32, `count` modes (u32), `count` addresses (u64),
// `mask_items` masks (u64), `event_items` event pointers (u64).
// mask_items is count (per-point masks) or 1 (one mask for all);
// event_items is count or 0. count in [1, kLegacyMaxWatchPoints] (0:
// INVALID_ARGUMENT, above: OUT_OF_RANGE); modes 0..3.
constexpr uint32_t kLegacyMaxWatchPoints = 100;
struct LegacyAddressWatch {
  uint32_t gpu_id;
  uint32_t count;
  const uint32_t* modes;
  const uint64_t* addresses;
  const uint64_t* masks;
  uint32_t mask_items;
  const uint64_t* events;  // may be null with event_items 0
  uint32_t event_items;
};
// Size of the request for `count` points with the given item counts
// (checked; OVERFLOW cannot happen below the caps, but is reported).
Status LegacyAddressWatchBytes(uint32_t count, uint32_t mask_items, uint32_t event_items,
                               size_t* out_bytes);
constexpr size_t kLegacyAddressWatchMaxBytes =
    sizeof(DbgAddressWatchArgs) + 4 + kLegacyMaxWatchPoints * (4 + 8 + 8 + 8);
Status BuildLegacyAddressWatch(const LegacyAddressWatch& req, void* buf, size_t capacity,
                               size_t* out_bytes);

// ---------------------------------------------------------------------------
// Per-node calls: SET_MEMORY_POLICY, GET_CLOCK_COUNTERS, SET_TRAP_HANDLER
// ---------------------------------------------------------------------------

struct MemoryPolicyRequest {
  uint32_t gpu_id;            // nonzero
  uint32_t default_policy;    // kCachePolicy*
  uint32_t alternate_policy;  // kCachePolicy*
  uint64_t alternate_base;    // page aligned (0 with size 0: no alternate aperture)
  uint64_t alternate_size;    // page multiple; base + size may not wrap
  uint32_t misc_process_flag; // kProcFlag* bits (KFD 1.18), else 0
  uint64_t page_size;         // kernel page size, or kDefaultPageSize
};

// Rejects gpu_id 0, a policy other than COHERENT/NONCOHERENT, an unaligned
// base or size, a wrapping range (OVERFLOW), unknown process-flag bits.
Status EncodeSetMemoryPolicy(const MemoryPolicyRequest& req, SetMemoryPolicyArgs* out);

// gpu_id 0 is allowed: a CPU node asks for the CPU clocks only (the kernel
// then reports a GPU counter of 0).
Status EncodeGetClockCounters(uint32_t gpu_id, GetClockCountersArgs* out);

struct ClockSample {
  uint64_t gpu;        // GPU counter (0 for a CPU node)
  uint64_t cpu;        // CLOCK_MONOTONIC_RAW, ns
  uint64_t system;     // CLOCK_BOOTTIME, ns
  uint64_t frequency;  // Hz of the system counter
};

// gpu_id must come back unchanged and the frequency must be nonzero
// (PROTOCOL); a CPU node's request must not yield a GPU counter.
Status DecodeGetClockCounters(const GetClockCountersArgs& sent, const GetClockCountersArgs& reply,
                              ClockSample* out);

// gpu_id nonzero; the addresses pass through (the kernel does not check
// them either; 0 clears the handler).
Status EncodeSetTrapHandler(uint32_t gpu_id, uint64_t tba, uint64_t tma, SetTrapHandlerArgs* out);

// ---------------------------------------------------------------------------
// PC sampling (0x85) and SPM (0x84), DKMS kernels only
// ---------------------------------------------------------------------------

struct PcSampleRequest {
  uint32_t op;           // kPcsOp*
  uint32_t gpu_id;       // nonzero
  uint64_t info;         // user address of PcSampleInfo records
  uint32_t info_count;   // QUERY: capacity (0 = count only); CREATE: exactly 1; else 0
  uint32_t trace_id;     // DESTROY/START/STOP: nonzero; else 0
  uint32_t flags;        // QUERY: kPcsQueryTypeFull or 0; else 0
};

// More capability records than any GPU reports (QUERY capacities above it
// are OUT_OF_RANGE; a reply counting more is PROTOCOL).
constexpr uint32_t kMaxPcSampleInfos = 64;
// The kernel's trace ids come from an IDR of positive ints starting at 1.
constexpr uint32_t kMaxPcSampleTraceId = 0x7FFFFFFFu;

Status EncodePcSample(const PcSampleRequest& req, PcSampleArgs* out);

// QUERY: returns the count the kernel reports (may exceed the capacity
// sent: that is the "buffer too small" answer); the reply's pointer may be
// the sent one or one record further (the DKMS kernel's running-session
// answer). CREATE: returns the new
// trace id, which must be in [1, kMaxPcSampleTraceId]. Other ops return 0.
Status DecodePcSample(const PcSampleArgs& sent, const PcSampleArgs& reply, uint32_t* out_value);

// One capability record from a QUERY reply: method and type known,
// interval_min <= interval_max.
Status DecodePcSampleInfo(const PcSampleInfo& info, PcSampleInfo* out);

struct SpmRequest {
  uint32_t op;          // kSpmOp*
  uint32_t gpu_id;      // nonzero
  uint64_t dest_buf;    // SET_DEST_BUF: new buffer or 0 to stop; else 0
  uint32_t buf_size;    // with dest_buf: >= sizeof(SpmBufferHeader), multiple of 32
  uint32_t timeout_ms;  // SET_DEST_BUF only
};

Status EncodeRlcSpm(const SpmRequest& req, SpmArgs* out);

struct SpmResult {
  uint32_t bytes_copied;   // into the previous buffer
  bool data_lost;
  uint32_t remaining_ms;
};

// `previous_buf_size` is the size of the buffer this call replaced (0 if
// none): bytes_copied may not exceed it; the timeout may not grow.
Status DecodeRlcSpm(const SpmArgs& sent, const SpmArgs& reply, uint32_t previous_buf_size,
                    SpmResult* out);

}  // namespace hke::kfd

#endif  // HKE_LIB_KFD_ENCODE_H_
